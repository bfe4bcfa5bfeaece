/* SPDX-License-Identifier: MIT */
/*
 * clearbench calloc's two sides (bench/calloc.c the parent, bench/calloc_worker.c the child
 * with the allocator preloaded) and the one-byte commands between them.
 */
#ifndef CLEARBENCH_CALLOC_H
#define CLEARBENCH_CALLOC_H

#define CALLOC_WORKER_ENV "CLEARBENCH_CALLOC_WORKER"
#define CALLOC_CMD_FRESH  'f'    /* new blocks, kept: sent before any other command */
#define CALLOC_CMD_REUSED 'r'    /* calloc + touch + free of one size, repeated */
#define CALLOC_CMD_WRITE  'w'    /* the same, the caller writing the whole block */
#define CALLOC_CMD_CHURN  'c'    /* mixed sizes, 64 live slots */
#define CALLOC_CMD_COLD   'k'    /* reused-cold: a ring of blocks the working set's size */
/* reused-cold: block sizes from 1 MiB to 32 MiB; the working set 4x the LLC, at most
 * CALLOC_COLD_WS_MAX (--quick: CALLOC_COLD_WS_QUICK) and an eighth of MemAvailable (three
 * workers hold one each) */
#define CALLOC_COLD_MIN    ((size_t)1 << 20)
#define CALLOC_COLD_MAX    ((size_t)32 << 20)
#define CALLOC_COLD_WS_MAX   ((size_t)2 << 30)
#define CALLOC_COLD_WS_QUICK ((size_t)256 << 20)
#define CALLOC_CHURN_MAX  ((size_t)16 << 20)
/* Fresh blocks up to this size are held until the reuse starts (several fresh samples a
 * round); larger ones are freed at once, one sample a round: a worker holding 1 GiB would make
 * the next worker's new memory slower to back on the VM host, which is not the allocator. */
#define CALLOC_FRESH_HOLD_MAX ((size_t)16 << 20)

#define CALLOC_MAX_ROUNDS  64
#define CALLOC_MAX_REPS    5     /* samples a round of one mode, the most (blocks up to 16 MiB) */
#define CALLOC_MAX_SAMPLES (CALLOC_MAX_ROUNDS * CALLOC_MAX_REPS)

/* The worker: WORKER_ENV = "SIZE QUICK MI WS" (WS: reused-cold's working set); commands on fd 4, one GB/s line each on fd 3,
 * until fd 4 closes. 0, or 1 on a failure, 2 on a bad spec. */
int bench_calloc_worker(const char *spec);

struct bench_table;
struct bench_opts;
/* Cells of the ratios num[i] / den[i] of n pairs: median, and with `spread` the quartiles and
 * min-max. */
void calloc_ratio_cells(struct bench_table *t, const double *num, const double *den, size_t n,
			int spread);
/* The clear-then-write table over sizes[] (0 entries skipped), rounds each. */
struct bench_table *calloc_ctw_table(const struct bench_opts *opts, const size_t *sizes,
				     size_t nsizes, size_t rounds);

#endif
