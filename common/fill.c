/* SPDX-License-Identifier: MIT */
/*
 * The chunked fill behind CP_ZERO_RESIDENT and cp_zero_progress (fill.h).
 *
 * The range is cut at absolute multiples of CHUNK_BYTES (so a 2 MiB huge page
 * never straddles two chunks: a populate of its first half would fault all of
 * it and leave the second half looking present, to be stored again). Threads
 * take chunks in address order from one counter, so everything below the
 * lowest chunk still in flight is finished: that prefix is what progress()
 * sees and what a stopped or failed call reports.
 *
 * The thread count is measured, not assumed. Populate scales until the memory
 * system or the kernel's locks stop it: on the GPU host 4 threads beat 16
 * (bench/results/gpu-host-h200/README.md); on the 2-vCPU Zen 4 VM 2 beat 1
 * (bench/results/amd-zen4/README.md). The first large parallel fill of a
 * process starts with 2 threads and doubles them while each doubling gains
 * at least RAMP_GAIN over a phase of at least PHASE_NS and two chunks per
 * thread; it keeps the best count it saw, and later fills start there.
 * Threads past the current count wait, sleeping.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <time.h>
#include "fill.h"
#include "numa.h"
#include "parallel.h"
#include "resident.h"

#define CHUNK_BYTES ((uintptr_t)32 << 20)   /* ~10 ms of populate per thread */
#define MAX_SHARES 256u
#define PHASE_NS 30000000LL                 /* 30 ms: a few chunks per thread */
#define RAMP_GAIN 1.10                      /* a doubling must pay 10 % */
#define WAIT_NS 200000L                     /* a waiting thread looks again after 0.2 ms */
#define RAMP_FROM_CHUNKS 16u                /* 512 MiB: less is over before a ramp */

static unsigned learned_threads;            /* 0: no parallel fill measured yet */

struct engine {
	/* the window being filled: whole pages [start, end) of parts[] */
	uintptr_t start, end, first_chunk;
	const struct cp__resident_part *parts;
	size_t nparts;
	size_t nchunks;
	cp__store_fn store;
	void *ctx;
	/* the call */
	cp_progress_fn progress;
	void *progress_ctx;
	size_t done_before;        /* bytes from addr finished before this window */
	size_t len;
	const struct cp__numa_plan *numa;   /* NULL: one node, workers on the caller's CPUs */
	/* shared by the threads */
	atomic_size_t next;
	atomic_size_t busy[MAX_SHARES];    /* chunk in flight per share, SIZE_MAX none */
	atomic_uint active;
	atomic_int settled, stop, cancelled, err;
	atomic_size_t chunks_done;
	/* the caller's ramp */
	long long phase_t0;
	size_t phase_d0;
	struct cp__ramp ramp;
	unsigned shares;
};

/* The system call, not the vDSO: the vDSO reads the TSC, which PR_SET_TSC
 * may have made fault on this thread (once per 32 MiB chunk: nothing). */
static long long now_ns(void)
{
	struct timespec t;
	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void chunk_bounds(const struct engine *g, size_t i, uintptr_t *s, uintptr_t *e)
{
	uintptr_t a = g->first_chunk + i * CHUNK_BYTES, b = a + CHUNK_BYTES;
	*s = a > g->start ? a : g->start;
	*e = b < g->end && b > a ? b : g->end;
}

static int fill_chunk(const struct engine *g, size_t i)
{
	uintptr_t s, e;
	chunk_bounds(g, i, &s, &e);
	int r = 0;
	for (size_t k = 0; k < g->nparts && r == 0; k++) {
		const struct cp__resident_part *p = &g->parts[k];
		uintptr_t a = p->start > s ? p->start : s, b = p->end < e ? p->end : e;
		if (a < b)
			r = cp__resident_fill(p, a, b, g->store, g->ctx);
	}
	return r;
}

/* Bytes from the window's start that are finished: below every chunk in flight. */
static size_t window_done(struct engine *g)
{
	size_t low = atomic_load(&g->next);
	for (unsigned i = 0; i < g->shares; i++) {
		size_t b = atomic_load(&g->busy[i]);
		if (b < low)
			low = b;
	}
	if (low >= g->nchunks)
		return g->end - g->start;
	uintptr_t s, e;
	chunk_bounds(g, low, &s, &e);
	return s - g->start;
}

static void settle(struct engine *g, unsigned threads)
{
	atomic_store(&g->active, threads);
	atomic_store(&g->settled, 1);
	__atomic_store_n(&learned_threads, threads, __ATOMIC_RELAXED);
}

unsigned cp__ramp_next(struct cp__ramp *r, unsigned cur, double rate, unsigned most)
{
	if (r->best_threads && rate < r->best_rate * RAMP_GAIN) {
		r->keep = rate > r->best_rate ? cur : r->best_threads;
		return 0;
	}
	r->best_rate = rate;
	r->best_threads = cur;
	if (cur >= most) {
		r->keep = cur;
		return 0;
	}
	return cur * 2 < most ? cur * 2 : most;
}

/* The caller, between its chunks: a phase over, one step of the ramp. */
static void ramp_step(struct engine *g)
{
	long long t = now_ns();
	size_t d = atomic_load(&g->chunks_done);
	unsigned cur = atomic_load(&g->active);
	if (t - g->phase_t0 < PHASE_NS || d - g->phase_d0 < 2 * (size_t)cur)
		return;
	double rate = (double)(d - g->phase_d0) / (double)(t - g->phase_t0);
	g->phase_t0 = t;
	g->phase_d0 = d;
	unsigned next = cp__ramp_next(&g->ramp, cur, rate, g->shares);
	if (next)
		atomic_store(&g->active, next);
	else
		settle(g, g->ramp.keep);
}

static void report(struct engine *g)
{
	if (g->progress && g->progress(g->done_before + window_done(g), g->len, g->progress_ctx)) {
		atomic_store(&g->cancelled, 1);
		atomic_store(&g->stop, 1);
	}
}

/* Take the next chunk for share idx: its index, or SIZE_MAX when none is left. */
static size_t claim(struct engine *g, unsigned idx)
{
	size_t n = atomic_load(&g->next);
	for (;;) {
		if (n >= g->nchunks)
			return SIZE_MAX;
		atomic_store(&g->busy[idx], n);    /* before the claim: the prefix never passes it */
		if (atomic_compare_exchange_weak(&g->next, &n, n + 1))
			return n;
	}
}

static void work(void *ctx, unsigned idx, unsigned shares)
{
	struct engine *g = ctx;
	if (idx == 0 && shares < g->shares) {     /* the pool served fewer: no ramp to run */
		g->shares = shares;
		atomic_store(&g->active, shares);
		atomic_store(&g->settled, 1);
	}
	cpu_set_t before;
	int moved = 0;
	if (idx > 0 && g->numa &&
	    pthread_getaffinity_np(pthread_self(), sizeof(before), &before) == 0)
		moved = pthread_setaffinity_np(pthread_self(), sizeof(cpu_set_t),
					       &g->numa->group_cpus[idx % g->numa->ngroups]) == 0;
	while (!atomic_load(&g->stop)) {
		if (idx >= atomic_load(&g->active)) {
			if (atomic_load(&g->settled) || atomic_load(&g->next) >= g->nchunks)
				break;
			struct timespec w = { 0, WAIT_NS };
			nanosleep(&w, NULL);
			continue;
		}
		size_t n = claim(g, idx);
		if (n == SIZE_MAX)
			break;
		int r = fill_chunk(g, n);
		if (r) {
			int none = 0;
			atomic_compare_exchange_strong(&g->err, &none, r);
			atomic_store(&g->stop, 1);   /* busy[idx] stays: the prefix ends here */
			break;
		}
		atomic_store(&g->busy[idx], SIZE_MAX);
		atomic_fetch_add(&g->chunks_done, 1);
		if (idx == 0) {
			if (!atomic_load(&g->settled))
				ramp_step(g);
			report(g);
		}
	}
	if (moved)      /* the pool moves its workers back to a caller's CPUs only on a change */
		pthread_setaffinity_np(pthread_self(), sizeof(before), &before);
}

/* How many threads a window may use, and where the ramp starts. */
static unsigned plan_threads(struct engine *g, int parallel)
{
	if (!parallel || g->nchunks < 2)
		return 1;
	unsigned cpus = g->numa ? g->numa->cpus : cp__caller_cpus();
	if (cpus > MAX_SHARES)
		cpus = MAX_SHARES;
	return (size_t)cpus < g->nchunks ? cpus : (unsigned)g->nchunks;
}

/* One window of parts on `threads` threads; 0, -ECANCELED, -ENOMEM, -EFAULT. */
static int run_window(struct engine *g, unsigned threads)
{
	atomic_store(&g->next, 0);
	for (unsigned i = 0; i < MAX_SHARES; i++)
		atomic_store(&g->busy[i], SIZE_MAX);
	atomic_store(&g->stop, 0);
	g->shares = threads;
	unsigned learned = __atomic_load_n(&learned_threads, __ATOMIC_RELAXED);
	if (threads <= 2 || learned || g->nchunks < RAMP_FROM_CHUNKS) {
		unsigned start = learned && learned < threads ? learned : threads;
		if (!learned && threads > 2)
			start = 2;      /* a small first fill: no ramp, no lesson */
		atomic_store(&g->active, start);
		atomic_store(&g->settled, 1);
	} else {
		atomic_store(&g->active, 2);
		atomic_store(&g->settled, 0);
		g->phase_t0 = now_ns();
		g->phase_d0 = atomic_load(&g->chunks_done);
		g->ramp = (struct cp__ramp){ 0, 0, 0 };
	}
	if (threads > 1)
		cp__parallel_jobs(threads, work, g);
	else
		work(g, 0, 1);
	if (atomic_load(&g->err))
		return atomic_load(&g->err);
	if (atomic_load(&g->cancelled))
		return -ECANCELED;
	return 0;
}

/* Where the workers of a parallel fill run on a machine of several nodes
 * (numa.h): -1 on one node, or where the plan leaves them on the caller's
 * CPUs. The workers fault with their own thread's policy, which is the
 * process's default unless the application set one on the thread that
 * created them; the range's own policy (mbind) applies to every thread. */
static int numa_plan(uintptr_t addr, struct cp__numa_plan *plan)
{
	struct cp__numa_topology topo;
	struct cp__numa_policy pol;
	cpu_set_t cpus;
	unsigned cpu = 0, node = ~0u;
	if (cp__numa_read_topology(&topo) || topo.nnodes < 2 ||
	    sched_getaffinity(0, sizeof(cpus), &cpus))
		return -1;
	cp__numa_range_policy((const void *)addr, &pol);
	if (syscall(SYS_getcpu, &cpu, &node, NULL))
		node = ~0u;
	cp__numa_plan_for(&topo, &pol, &cpus, node, plan);
	return plan->ngroups && plan->cpus ? 0 : -1;
}

int cp__fill_resident(uintptr_t start, uintptr_t end, unsigned flags, cp__store_fn store,
		      void *ctx, const struct cp__fill_call *call, size_t *done)
{
	struct engine eng, *g = &eng;
	memset(g, 0, sizeof(*g));
	g->store = store;
	g->ctx = ctx;
	g->progress = call->progress;
	g->progress_ctx = call->progress_ctx;
	g->len = call->len;
	g->done_before = call->done_before;
	int parallel = (flags & CP_ZERO_PARALLEL) != 0;
	struct cp__numa_plan numa;
	if (parallel && numa_plan(start, &numa) == 0)
		g->numa = &numa;
	int r = 0;
	uintptr_t at = start;
	while (at < end && r == 0) {
		struct cp__resident_part parts[CP__RESIDENT_PARTS];
		size_t n = cp__resident_parts(at, end, parts);
		if (flags & CP_ZERO_HUGE_PAGES)
			cp__resident_advise_huge(parts, n);
		g->start = at;
		g->end = parts[n - 1].end > at ? parts[n - 1].end : end;
		g->parts = parts;
		g->nparts = n;
		g->first_chunk = g->start & ~(CHUNK_BYTES - 1);
		g->nchunks = (size_t)((g->end - g->first_chunk + CHUNK_BYTES - 1) / CHUNK_BYTES);
		r = run_window(g, plan_threads(g, parallel));
		size_t finished = window_done(g);
		g->done_before += finished;
		at = r == 0 ? g->end : at + finished;
	}
	*done = at - start;
	return r;
}
