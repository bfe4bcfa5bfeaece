/* SPDX-License-Identifier: MIT */
/*
 * clearbench calloc: calloc of 4 KiB .. 1 GiB blocks (fresh, reused, reused then written by
 * the caller) and a mixed-size churn, through glibc malloc, stock mimalloc and mimalloc
 * patched to zero through clearpages (consumers/mimalloc). Each allocator runs in its own
 * child process (this binary again, the allocator LD_PRELOADed): that is how an allocator is
 * deployed, it gives every allocator a fresh address space (so "fresh" means fresh), and
 * mimalloc's shared library uses initial-exec TLS, made to be loaded at start, not dlopened.
 *
 * Paired in time: per round one child per allocator is started and all of them stay alive;
 * the parent hands out one measurement at a time, in a shuffled order, so the samples of the
 * allocators compared are taken back to back. On a shared VM whose speed swings by 1.5x from
 * one second to the next, a ratio of two adjacent samples is what stays put; each ratio
 * reported is the median of such per-pair ratios.
 *
 * Three tables: the modes above (here), clear then write with no allocator (calloc_ctw.c)
 * and the calloc + free loop of mimalloc #1104 with blocks reused from an arena, where the
 * fresh-zero patch alone and jemalloc join (calloc_loop.c; --loop: that table alone).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "calloc.h"
#include "contenders.h"
#include "introspect.h"
#include "map.h"
#include "opts.h"
#include "plot.h"
#include "scenarios.h"
#include "stats.h"
#include "table.h"

#define LIBS_ENV     "CLEARBENCH_MIMALLOC"
#define NMODES       4             /* fresh, reused, written, cold; the churn row uses mode 0 */
#define M_COLD       3

static const char *const mode_names[NMODES] = { "fresh", "reused", "reused+write",
						"reused-cold" };
static const char mode_cmds[NMODES] = { CALLOC_CMD_FRESH, CALLOC_CMD_REUSED, CALLOC_CMD_WRITE,
					CALLOC_CMD_COLD };

/* a[] holds glibc, stock and patched at these indices, then what is there of the rest */
enum { A_GLIBC, A_STOCK, A_PATCHED, A_OPTIONAL };

/* The second glibc baseline (Debian 13's, make bench-libc) as a[n] when it is there and is
 * not this process's glibc: the sweep's memset helper under it says which it is. */
static size_t find_libc2(const struct bench_opts *opts, struct alloc *a, size_t n)
{
	struct bench_contender other;
	memset(&a[n], 0, sizeof(a[n]));
	int there = bench_memset_other_libc(opts, &other);   /* named "memset_<version>" */
	bench_memset_other_libc_stop();
	if (!there || !bench_libc2_loader(opts, a[n].loader, sizeof(a[n].loader), a[n].libdir,
					  sizeof(a[n].libdir)))
		return n;
	snprintf(a[n].name, sizeof(a[n].name), "glibc_%.16s", other.name + strlen("memset_"));
	return n + 1;
}

/* CLEARBENCH_MIMALLOC=DIR, else build/<arch>/mimalloc: DIR/{stock,patched}/libmimalloc.so,
 * and DIR/patched-{cponly,hot,page}/ when built (build.sh, CP_MIMALLOC_VARIANTS); then the
 * second glibc. Count of allocators, 0 if a required one is missing. */
static size_t find_allocs(const struct bench_opts *opts, struct alloc *a)
{
#if defined(__aarch64__)
	const char *dir = "build/arm64/mimalloc";
#else
	const char *dir = "build/x86_64/mimalloc";
#endif
	/* the optional variants: build.sh with CP_MIMALLOC_VARIANTS */
	static const char *const names[] = { "mimalloc", "mimalloc+cp", "+fresh_only", "+cp_only",
					     "+cp_hot", "+cp_page", "+cp_nodisc", "+cp_always" };
	static const char *const subdirs[] = { "stock", "patched", "patched-fresh", "patched-cponly",
					       "patched-hot", "patched-page", "patched-nodiscard",
					       "patched-always" };
	const char *env = getenv(LIBS_ENV);
	char path[4096];
	size_t n = 1;
	dir = env && *env ? env : dir;
	memset(&a[0], 0, sizeof(a[0]));
	snprintf(a[0].name, sizeof(a[0].name), "glibc");
	for (size_t i = 0; i < sizeof(subdirs) / sizeof(subdirs[0]); i++) {
		memset(&a[n], 0, sizeof(a[n]));
		snprintf(path, sizeof(path), "%s/%s/libmimalloc.so", dir, subdirs[i]);
		if (!realpath(path, a[n].lib)) {
			if (i < 2) {
				fprintf(stderr, "clearbench: calloc: no %s (%s" LIBS_ENV "=DIR: "
					"clearbench(1))\n", path, bench_hint("build it with `make "
					"consumer-mimalloc`, or set ", "set "));
				return 0;
			}
			continue;
		}
		snprintf(a[n].name, sizeof(a[n].name), "%s", names[i]);
		a[n].kind = CK_MIMALLOC;
		a[n++].variant = i >= 2;
	}
	return find_libc2(opts, a, n);
}

/* Measurements per round of each mode: fewer where one takes seconds; fresh ones as many up
 * to CALLOC_FRESH_HOLD_MAX (the worker holds them), one a round beyond. */
static size_t reps_of(size_t size, int quick)
{
	return quick ? 2 : size > ((size_t)16 << 20) ? 3 : CALLOC_MAX_REPS;
}

static size_t fresh_reps_of(size_t size, int quick)
{
	return size > CALLOC_FRESH_HOLD_MAX ? 1 : reps_of(size, quick);
}

/* Samples per allocator of each mode, fresh_reps_of and reps_of a round. */
struct size_samples {
	double g[CALLOC_NALLOC][NMODES][CALLOC_MAX_SAMPLES];
	size_t n[NMODES];
};

static int has_cold(size_t size)
{
	return size >= CALLOC_COLD_MIN && size <= CALLOC_COLD_MAX;
}

/* reused-cold's working set: 4x the LLC (several times it, so a recycled block is not
 * cached), at most CALLOC_COLD_WS_MAX (--quick: _QUICK), and an eighth of MemAvailable:
 * the three workers asked hold one each, all alive at once. */
static size_t cold_ws_of(int quick, size_t llc)
{
	size_t ws = llc ? 4 * llc : CALLOC_COLD_WS_MAX, avail = bench_mem_available() / 8;
	ws = ws > CALLOC_COLD_WS_MAX ? CALLOC_COLD_WS_MAX : ws;
	ws = quick && ws > CALLOC_COLD_WS_QUICK ? CALLOC_COLD_WS_QUICK : ws;
	return avail && ws > avail ? avail : ws;
}

/* One round of one size: a live worker per allocator, the measurements handed out one at a
 * time, shuffled per step, appended to s. */
static int measure_round(const struct alloc *a, size_t na, size_t size, int quick,
			 size_t cold_ws, struct size_samples *s, uint64_t *rng)
{
	struct child c[CALLOC_NALLOC];
	size_t order[CALLOC_NALLOC], cold_order[] = { 0, 1, 2 }, started = 0;
	int rc = 0;
	for (size_t i = 0; i < na; i++)
		order[i] = i;
	for (; started < na && !rc; started++)
		rc = calloc_child_start(&c[started], &a[started], size, quick, cold_ws, NULL);
	if (rc)
		started--;
	/* fresh first (nothing freed yet), then reused and reused+write in turn; the churn
	 * repeated; then reused-cold, for glibc, stock and patched only (each fills a ring the
	 * working set's size first) */
	size_t reps = reps_of(size, quick), nfresh = size ? fresh_reps_of(size, quick) : 0;
	size_t nwarm = nfresh + (size ? 2 * reps : reps), ncold = has_cold(size) ? reps : 0;
	for (size_t step = 0; step < nwarm + ncold && !rc; step++) {
		size_t m = step >= nwarm ? M_COLD : step < nfresh || !size ? 0 :
			   1 + (step - nfresh) % 2;
		size_t nask = m == M_COLD ? A_PATCHED + 1 : na, *ord = m == M_COLD ? cold_order : order;
		char cmd = size ? mode_cmds[m] : CALLOC_CMD_CHURN;
		bench_shuffle(ord, nask, rng);
		for (size_t i = 0; i < nask && !rc; i++)
			rc = calloc_child_ask(&c[ord[i]], cmd, size, &s->g[ord[i]][m][s->n[m]]);
		s->n[m]++;
	}
	for (size_t i = 0; i < started; i++)
		rc |= calloc_child_finish(&c[i]);
	return rc;
}

/* The first table: every mode of every size, and the churn row (size 0). NULL on a failure. */
static struct bench_table *modes_table(const struct bench_opts *opts, const struct alloc *a,
				       size_t na, const size_t *sizes, size_t nsizes,
				       size_t rounds, size_t cold_ws)
{
	/* columns: the glibc baselines, stock, patched, the variants */
	const char *cols[32] = { "block", "calloc" };
	size_t nc = 2, disp[CALLOC_NALLOC], nd = 0;
	disp[nd++] = A_GLIBC;
	if (!a[na - 1].variant && na - 1 > A_PATCHED)
		disp[nd++] = na - 1;
	for (size_t i = A_STOCK; i < na; i++)
		if (i <= A_PATCHED || a[i].variant)
			disp[nd++] = i;
	for (size_t i = 0; i < nd; i++)
		cols[nc++] = a[disp[i]].name;
	cols[nc++] = "cp/stock";
	cols[nc++] = "cp/stock q1-q3";
	cols[nc++] = "cp/stock min-max";
	char extra_cols[CALLOC_NALLOC][32];
	for (size_t i = A_OPTIONAL; i < na; i++) {
		if (!a[i].variant)
			continue;
		snprintf(extra_cols[i], sizeof(extra_cols[i]), "%s/stock", a[i].name + 1);
		cols[nc++] = extra_cols[i];
	}
	struct bench_table *t = bench_table_new("calloc: GB/s, median over rounds (separate "
						"processes, LD_PRELOAD)", BT_TEXT | BT_DATA, nc, cols);
	uint64_t rng = 0x2545f4914f6cdd1dull;
	static struct size_samples s;
	int rc = 0;
	for (size_t si = 0; si < nsizes && !rc; si++) {
		char blk[16];
		if (sizes[si])
			bench_size_str(sizes[si], blk, sizeof(blk));
		else
			snprintf(blk, sizeof(blk), "churn");
		bench_progress("calloc: %s (%zu/%zu)", blk, si + 1, nsizes);
		memset(s.n, 0, sizeof(s.n));
		for (size_t r = 0; r < rounds && !rc; r++)
			rc = measure_round(a, na, sizes[si], opts->quick, cold_ws, &s, &rng);
		for (size_t m = 0; m < (sizes[si] ? NMODES : 1) && !rc; m++) {
			if (m == M_COLD && !has_cold(sizes[si]))
				continue;
			bench_table_row(t);
			bench_cell_str(t, blk);
			bench_cell_str(t, sizes[si] ? mode_names[m] : "4K-16M mix");
			for (size_t i = 0; i < nd; i++)
				if (m == M_COLD && disp[i] > A_PATCHED)
					bench_cell_na(t);   /* reused-cold asks these three only */
				else
					bench_cell_num(t, bench_median(s.g[disp[i]][m], s.n[m]), "%.2f");
			calloc_ratio_cells(t, s.g[A_PATCHED][m], s.g[A_STOCK][m], s.n[m], 1);
			for (size_t i = A_OPTIONAL; i < na; i++)
				if (a[i].variant && m == M_COLD)
					bench_cell_na(t);
				else if (a[i].variant)
					calloc_ratio_cells(t, s.g[i][m], s.g[A_STOCK][m], s.n[m], 0);
		}
	}
	if (rc) {
		bench_table_free(t);
		return NULL;
	}
	return t;
}

static void modes_notes(const struct bench_opts *opts, size_t rounds, size_t cold_ws,
			const struct bench_host *host)
{
	bench_note("GB/s = block bytes / CPU time (user + sys, page faults included) of calloc + "
		   "first write of every page; reused+write: the caller then writes the whole block. "
		   "fresh = new blocks, kept while timed; %zu samples a round of each mode up to 16M, "
		   "%zu beyond (fresh: 1). %zu rounds, each a live worker per allocator, their "
		   "samples taken back to back in a shuffled order; cp/stock = median of the ratios of "
		   "those pairs, q1-q3 their quartiles.", reps_of(1, opts->quick),
		   reps_of((size_t)1 << 30, opts->quick), rounds);
	char llc[16];
	bench_note("reused-cold (blocks of 1M to 32M): each calloc frees the oldest block of a "
		   "ring of %zu MiB (%s; the LLC is %s by CPUID) and callocs one of the same size, "
		   "which the allocator serves from memory last written that ring ago (not "
		   "cached where the ring is several times the LLC); the caller then writes one word per 64-byte line, timed with the calloc "
		   "(the free is not). glibc, stock and patched mimalloc only; the ring is filled "
		   "once per worker, untimed.", cold_ws >> 20,
		   cold_ws >= 4 * host->llc_bytes ? "4x the LLC" : opts->quick ?
		   "--quick: smaller than 4x the LLC, part of it may be cached" :
		   "capped by 2 GiB and free memory: under 4x the LLC, part of it may be cached",
		   bench_size_str(host->llc_bytes, llc, sizeof(llc)));
	bench_note("clear then write: cp_zero with CP_ZERO_HOT (hot), CP_ZERO_COLD (cold), no "
		   "flags (auto), or memset, then "
		   "memset(0x5a) over the block, in one mapping faulted in beforehand.");
}

int bench_calloc(const struct bench_opts *opts)
{
	const char *spec = getenv(CALLOC_WORKER_ENV);
	if (spec && *spec)
		return bench_calloc_worker(spec);
	if (bench_no_plot(opts, "calloc"))
		return 2;
	struct alloc a[CALLOC_NALLOC];
	size_t na = find_allocs(opts, a);
	if (!na)
		return 2;
	static const size_t dflt[] = { 4096, 16384, 65536, 262144, 1 << 20, 4 << 20, 16 << 20,
				       64 << 20, 256 << 20, 1 << 30 };
	static const size_t loop_dflt[] = { 256 << 20, 1 << 30 };
	size_t sizes[BENCH_MAX_SIZES + 1], nsizes = opts->nsizes;
	if (nsizes)
		memcpy(sizes, opts->sizes, nsizes * sizeof(*sizes));
	else
		memcpy(sizes, dflt, sizeof(dflt)), nsizes = sizeof(dflt) / sizeof(dflt[0]);
	size_t rounds = opts->rounds ? opts->rounds : opts->quick ? 3 : 5;
	rounds = rounds > CALLOC_MAX_ROUNDS ? CALLOC_MAX_ROUNDS : rounds;
	struct bench_host host;
	bench_host_get(&host);
	size_t cold_ws = cold_ws_of(opts->quick, host.llc_bytes);
	signal(SIGPIPE, SIG_IGN);   /* a worker that died is reported, not fatal */

	/* --loop: the loop's table alone; else all three, the loop at --sizes or its own two */
	struct bench_table *tables[3] = { NULL, NULL, NULL };
	size_t nt = 0;
	if (!opts->loop_only) {
		sizes[nsizes] = 0;   /* the churn row */
		if (!(tables[nt++] = modes_table(opts, a, na, sizes, nsizes + 1, rounds, cold_ws)) ||
		    !(tables[nt++] = calloc_ctw_table(opts, sizes, nsizes, rounds)))
			goto out;
	}
	if (!opts->nsizes)   /* --quick: 256M alone */
		memcpy(sizes, loop_dflt, sizeof(loop_dflt)), nsizes = opts->quick ? 1 : 2;
	if (!(tables[nt++] = calloc_loop_table(opts, a, na, sizes, nsizes, rounds)))
		goto out;
	for (size_t i = 0; i < nt; i++) {
		bench_table_print(tables[i]);
		printf("\n");
	}
	if (!opts->loop_only)
		modes_notes(opts, rounds, cold_ws, &host);
	bench_note("loop (mimalloc #1104): GB/s = block bytes / CPU time of calloc, then nothing "
		   "or one write per 64-byte line, then free, after two untimed passes; each mode in "
		   "workers of its own, every one with MIMALLOC_RESERVE_OS_MEMORY = twice the block "
		   "+ 256 MiB, so mimalloc reuses a huge block from its arena (the worker checks it "
		   "gets the same block back). cp/fresh_only: mimalloc+cp against fresh-zero.patch "
		   "alone, median of the pairs' ratios; %zu rounds.", rounds);
	int rc = bench_write_outputs(opts, "calloc", tables, nt);
	for (size_t i = 0; i < nt; i++)
		bench_table_free(tables[i]);
	return rc;
out:
	for (size_t i = 0; i < nt; i++)
		if (tables[i])
			bench_table_free(tables[i]);
	return 1;
}
