/* SPDX-License-Identifier: MIT */
/*
 * The band derivation behind `clearbench tune`: from a table of measured
 * speeds (extent x kernel) to the extent bands of a profile. Pure: no timing,
 * no library state, so recorded tables can be fed to it in unit tests.
 */
#ifndef CLEARBENCH_DERIVE_H
#define CLEARBENCH_DERIVE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define DERIVE_MAX_SIZES   64
#define DERIVE_MAX_KERNELS 32
#define DERIVE_MAX_BANDS   8      /* what profile format 2 allows */
#define DERIVE_PAGE        4096

/* One measured cell, GB/s: the median over rounds and an interval around it
 * (tune passes the ~95 % order-statistic interval of the median, which narrows
 * with more rounds; lo == hi == median means no spread is known). */
struct derive_cell {
	double median, lo, hi;
};

struct derive_input {
	size_t nsizes, nkernels;
	size_t pages[DERIVE_MAX_SIZES];               /* measured extents, ascending */
	const char *names[DERIVE_MAX_KERNELS];
	struct derive_cell cell[DERIVE_MAX_SIZES][DERIVE_MAX_KERNELS];   /* median > 0 */
	int default_kernel[DERIVE_MAX_SIZES];         /* the defaults' pick per size, -1: unmeasured */
	size_t max_bands;                             /* 1 .. DERIVE_MAX_BANDS */
	/* Score lost per band beyond the defaults' band count, in measured extents
	 * at full speed: 0.05 = one extent 5 % slower. */
	double band_cost;
	/* Intervals narrower than median * (1 +- noise_floor) are widened to it:
	 * differences below it do not repeat from run to run. */
	double noise_floor;
	/* Per size, relative, 0: none: how far one kernel measured twice in the
	 * same rounds disagreed with itself there; it raises the floor at that
	 * size (drift on a shared host that the interval of one cell misses). */
	double size_noise[DERIVE_MAX_SIZES];
};

struct derive_band {
	size_t from_pages;
	int kernel;
};

struct derive_result {
	size_t nbands;
	struct derive_band band[DERIVE_MAX_BANDS];
	int pick[DERIVE_MAX_SIZES];          /* the bands' kernel at each measured size */
	int best[DERIVE_MAX_SIZES];          /* the highest median there */
	double ratio[DERIVE_MAX_SIZES];      /* pick's median / best's median */
	/* Uncertain decisions: at size i the pick is level (intervals overlap)
	 * with the kernels in remeasure[i] (bit k: kernel k, the pick included):
	 * the defaults' kernel, the pick at a neighbouring size, or any with a
	 * higher median. 0: settled. */
	uint32_t remeasure[DERIVE_MAX_SIZES];
	size_t nuncertain;
	size_t default_bands;                /* the defaults' band count over the sizes */
};

/* The band list that maximises the sum over measured sizes of the pick's
 * speed relative to the best there (1 for the defaults' kernel where it is
 * level with the best) minus band_cost per band beyond the defaults' count;
 * ties go to the defaults' kernel. 0, or -1 for input it cannot use (then
 * *out is untouched). */
int derive_bands(const struct derive_input *in, struct derive_result *out);

/* ---- discard_from: from what extent cp_zero(CP_ZERO_MAY_DISCARD) hands
 * private anonymous memory back (madvise) rather than storing zeroes ----
 *
 * The criterion (docs/profiles-and-tuning.md): discard_from is the smallest
 * measured extent E such that at E and at every larger measured extent
 *  - the call alone: discarding is faster (median) than the fastest store
 *    clear, on every backing measured (THP and 4 KiB pages: the library
 *    cannot tell them apart, and callers have both), and
 *  - the call, then one write per 64-byte line (the pages fault back in):
 *    discarding takes at most write_factor (1.15) times the fastest store
 *    clear then the same writes, on the backings in write_backings.
 * None such (the largest measured extent fails): never discard. */
enum { DERIVE_THP, DERIVE_SMALL_PAGES, DERIVE_NBACKINGS };
#define DERIVE_DISCARD_NONE ((size_t)-1)

struct derive_discard_cell {          /* one extent on one backing: median seconds */
	double store_call;             /* the fastest store clear, the call alone */
	double store_write;            /* the fastest store clear, then every line written */
	double discard_call;           /* every whole unit discarded, the call alone */
	double discard_write;          /* the same, then every line written */
};

struct derive_discard_input {
	size_t nsizes;
	size_t pages[DERIVE_MAX_SIZES];            /* measured extents, ascending */
	unsigned backings;                         /* 1 << DERIVE_*: measured (not 0) */
	unsigned write_backings;                   /* where the write rule applies (of backings) */
	double write_factor;                       /* >= 1: 1.15 */
	struct derive_discard_cell cell[DERIVE_MAX_SIZES][DERIVE_NBACKINGS];   /* all > 0 */
};

struct derive_discard_result {
	size_t from_pages;                         /* a measured extent, or DERIVE_DISCARD_NONE */
	int pass[DERIVE_MAX_SIZES];                /* both rules hold at this extent */
	double call_ratio[DERIVE_MAX_SIZES][DERIVE_NBACKINGS];    /* discard / store, call */
	double write_ratio[DERIVE_MAX_SIZES][DERIVE_NBACKINGS];   /* discard / store, written */
	/* the largest failing extent (an index; nsizes: none) and why: 1 the
	 * call alone, 2 the write, 3 both, on backing fail_backing */
	size_t fail_at;
	int fail_rule, fail_backing;
};

/* 0, or -1 for input it cannot use (then *out is untouched). */
int derive_discard_from(const struct derive_discard_input *in, struct derive_discard_result *out);

/* "0", "8k", "64M", "1G": the largest of k/M/G (powers of 1024) that divides. */
const char *derive_size_str(size_t bytes, char *buf, size_t len);

/* Profile format 3 (common/README.md): header comment, version, arch, cpu,
 * the bands, the uncached bands, the residency threshold and discard_from
 * when known (with comment lines saying where they came from), the parallel
 * split when known, end. */
struct derive_profile_id {
	const char *date;                    /* "2026-12-01" */
	const char *arch;                    /* "x86_64" or "arm64" */
	const char *cpu;                     /* the cpu line's value */
	const char *brand;                   /* for the header comment */
	size_t parallel_min_share;           /* bytes; 0: not measured, line left out */
	int parallel_none;                   /* "parallel none" (wins over the share) */
	/* version 3's lines: NULL / 0 leave them out */
	const struct derive_result *uncached;   /* uncached_band lines, kernels as in's */
	unsigned cached_min_mbps;
	const char *comment;                 /* whole "# ..." lines, after the cpu line */
	/* pages; 0: not measured, line left out; DERIVE_DISCARD_NONE: "none" */
	size_t discard_from_pages;
};
void derive_write_profile(FILE *f, const struct derive_profile_id *id,
			  const struct derive_input *in, const struct derive_result *r);

/* The residency threshold (cached_min_mbps) from timed chunks of chunk_bytes
 * at a counter of hz: the geometric mean of the rate of a cached target's
 * slow chunks (hot_ticks: the p90 of a just-cleared LLC-resident buffer) and
 * of a cold one's fast chunks (cold_ticks: the p10 of cold slots), so either
 * side's tail is judged by the nearer. 0 (tune writes no line: the
 * defaults' threshold stands) when the two are not at least
 * DERIVE_CHUNK_MIN_SEPARATION apart, or an input is 0. */
#define DERIVE_CHUNK_MIN_SEPARATION 1.5
unsigned derive_chunk_threshold(double hot_ticks, double cold_ticks, double hz,
				size_t chunk_bytes);

#endif
