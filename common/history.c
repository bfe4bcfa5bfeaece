/* SPDX-License-Identifier: MIT */
/*
 * What the calling thread remembers of its clears, and the two estimated
 * entry points they steer: cp_clear_pages' small calls and the range it
 * cleared last, cp_clear_pages_cold's small calls (the strategy and its
 * numbers: residency.h's header comment; the timing and the plans:
 * residency.c). The histories are thread-local: the freestanding object,
 * which has no TLS, clears by extent alone where a history would decide, and
 * runs cp_clear_pages' plans without the reuse graces.
 */
#include "route.h"

/* ---- the small calls' history: cp_clear_pages_cold, and cp_clear_pages where
 * its uncached bands part from any's below the plan's first extent ---- */

#ifndef CLEARPAGES_FREESTANDING
/* The calling thread's last verdict on one kind of small call. Initial-exec
 * TLS: a plain %fs/TPIDR_EL0-relative access, no call, async-signal-safe. A
 * handler that interrupts an update leaves at worst a stale verdict. */
struct small_history {
	unsigned calls_left;
	unsigned char cached;
	unsigned char uncached_run;   /* uncached verdicts in a row, at most MAX_SHIFT + 1 */
};
static __thread struct small_history cold_history __attribute__((tls_model("initial-exec")));
/* cp_clear_pages' small calls: the history of the ranges it had not just
 * cleared, and the range it cleared last (route.h: cp__way reads it). */
static __thread struct small_history any_small __attribute__((tls_model("initial-exec")));
__thread struct cp__last_range cp__any_last __attribute__((tls_model("initial-exec")));

/* After a verdict on a call of npages: the calls until the next timed one,
 * and the run. The run doubles the interval only while it stays within
 * CP__COLD_HISTORY_SPACED_PAGES of clearing at this call's extent. */
static void history_verdict(struct small_history *h, int cached, size_t npages)
{
	unsigned run = cached ? 0 : h->uncached_run + 1u;
	if (run > CP__COLD_HISTORY_MAX_SHIFT + 1)
		run = CP__COLD_HISTORY_MAX_SHIFT + 1;
	size_t most = CP__COLD_HISTORY_SPACED_PAGES / npages;   /* the calls that clear 4 MiB */
	size_t calls = (size_t)CP__COLD_HISTORY_CALLS << (run ? run - 1 : 0);
	while (calls > CP__COLD_HISTORY_CALLS && calls > most)
		calls >>= 1;                 /* spaced out only within 4 MiB */
	if (calls > most)
		calls = most;                /* from 128 KiB: 2 at least, below 2 MiB */
	h->cached = (unsigned char)cached;
	h->uncached_run = (unsigned char)run;
	h->calls_left = (unsigned)calls - 1;
}

/* The one-page (or longer, for a slow counter) chunk a history verdict times;
 * 0 where this call cannot be timed. Computed on the calls that time or seed
 * only: the division is not for every call. */
static size_t history_chunk(const struct cp__state *s, const struct cp_kernel *t, size_t npages,
			    struct cp__timing *timing)
{
	if (cp__is_nt(t) || !cp__timing_for(s->policy.cached_min_mbps, cp__counter_hz(s), 1, timing) ||
	    timing->chunk_pages > npages || !cp__counter_readable())
		return 0;
	return timing->chunk_pages;
}

/* The calls that time or seed (one or two in 64 to 256): out of line, so that
 * the others pay one band lookup and a tail call. Cached: any's kernel;
 * uncached: the band of `uncached`. */
static void __attribute__((noinline)) clear_small_timed(const struct cp__state *s,
							 struct small_history *h,
							 const struct cp__bands *uncached,
							 char *addr, size_t npages, int seed)
{
	const struct cp_kernel *u = cp__bands_pick(uncached, npages);
	const struct cp_kernel *t = cp__bands_pick(&s->policy.any, npages);
	struct cp__timing timing;
	size_t chunk = history_chunk(s, t, npages, &timing);
	if (!chunk) {
		if (!seed) {               /* cannot time this: as the extent alone says */
			int extent_says_cached = uncached != &s->policy.cold;   /* any's band */
			h->uncached_run = 0;
			history_verdict(h, extent_says_cached, npages);
		}
		(h->cached ? t : u)->clear(addr, npages);
		return;
	}
	const struct cp_kernel *timed = cp__chunk_kernel(s, t, chunk);
	int cached = 0;
	if (seed) {
		/* The call before a timed one clears that chunk temporally: our
		 * own non-temporal stores evict what they clear (AMD), so a buffer
		 * cleared again and again, once judged cold, would be timed cold
		 * from then on. On cold memory: two temporal chunks in 64 to 256 calls. */
		timed->clear(addr, chunk);
	} else {
		cached = cp__timed_clear(timed, addr, chunk) <= timing.limit_ticks;
		history_verdict(h, cached, npages);
	}
	if (npages > chunk)
		(cached ? t : u)->clear(addr + chunk * CP_PAGE_SIZE, npages - chunk);
}

/* What a history's next call does: go by the verdict, time a chunk (and set
 * calls_left), or seed the timed call to come (its chunk stored temporally
 * first: the uncached kernel is non-temporal). calls_left is read once and
 * stored once: a handler's update in between is overwritten, never
 * decremented past 0. */
enum { BY_VERDICT, TIME_IT, SEED_IT };
static inline int history_step(struct small_history *h, int uncached_nt)
{
	unsigned left = h->calls_left;
	if (!left)
		return TIME_IT;
	h->calls_left = --left;
	return left || h->cached || !uncached_nt ? BY_VERDICT : SEED_IT;
}

static inline void clear_small(const struct cp__state *s, struct small_history *h,
			       const struct cp__bands *uncached, char *addr, size_t npages)
{
	int step = history_step(h, cp__is_nt(cp__bands_pick(uncached, npages)));
	if (step == BY_VERDICT)
		cp__bands_pick(h->cached ? &s->policy.any : uncached, npages)->clear(addr, npages);
	else
		clear_small_timed(s, h, uncached, addr, npages, step == SEED_IT);
}

#endif

/* ---- cp_copy_pages from the copy estimate's extent ---- */

#ifndef CLEARPAGES_FREESTANDING
/* The thread's copies: a verdict timed and spaced as the small clears'
 * (the history's way; the plan's way times each call's first chunk), and
 * the destination it copied to last, which cp__way sends to the cached
 * bands untimed (a loop onto one buffer). A chunk is timed with the
 * cached band's kernel, held to the policy's threshold as a clear's is:
 * cached copies ran 31-54 GB/s on the recorded hosts, cold ones 5-21. */
static __thread struct small_history copy_history __attribute__((tls_model("initial-exec")));
__thread struct cp__last_range cp__copy_last __attribute__((tls_model("initial-exec")));

static inline uint64_t timed_copy(const struct cp_copy_kernel *k, void *dst, const void *src,
				  size_t npages)
{
	uint64_t t0 = cp__counter_start();
	k->copy(dst, src, npages);
	return cp__counter_read() - t0;
}

static void __attribute__((noinline)) copy_timed(const struct cp__state *s, char *dst,
						 const char *src, size_t npages, int every_call,
						 int seed)
{
	const struct cp_copy_kernel *t = cp__copy_bands_pick(&s->policy.copy, npages);
	const struct cp_copy_kernel *u = cp__copy_bands_pick(&s->policy.copy_uncached, npages);
	struct cp__timing timing;
	size_t chunk = 0;
	if (!(t->flags & CP_NONTEMPORAL) && cp__counter_readable() &&
	    cp__timing_for(s->policy.cached_min_mbps, cp__counter_hz(s),
			   every_call ? CP__RESIDENCY_CHUNK_PAGES : 1, &timing) &&
	    timing.chunk_pages < npages)
		chunk = timing.chunk_pages;
	if (!chunk) {                   /* cannot time this: the cached bands */
		if (!seed && !every_call)
			history_verdict(&copy_history, 1, npages);
		cp__copy_by(t, dst, src, npages);
		return;
	}
	int cached = 0;
	if (seed) {
		t->copy(dst, src, chunk);   /* our non-temporal stores evicted it: see clears */
	} else {
		cached = timed_copy(t, dst, src, chunk) <= timing.limit_ticks;
		if (!every_call)
			history_verdict(&copy_history, cached, npages);
	}
	size_t off = chunk * CP_PAGE_SIZE;
	cp__copy_by(cached ? t : u, dst + off, src + off, npages - chunk);
}
#endif

/* cp_copy_pages where cp__way says history or plan: this destination
 * becomes the last, then the thread's copy history (below 1 MiB) or a timed
 * chunk (from it) decides. */
void cp__copy_estimated(const struct cp__state *s, enum cp__way way, void *dst, const void *src,
			size_t npages)
{
#ifndef CLEARPAGES_FREESTANDING
	cp__copy_last = (struct cp__last_range){ (uintptr_t)dst, npages };
	if (way == CP__BY_PLAN) {
		copy_timed(s, dst, src, npages, 1, 0);
		return;
	}
	const struct cp_copy_kernel *u = cp__copy_bands_pick(&s->policy.copy_uncached, npages);
	int step = history_step(&copy_history, (u->flags & CP_NONTEMPORAL) != 0);
	if (step == BY_VERDICT)
		cp__copy_by(copy_history.cached ? cp__copy_bands_pick(&s->policy.copy, npages) : u,
			    dst, src, npages);
	else
		copy_timed(s, dst, src, npages, 0, step == SEED_IT);
#else
	(void)way;   /* cp__way never times a copy here */
	cp__copy_by(cp__copy_bands_pick(&s->policy.copy, npages), dst, src, npages);
#endif
}

/* ---- cp_clear_pages from the estimate's extent ---- */

#ifndef CLEARPAGES_FREESTANDING
/* The range this thread last cleared through cp_clear_pages' plan: how many
 * clears of it in a row timed cached, and how many more may clear it
 * temporally over slow chunks. Initial-exec TLS, as below. Read once into a
 * copy and written back whole: a handler that interrupts the update leaves at
 * worst a wrong guess, never a count run past its bounds. */
struct reuse_history {
	uintptr_t addr;
	size_t npages;
	unsigned cached_run, graces;
};
static __thread struct reuse_history any_history __attribute__((tls_model("initial-exec")));

void cp__reuse_history_forget(void)
{
	any_history = (struct reuse_history){ 0 };
	any_small = (struct small_history){ 0 };
	cp__any_last = (struct cp__last_range){ 0 };
	copy_history = (struct small_history){ 0 };
	cp__copy_last = (struct cp__last_range){ 0 };
}

/* The history after a clear of this range: cached (every chunk timed
 * cached) or not, graced (cleared temporally over slow chunks) or not. */
static struct reuse_history after_clear(struct reuse_history h, int again, int cached,
					int graced)
{
	unsigned run = again ? h.cached_run : 0;
	if (cached) {
		run += run < CP__REUSE_MIN_CACHED_RUN;     /* saturates at the minimum */
		h.graces = run >= CP__REUSE_MIN_CACHED_RUN ? CP__REUSE_GRACE_CALLS : 0;
	} else if (graced) {
		h.graces--;                                /* graced: h.graces > 0 */
	} else {
		run = 0;
		h.graces = 0;
	}
	h.cached_run = run;
	return h;
}
#endif

/* The per-batch plan, and on any's route the reuse history: out of line,
 * so that the history's calls, a compare and a tail call on a range cleared
 * again, do not save six registers for its frame. */
static void __attribute__((noinline)) clear_planned(const struct cp__state *s, enum cp__route r,
						     void *addr, size_t npages)
{
	struct cp__plan pl;
	cp__plan_for(s, r, npages, &pl);
#ifndef CLEARPAGES_FREESTANDING
	if (r != CP__ROUTE_ANY || !pl.uncached) {   /* nothing timed: nothing learnt either */
		cp__plan_run(&pl, addr, npages);
		return;
	}
	struct reuse_history h = any_history;
	int again = h.addr == (uintptr_t)addr && h.npages == npages;
	pl.reused = again && h.graces;
	int cached = cp__plan_run(&pl, addr, npages);
	h = after_clear(h, again, cached, pl.reused);
	h.addr = (uintptr_t)addr;
	h.npages = npages;
	any_history = h;
#else
	cp__plan_run(&pl, addr, npages);
#endif
}

void __attribute__((noinline)) cp__clear_estimated(const struct cp__state *s, enum cp__route r,
						   enum cp__way way, void *addr, size_t npages)
{
#ifndef CLEARPAGES_FREESTANDING
	if (way == CP__BY_HISTORY) {
		struct small_history *h = &cold_history;
		if (r != CP__ROUTE_COLD) {   /* any: this range becomes the last */
			cp__any_last = (struct cp__last_range){ (uintptr_t)addr, npages };
			h = &any_small;
		}
		clear_small(s, h, cp__route_uncached(&s->policy, r), addr, npages);
		return;
	}
#else
	(void)way;   /* cp__way never says history here */
#endif
	clear_planned(s, r, addr, npages);
}
