/* SPDX-License-Identifier: MIT */
/* sweep's state, shared by its measuring (sweep.c) and its output (sweep_out.c). */
#ifndef CLEARBENCH_SWEEP_H
#define CLEARBENCH_SWEEP_H

#include <stdio.h>
#include "contenders.h"
#include "opts.h"
#include "table.h"
#include "targets.h"

#define SWEEP_NCONT (BENCH_MAX_KERNELS + 5)

/* What the summary shows of one extent of one kind. */
struct sweep_ratios {
	size_t bytes;
	double vs_best, vs_memset, vs_memset2, cold_vs_best;
	/* [0] auto, [1] cold_call against the same fastest kernel, paired by
	 * round: median of the per-round ratios, with its ~95 % interval */
	double paired[2], paired_lo[2], paired_hi[2];
	const char *fastest;       /* the fastest kernel: the divisor of vs_best, paired */
	const char *pick;          /* cp_kernel_for, the extent alone */
	/* what auto and cold_call ran on this kind at this extent (sweep_ran) */
	char auto_ran[64], cold_ran[64];
};

struct sweep_kind {
	enum bench_kind kind;
	struct bench_contender c[SWEEP_NCONT];
	size_t n, i_auto, i_cold, i_memset, i_memset2;   /* i_memset2 == n: none */
	struct bench_table *wide;                        /* the medians */
	size_t nsizes;
	struct sweep_ratios q[BENCH_MAX_SIZES];
	FILE *samples;                                   /* --samples, or NULL */
};

struct sweep {
	unsigned targets;
	struct bench_contender c[SWEEP_NCONT];
	size_t n, i_memset2;
	struct sweep_kind kinds[BK_NKINDS];
	size_t nkinds;
	struct bench_pool pool;
	size_t pool_bytes;
	long pool_thp_kib;         /* AnonHugePages the pool brought, -1 unknown */
	char pool_why[160];        /* why the pool is smaller than the default */
};

/* sweep_out.c */
struct bench_table *sweep_data_table(const struct sweep *sw);
void sweep_kind_table(struct sweep_kind *k);
/* best: the fastest contender of the row, marked */
void sweep_wide_row(struct sweep_kind *k, const char *ext, const double *med, size_t best);
void sweep_data_row(struct bench_table *data, const struct sweep_kind *k, const char *ext,
		    size_t bytes, size_t i, double med, double min, double max, int best,
		    size_t rounds);
/* Print the tables, the summary and the notes, write CSV/JSON and the plots. */
int sweep_output(const struct bench_opts *opts, const struct sweep *sw, struct bench_table *data);

#endif
