/* SPDX-License-Identifier: MIT */
/*
 * clearbench calloc, the worker: runs in a child with the allocator under test LD_PRELOADed
 * (bench/calloc.c starts it) and times what it is told, one measurement per command byte.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>
#include "calloc.h"
#include "contenders.h"
#include "stats.h"
#include "targets.h"

static void touch_pages(unsigned char *p, size_t bytes)
{
	for (size_t i = 0; i < bytes; i += CP_PAGE_SIZE)
		((volatile unsigned char *)p)[i] = 1;
}

/* calloc + first touch of every page, as a program would use the block (write_all: the
 * caller then fills it). NULL when calloc fails. */
static void *calloc_use(size_t bytes, int write_all)
{
	unsigned char *p = calloc(1, bytes);
	if (p && write_all)
		bench_memset_zero(p, bytes);
	else if (p)
		touch_pages(p, bytes);
	return p;
}

/* Bytes one measurement handles: enough to outlast the clock's cost, short enough that the
 * allocators' samples of a pair see the same machine. */
static size_t budget_of(int quick)
{
	return quick ? (8u << 20) : (64u << 20);
}

/* The fresh blocks measured so far: held, so that every fresh measurement gets memory the
 * allocator never had (a freed block would come back), released before the first reuse. */
static void **held;
static size_t nheld;

static void release_fresh(void)
{
	for (size_t i = 0; i < nheld; i++)
		free(held[i]);
	free(held);
	held = NULL;
	nheld = 0;
}

/* GB/s of fresh blocks, calloc'ed and kept (up to CALLOC_FRESH_HOLD_MAX): mimalloc's
 * segments and glibc's heap or mmap are new. Sent before any other command. -1 on failure. */
static double work_fresh(size_t bytes, int quick)
{
	size_t nfresh = budget_of(quick) / bytes ? budget_of(quick) / bytes : 1;
	void **more = realloc(held, (nheld + nfresh) * sizeof(*held));
	if (!more)
		return -1;
	held = more;
	double t0 = bench_thread_cpu_now();
	for (size_t i = 0; i < nfresh; i++)
		if (!(held[nheld++] = calloc_use(bytes, 0)))
			return -1;
	double gbs = bench_gbs(bytes * nfresh, bench_thread_cpu_now() - t0);
	if (bytes > CALLOC_FRESH_HOLD_MAX)
		release_fresh();
	return gbs;
}

/* GB/s of calloc_use + free of the same size, after one untimed pass. CLOCK_THREAD_CPUTIME_ID
 * is a system call: blocks under 1 MiB are timed as one batch, free included; larger ones
 * one pass at a time, free (for mimalloc past 16 MiB an munmap) left out. Past 16 MiB
 * mimalloc gives a freed block back to the OS, so its "reused" block is fresh too. */
static double work_reused(size_t bytes, int quick, int write_all)
{
	size_t n = budget_of(quick) / bytes < 2 ? 2 : budget_of(quick) / bytes;
	double t = 0, t0 = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i == 1 || (i && bytes >= (1u << 20)))
			t0 = bench_thread_cpu_now();
		void *p = calloc_use(bytes, write_all);
		if (!p)
			return -1;
		if (i && bytes >= (1u << 20))
			t += bench_thread_cpu_now() - t0;
		free(p);
	}
	return bench_gbs(bytes * n, bytes >= (1u << 20) ? t : bench_thread_cpu_now() - t0);
}

/* Mixed sizes: 64 live slots, each step frees one and callocs a log-uniform 4 KiB..16 MiB
 * block (same seed for every allocator and every repeat), touched; GB/s of calloc'ed bytes. */
static double work_churn(int quick)
{
	enum { SLOTS = 64 };
	void *slot[SLOTS] = { 0 };
	uint64_t rng = 0x9e3779b97f4a7c15ull;
	size_t total = 0, target = quick ? (64u << 20) : (1u << 30);
	double t0 = bench_thread_cpu_now();
	while (total < target) {
		uint64_t r = bench_random(&rng);
		size_t j = r % SLOTS, shift = 12 + (r >> 8) % 13;
		size_t bytes = ((size_t)1 << shift) + ((r >> 16) % ((size_t)1 << shift));
		bytes = bytes > CALLOC_CHURN_MAX ? CALLOC_CHURN_MAX : bytes;
		free(slot[j]);
		if (!(slot[j] = calloc(1, bytes)))
			return -1;
		touch_pages(slot[j], bytes);
		total += bytes;
	}
	double t = bench_thread_cpu_now() - t0;
	for (size_t j = 0; j < SLOTS; j++)
		free(slot[j]);
	return bench_gbs(total, t);
}

/* reused-cold: a ring of working-set / size live blocks, oldest first. Each step frees the
 * oldest and callocs one of the same size, which the allocator serves from what it just got
 * back: memory last written a whole working set (several times the LLC) ago, so not cached.
 * The caller then writes one word per 64-byte line, as a program filling its block. The
 * ring stays between commands: filled once (untimed) on the first. */
static void **ring;
static size_t ring_n, ring_next;

static double work_reused_cold(size_t bytes, size_t ws, int quick)
{
	if (!ring) {
		ring_n = ws / bytes < 2 ? 2 : ws / bytes;
		if (!(ring = calloc(ring_n, sizeof(*ring))))
			return -1;
		for (size_t i = 0; i < ring_n; i++) {
			if (!(ring[i] = calloc(1, bytes)))
				return -1;
			bench_write_lines(ring[i], bytes);
		}
	}
	size_t n = budget_of(quick) / bytes < 2 ? 2 : budget_of(quick) / bytes;
	double t = 0;
	for (size_t i = 0; i < n; i++) {
		free(ring[ring_next]);   /* outside the timing, as reused's free past 1 MiB */
		double t0 = bench_thread_cpu_now();
		void *p = calloc(1, bytes);
		if (!p)
			return -1;
		bench_write_lines(p, bytes);
		t += bench_thread_cpu_now() - t0;
		ring[ring_next] = p;
		ring_next = (ring_next + 1) % ring_n;
	}
	return bench_gbs(bytes * n, t);
}

/* mimalloc #1104's loop: calloc + free of one size (write_all: every 64-byte line written
 * in between), all of it timed. Two untimed passes first, once per worker: the first gets
 * new memory, the second the first's back, so every timed pass is a steady-state reuse. A
 * huge mimalloc block must come back where it was (the arena hands it back): otherwise the
 * row would time new memory. */
#define MI_LARGE_OBJ_MAX ((size_t)16 << 20)   /* mimalloc 2.0.9's largest block not huge */
static void *loop_last;
static int loop_warm;

static double work_loop(size_t bytes, int quick, int write_all, int kind)
{
	size_t n = budget_of(quick) / bytes < 2 ? 2 : budget_of(quick) / bytes;
	int check = kind == CK_MIMALLOC && bytes > MI_LARGE_OBJ_MAX;   /* huge: from the arena */
	double t0 = 0;
	for (size_t i = 0; i < n + 2; i++) {
		if (i < 2 && loop_warm)
			continue;
		if (i == 2)
			t0 = bench_thread_cpu_now();
		void *p = calloc(1, bytes);
		if (!p)
			return -1;
		if (check && loop_warm && p != loop_last) {
			fprintf(stderr, "calloc worker: mimalloc did not hand the freed %zu bytes back "
				"(arena too small?)\n", bytes);
			return -1;
		}
		if (write_all)
			bench_write_lines(p, bytes);
		loop_last = p;
		loop_warm |= i == 1;
		free(p);
	}
	return bench_gbs(bytes * n, bench_thread_cpu_now() - t0);
}

/* KIND says which allocator must be the malloc here (a wrong LD_PRELOAD would measure glibc
 * twice): mimalloc has mi_version, jemalloc mallctl, glibc neither. */
int bench_calloc_worker(const char *spec)
{
	unsigned long long size, ws;
	int quick, kind;
	if (sscanf(spec, "%llu %d %d %llu", &size, &quick, &kind, &ws) != 4)
		return 2;
	int mi = dlsym(RTLD_DEFAULT, "mi_version") != NULL;
	int je = dlsym(RTLD_DEFAULT, "mallctl") != NULL;
	if (mi != (kind == CK_MIMALLOC) || je != (kind == CK_JEMALLOC)) {
		fprintf(stderr, "calloc worker: want %s, got %s\n", kind == CK_MIMALLOC ? "mimalloc" :
			kind == CK_JEMALLOC ? "jemalloc" : "glibc", mi ? "mimalloc" : je ? "jemalloc" :
			"glibc");
		return 1;
	}
	/* one-time start-up (the allocator's, clearpages' dispatch) stays out of the figures:
	 * a block of a size class no default size uses */
	free(calloc(1, 5000));
	char cmd;
	while (read(4, &cmd, 1) == 1) {
		if (cmd != CALLOC_CMD_FRESH && held)
			release_fresh();
		double gbs = cmd == CALLOC_CMD_FRESH ? work_fresh(size, quick)
			   : cmd == CALLOC_CMD_REUSED || cmd == CALLOC_CMD_WRITE
			   ? work_reused(size, quick, cmd == CALLOC_CMD_WRITE)
			   : cmd == CALLOC_CMD_CHURN ? work_churn(quick)
			   : cmd == CALLOC_CMD_COLD ? work_reused_cold(size, ws, quick)
			   : cmd == CALLOC_CMD_LOOP || cmd == CALLOC_CMD_LOOPW
			   ? work_loop(size, quick, cmd == CALLOC_CMD_LOOPW, kind) : -1;
		if (gbs < 0)
			return 1;
		dprintf(3, "%.6f\n", gbs);
	}
	return 0;
}
