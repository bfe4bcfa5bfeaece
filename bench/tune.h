/* SPDX-License-Identifier: MIT */
/*
 * tune's parts: the hot fit and its verification (tune.c), the tables of the
 * fit (tune_tables.c), the cold and use targets with what the profile takes
 * from them, the uncached bands' input and the residency threshold
 * (tune_targets.c), the discard threshold (tune_discard.c), and the profile's
 * text and where it goes (tune_profile.c).
 */
#ifndef CLEARBENCH_TUNE_H
#define CLEARBENCH_TUNE_H

#include "derive.h"
#include "opts.h"
#include "table.h"
#include "targets.h"

#define TUNE_REMEASURE_FACTOR 3   /* rounds for an uncertain decision, times the first pass */

struct tune {
	struct derive_input in;   /* hot figures: the fit of band */
	const struct cp_kernel *k[DERIVE_MAX_KERNELS];
	size_t rounds[DERIVE_MAX_SIZES][DERIVE_MAX_KERNELS];
	int remeasured[DERIVE_MAX_SIZES][DERIVE_MAX_KERNELS];
	/* the defaults' uncached kernel per size (an index into k, -1: not measured) */
	int default_uncached[DERIVE_MAX_SIZES];
};

/* Median and its ~95 % distribution-free interval, GB/s, from per-pass seconds. */
struct derive_cell tune_cell_of(const double *seconds, size_t n, size_t bytes);

/* ---- tune_chunks.c ---- */
struct tune_chunks {
	size_t chunk_bytes;        /* 0: not timed (no usable counter, no memory) */
	unsigned long long hz;     /* the counter's rate */
	double hot_p90, cold_p10;  /* ticks */
	const char *kernel;
	size_t pool_bytes, llc_bytes;   /* not timed: a pool under 4x the LLC (not cold) */
};
/* Time the estimate's chunks on a just-cleared 4 MiB buffer and on the pool's
 * cold slots (the threshold's input: tune_cached_min_mbps). */
void tune_chunks_measure(const struct bench_opts *opts, struct bench_pool *pool,
			 struct tune_chunks *out);

/* ---- tune_targets.c ---- */
struct tune_targets {
	unsigned kinds;            /* 1 << BK_COLD, 1 << BK_USE: measured */
	size_t pool_bytes;
	char why[160];             /* why the pool is smaller than the default */
	struct derive_cell cell[BK_NKINDS][DERIVE_MAX_SIZES][DERIVE_MAX_KERNELS];
	struct tune_chunks chunks; /* with cold measured */
};
/* Every kernel of t at every size on the kinds of --target other than hot
 * (default: cold and use). 0, or 1 when the pool could not be had. */
int tune_targets_measure(const struct bench_opts *opts, const struct tune *t,
			 struct tune_targets *m);
/* The derivation's input for the uncached bands: t's sizes and kernels with the
 * use figures, the defaults' uncached kernels as its defaults. 0, or -1 when
 * use was not measured. */
int tune_uncached_input(const struct tune *t, const struct tune_targets *m,
			struct derive_input *out);
/* cached_min_mbps from the timed chunks (0: not timed, or no separation: no
 * line) and the comment lines saying where it came from. */
unsigned tune_cached_min_mbps(const struct tune_targets *m, char *comment, size_t len);
/* One table per kind measured into out (room for BK_NKINDS): every kernel, the
 * fastest, and cp_clear_pages' uncached kernel under the tuned profile and
 * under the defaults (tuned_uncached, default: per size, indices into t->k);
 * and the note saying how. Returns how many. */
size_t tune_targets_tables(const struct tune *t, const struct tune_targets *m,
			   const int *tuned_uncached, struct bench_table **out, char *note,
			   size_t notelen);

/* ---- tune_discard.c: discard_from ---- */
struct tune_discard {
	int measured;              /* the fit ran: r holds discard_from */
	char why[160];             /* why not */
	size_t unit, rounds;       /* bytes discarded as a whole (THP's 2 MiB) */
	struct derive_discard_input in;
	struct derive_discard_result r;
	int store_call[DERIVE_MAX_SIZES][DERIVE_NBACKINGS];    /* bench_zero_contenders index */
	int store_write[DERIVE_MAX_SIZES][DERIVE_NBACKINGS];
	double thp_share[DERIVE_NBACKINGS];   /* of each region when filled; -1: unknown */
};
/* Store clears against discard on THP and on 4 KiB pages, then the fit.
 * 0, or -1 with why saying what was missing (then nothing is fitted). */
int tune_discard_measure(const struct bench_opts *opts, struct tune_discard *d);
/* The profile's discard_from in pages: 0 not measured, DERIVE_DISCARD_NONE. */
size_t tune_discard_pages(const struct tune_discard *d);
/* The comment lines saying where it came from, appended to comment. */
void tune_discard_comment(const struct tune_discard *d, char *comment, size_t len);
/* The figures (measured only), and the notes saying how. */
struct bench_table *tune_discard_table(const struct tune_discard *d);
void tune_discard_note(const struct tune_discard *d);

/* ---- tune_tables.c ---- */
struct bench_table *tune_medians_table(const struct tune *t, const struct derive_result *r);
struct bench_table *tune_cells_table(const struct tune *t);
void tune_note_remeasured(const struct tune *t, const struct derive_result *r);
/* The cells to --csv NAME.csv, the other tables to NAME-<suffix>.csv. */
int tune_write_outputs(const struct bench_opts *opts, struct bench_table *const *tables,
		       size_t n);

/* ---- tune_profile.c ---- */
/* What the profile holds beyond the hot bands: version 3's lines. */
struct tune_v3 {
	const struct derive_result *uncached;   /* NULL: no uncached_band lines */
	unsigned cached_min_mbps;               /* 0: no cached_min_mbps line */
	size_t discard_from_pages;              /* 0: no line; DERIVE_DISCARD_NONE: none */
	char comment[1280];                     /* "# " lines saying where they came from */
};
char *tune_profile_text(const struct tune *t, const struct derive_result *r,
			const struct tune_v3 *v3, size_t *len);
/* The text as the library will read it: parsed by its own parser, for this
 * CPU, with the discard_from written (pages as tune_v3's: 0 not checked);
 * uncached[i]: the kernel cp_clear_pages would take at size i on memory not
 * in the caches under it (an index into t->k, -1: another). 0, or 1 after a
 * message (a bug here, never the user's). */
int tune_library_accepts(const struct tune *t, const char *text, size_t len,
			 size_t discard_from_pages, int *uncached);
/* Before measuring: --out a regular file where it exists, --install as root. 0 or 2. */
int tune_check_targets(const struct bench_opts *opts);
/* --out, --install or neither, after verify passed (or --force); the exit status. */
int tune_save(const struct bench_opts *opts, const char *text, size_t len, int passed);

#endif
