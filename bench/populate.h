/* SPDX-License-Identifier: MIT */
/* populate: memory made zero and resident. The scenario, its options and help
 * (populate.c); its tables and plots (populate_out.c); its contenders, names
 * and one timed, verified try (populate_try.c). */
#ifndef CLEARBENCH_POPULATE_H
#define CLEARBENCH_POPULATE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "opts.h"

/* The contenders: the first BP_NTHREADED run on each thread count of the list,
 * the library's calls once per cell (cp_zero_res_par picks its own threads). */
enum bench_pop_contender {
	BP_MEMSET,                 /* memset(0) of each thread's share */
	BP_STORE_PER_PAGE,         /* one volatile byte store of 0 per 4 KiB page */
	BP_POPULATE,               /* madvise(MADV_POPULATE_WRITE) of each share */
	BP_QEMU,                   /* QEMU's preallocation (populate_try.c says how) */
	BP_NTHREADED,
	BP_CP_ZERO = BP_NTHREADED, /* cp_zero(flags 0): today's store path */
	BP_CP_ZERO_RES,            /* cp_zero(CP_ZERO_RESIDENT) */
	BP_CP_ZERO_RES_PAR,        /* cp_zero(CP_ZERO_RESIDENT | CP_ZERO_PARALLEL) */
	BP_NCONTENDERS
};
extern const char *const bench_pop_names[BP_NCONTENDERS];
extern const char *const bench_state_names[BS_NSTATES];
extern const char *const bench_mapping_names[BM_NMAPPINGS];

/* Whether contender c leaves the range zero when it starts in state s: a store
 * per page, populate and QEMU's touch keep what written pages hold. */
int bench_pop_zeroes(enum bench_pop_contender c, enum bench_state s);

struct bench_pop_try {
	double seconds;            /* the contender alone, its threads' start and join included */
	int err;                   /* 0, or the negative errno it returned (the library, madvise) */
	unsigned threads;          /* threads it ran on (qemu: by QEMU's rule; 0: the library's) */
	char failure[160];         /* what verification found wrong; "" when nothing */
};
/* One try: map `bytes` fresh (2 MiB aligned; 4k: MADV_NOHUGEPAGE, thp:
 * MADV_HUGEPAGE), bring it to state s outside the timing, time c on `threads`
 * threads, verify outside the timing (every page resident; where c zeroes
 * in s, every page's first and last 8 bytes and one random word read 0),
 * unmap. A contender that returns an error is not verified. */
void bench_pop_try(enum bench_pop_contender c, unsigned threads, size_t bytes,
		   enum bench_state s, enum bench_mapping m, uint64_t *rng,
		   struct bench_pop_try *out);
/* The threads QEMU's preallocation uses for `bytes` with at most `threads`. */
unsigned bench_pop_qemu_threads(unsigned threads, size_t bytes);

/* One cell's results: a state, a mapping, an extent, each contender on each
 * thread count (populate.c measures, populate_out.c prints and plots). */
#define BENCH_POP_MAX_ENTRIES (BP_NTHREADED * BENCH_MAX_THREAD_COUNTS + \
			       BP_NCONTENDERS - BP_NTHREADED)
struct bench_pop_entry {
	enum bench_pop_contender c;
	unsigned threads;          /* the count asked (1 for cp_zero and cp_zero_res, 0: its own) */
	double gbs;                /* median GB/s of the tries; NAN when none ran */
	int err;                   /* the negative errno it returned: -EINVAL = unavailable */
	int failed;                /* a try failed verification, or returned another error */
};
struct bench_pop_cell {
	enum bench_state s;
	enum bench_mapping m;
	size_t bytes;
	size_t n;
	struct bench_pop_entry e[BENCH_POP_MAX_ENTRIES];
};
/* The tables (one per state and mapping, the data, the summary), notes, CSV,
 * JSON and, with --plot, one plot per state and mapping; 0 or 1. */
int bench_pop_output(const struct bench_opts *opts, const struct bench_pop_cell *cells,
		     size_t ncells, size_t rounds);

/* A --target (mappings 0: fresh, half, full) or --mapping (4k, thp) list into
 * a mask of 1 << BS_* or 1 << BM_*; -1 with the unknown item in bad. */
int bench_populate_parse(const char *list, int mappings, unsigned *mask, char *bad,
			 size_t badlen);
/* clearbench populate --help */
void bench_populate_usage(FILE *f);

#endif
