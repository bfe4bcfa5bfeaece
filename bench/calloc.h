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
#define CALLOC_CMD_LOOP   'l'    /* mimalloc #1104: calloc + free of one size, nothing touched */
#define CALLOC_CMD_LOOPW  'L'    /* the same, every 64-byte line written before the free */
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

#define CALLOC_NALLOC      11    /* glibc, stock, patched, 6 variants, glibc 2, jemalloc */
#define CALLOC_MAX_ROUNDS  64
#define CALLOC_MAX_REPS    5     /* samples a round of one mode, the most (blocks up to 16 MiB) */
#define CALLOC_MAX_SAMPLES (CALLOC_MAX_ROUNDS * CALLOC_MAX_REPS)

/* The worker: WORKER_ENV = "SIZE QUICK KIND WS" (KIND: enum calloc_kind; WS: reused-cold's
 * working set); commands on fd 4, one GB/s line each on fd 3, until fd 4 closes. 0, or 1 on a
 * failure (or the wrong allocator preloaded), 2 on a bad spec. */
int bench_calloc_worker(const char *spec);

/* ---- the parent side (calloc_child.c) ---- */
#include <limits.h>
#include <stdio.h>
#include <sys/types.h>
enum calloc_kind { CK_GLIBC, CK_MIMALLOC, CK_JEMALLOC };

struct alloc {
	char name[64];
	int kind;                  /* enum calloc_kind: the worker checks what it got */
	int variant;               /* a patched-mimalloc variant: a ratio column of its own */
	char lib[4096];            /* LD_PRELOAD value; empty for glibc */
	char loader[PATH_MAX + 96];    /* the other glibc's ld.so, or empty */
	char libdir[PATH_MAX + 64];    /* its --library-path */
};

struct child {
	const struct alloc *a;
	pid_t pid;
	int cmd_fd;                /* the worker's fd 4 */
	FILE *results;             /* the worker's fd 3 */
};

/* Start one worker: this binary with `a`'s library preloaded, waiting for commands, with
 * extra_env ("NAME=VALUE", or NULL) in its environment. Every pipe end is close-on-exec, so
 * a worker holds only its own two (dup2 onto 3 and 4). */
int calloc_child_start(struct child *c, const struct alloc *a, size_t size, int quick,
		       size_t cold_ws, const char *extra_env);
/* One measurement by a live worker. */
int calloc_child_ask(struct child *c, char cmd, size_t size, double *gbs);
/* Close the command pipe (the worker exits) and reap it; 1 if it had failed. */
int calloc_child_finish(struct child *c);

struct bench_table;
struct bench_opts;
/* Cells of the ratios num[i] / den[i] of n pairs: median, and with `spread` the quartiles and
 * min-max. */
void calloc_ratio_cells(struct bench_table *t, const double *num, const double *den, size_t n,
			int spread);
/* The clear-then-write table over sizes[] (0 entries skipped), rounds each. */
struct bench_table *calloc_ctw_table(const struct bench_opts *opts, const size_t *sizes,
				     size_t nsizes, size_t rounds);
/* The calloc + free loop of mimalloc #1104 (calloc_loop.c) over sizes[] (0 entries skipped),
 * rounds each: a[0..na) are the allocators found, jemalloc added when it is installed. */
struct bench_table *calloc_loop_table(const struct bench_opts *opts, const struct alloc *a,
				      size_t na, const size_t *sizes, size_t nsizes,
				      size_t rounds);

#endif
