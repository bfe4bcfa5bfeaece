/* SPDX-License-Identifier: MIT */
/*
 * The residency estimate and the clears it steers (the strategy and its
 * numbers: residency.h). The pure parts, cp__timing_for and
 * cp__residency_verdict, are what the tests feed described hosts' timings.
 */
#include "residency.h"
#include "state.h"

#ifndef CLEARPAGES_FREESTANDING
#include <time.h>
#endif

/* floor(pages * 4096 * hz / d) in 64-bit steps: a 128-bit division calls
 * libgcc's __udivti3, which the freestanding object must not need. With
 * hz = q * d + r and pages * r = sq * d + sr, the quotient is
 * pages * 4096 * q + 4096 * sq + floor(4096 * sr / d), each term in range
 * for pages <= 64 and d = mbps * 10^6 < 2^52. */
static uint64_t chunk_ticks(size_t pages, unsigned long long hz, uint64_t d)
{
	uint64_t q = hz / d, r = hz % d;
	uint64_t s = (uint64_t)pages * r;
	return (uint64_t)pages * CP_PAGE_SIZE * q + s / d * CP_PAGE_SIZE +
	       s % d * CP_PAGE_SIZE / d;
}

int cp__timing_for(unsigned mbps, unsigned long long hz, size_t min_pages,
		   struct cp__timing *out)
{
	out->chunk_pages = 0;
	out->limit_ticks = 0;
	if (!mbps || !hz || !min_pages)
		return 0;
	for (size_t pages = min_pages; pages <= CP__RESIDENCY_MAX_CHUNK_PAGES; pages *= 2) {
		/* bytes / (mbps * 10^6 B/s) seconds, in ticks */
		uint64_t limit = chunk_ticks(pages, hz, (uint64_t)mbps * 1000000u);
		if (limit >= CP__RESIDENCY_MIN_TICKS) {
			out->chunk_pages = pages;
			out->limit_ticks = limit;
			return 1;
		}
	}
	return 0;
}

int cp__residency_verdict(const struct cp__timing *t, const uint64_t *ticks, unsigned n)
{
	if (n == 0)
		return CP__TIME_ANOTHER;
	uint64_t last = ticks[n - 1];
	if (last <= t->limit_ticks)
		return CP__CACHED;          /* one fast chunk: a cold target cannot fake it */
	int very_slow = last / CP__RESIDENCY_STALL_FACTOR > t->limit_ticks;
	if (n < 2)
		return very_slow ? CP__TIME_ANOTHER : CP__UNCACHED;   /* a stall, perhaps */
	/* two very slow chunks: page faults, whose pages the kernel has just
	 * zeroed into the cache (non-temporal stores there only evict them) */
	return very_slow ? CP__CACHED : CP__UNCACHED;
}

/* ---- the counter's rate ---- */

#ifndef CLEARPAGES_FREESTANDING
static uint64_t calib_ticks0, calib_ns0;   /* written before the first state is published */
static unsigned long long calibrated_hz;    /* 0, then the one measured value */
#define CALIB_MIN_NS 2000000ull             /* 2 ms: clock resolution is ~tens of ns */

/* ticks * 10^9 / ns without a 128-bit division (libgcc's __udivti3 carries
 * no BTI/PAC property on arm64 and strips it from libclearpages.so): past
 * 2^34 ns (17 s) both halve, then the quotient and remainder by ns each
 * stay within 64 bits (remainder < 2^34, 10^9 < 2^30). */
static unsigned long long ticks_per_second(uint64_t ticks, uint64_t ns)
{
	while (ns >= (1ull << 34))
		ticks >>= 1, ns >>= 1;
	return ticks / ns * 1000000000u + ticks % ns * 1000000000u / ns;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#endif

void cp__counter_calibration_start(void)
{
#ifndef CLEARPAGES_FREESTANDING
	calib_ns0 = now_ns();
	calib_ticks0 = cp__counter_read();
#endif
}

unsigned long long cp__counter_hz(const struct cp__state *s)
{
	if (!(s->features & CP__F_COUNTER))
		return 0;
	if (s->cpu.counter_hz)
		return s->cpu.counter_hz;
#ifndef CLEARPAGES_FREESTANDING
	unsigned long long hz = __atomic_load_n(&calibrated_hz, __ATOMIC_RELAXED);
	if (hz || !calib_ns0)
		return hz;
	uint64_t ns = now_ns(), ticks = cp__counter_read();
	if (ns < calib_ns0 + CALIB_MIN_NS || ticks <= calib_ticks0)
		return 0;
	hz = ticks_per_second(ticks - calib_ticks0, ns - calib_ns0);
	unsigned long long none = 0;
	/* racers measure nearly the same; the first one published stays */
	if (!__atomic_compare_exchange_n(&calibrated_hz, &none, hz, 0, __ATOMIC_RELAXED,
					 __ATOMIC_RELAXED))
		hz = none;
	return hz;
#else
	return 0;
#endif
}

/* ---- plans ---- */

static int is_nt(const struct cp_kernel *k)
{
	return (k->flags & CP_NONTEMPORAL) != 0;
}

/* Estimate between temporal `cached` and `uncached` where the counter allows. */
static void plan_pair(const struct cp__state *s, const struct cp_kernel *cached,
		      const struct cp_kernel *uncached, struct cp__plan *out)
{
	if (cached == uncached || is_nt(cached))
		return;        /* a non-temporal chunk's time says nothing of the caches */
	if (cp__timing_for(s->policy.cached_min_mbps, cp__counter_hz(s),
			   CP__RESIDENCY_CHUNK_PAGES, &out->timing)) {
		out->untimed_cached = out->kernel == cached;
		out->kernel = cached;
		out->uncached = uncached;
	}
}

void cp__plan_any(const struct cp__state *s, size_t extent, struct cp__plan *out)
{
	out->kernel = cp__bands_pick(&s->policy.any, extent);
	out->uncached = NULL;
	out->reused = 0;
	/* below the history's end a chunk per call costs a cached target too
	 * much (the top): cp_clear_pages' small calls go by the history */
	if (extent >= s->policy.estimate_from_pages && extent >= CP__HISTORY_BELOW_PAGES)
		plan_pair(s, out->kernel, cp__bands_pick(&s->policy.uncached, extent), out);
}

void cp__plan_cold(const struct cp__state *s, size_t extent, struct cp__plan *out)
{
	out->kernel = cp__bands_pick(&s->policy.cold, extent);
	out->uncached = NULL;
	out->reused = 0;
	if (extent < s->policy.cold_estimate_below_pages)
		plan_pair(s, cp__bands_pick(&s->policy.any, extent), out->kernel, out);
}

int cp__plan_run(const struct cp__plan *pl, void *addr, size_t npages)
{
	if (!pl->uncached) {
		pl->kernel->clear(addr, npages);
		return 1;
	}
	char *p = addr;
	size_t chunk = pl->timing.chunk_pages;
	int cached = pl->untimed_cached, all_cached = 1;
	while (npages) {
		size_t batch = npages < CP__RESIDENCY_BATCH_PAGES ? npages : CP__RESIDENCY_BATCH_PAGES;
		uint64_t ticks[2];
		unsigned timed = 0;
		int verdict = CP__TIME_ANOTHER;
		/* leave the verdict's kernel a part of the batch; a tail too short
		 * to time keeps the last batch's verdict */
		while (verdict == CP__TIME_ANOTHER && batch > chunk) {
			ticks[timed++] = cp__timed_clear(pl->kernel, p, chunk);
			p += chunk * CP_PAGE_SIZE;
			batch -= chunk;
			npages -= chunk;
			verdict = cp__residency_verdict(&pl->timing, ticks, timed);
		}
		if (timed) {
			cached = verdict == CP__CACHED;
			all_cached &= cached;
		}
		(cached || pl->reused ? pl->kernel : pl->uncached)->clear(p, batch);
		/* The chunks' lines stay cached in a target that is not, and the next
		 * estimate of this range would time them, not the range (a pool of
		 * cold blocks: 6-29 % of its estimates said "cached"). Cleared again
		 * non-temporally, they leave; at the batch's end, when their own
		 * stores are done (right after them, it cost 1-10 %). */
		if (timed && !cached && !pl->reused && is_nt(pl->uncached))
			pl->uncached->clear(p - timed * chunk * CP_PAGE_SIZE, timed * chunk);
		p += batch * CP_PAGE_SIZE;
		npages -= batch;
	}
	return all_cached;
}

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
 * cleared, and the range it cleared last. */
struct any_small_history {
	struct small_history h;
	uintptr_t addr;
	size_t npages;
};
static __thread struct any_small_history any_small __attribute__((tls_model("initial-exec")));

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
	if (is_nt(t) || !cp__timing_for(s->policy.cached_min_mbps, cp__counter_hz(s), 1, timing) ||
	    timing->chunk_pages > npages)
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
	int cached = 0;
	if (seed) {
		/* The call before a timed one clears that chunk temporally: our
		 * own non-temporal stores evict what they clear (AMD), so a buffer
		 * cleared again and again, once judged cold, would be timed cold
		 * from then on. On cold memory: two temporal chunks in 64 to 256 calls. */
		t->clear(addr, chunk);
	} else {
		cached = cp__timed_clear(t, addr, chunk) <= timing.limit_ticks;
		history_verdict(h, cached, npages);
	}
	if (npages > chunk)
		(cached ? t : u)->clear(addr + chunk * CP_PAGE_SIZE, npages - chunk);
}

static inline void clear_small(const struct cp__state *s, struct small_history *h,
			       const struct cp__bands *uncached, char *addr, size_t npages)
{
	/* read once, stored once: a handler's update in between is overwritten,
	 * never decremented past 0 */
	unsigned left = h->calls_left;
	if (!left) {
		clear_small_timed(s, h, uncached, addr, npages, 0);   /* sets calls_left */
		return;
	}
	h->calls_left = --left;
	if (left || h->cached || !is_nt(cp__bands_pick(uncached, npages)))
		cp__bands_pick(h->cached ? &s->policy.any : uncached, npages)->clear(addr, npages);
	else
		clear_small_timed(s, h, uncached, addr, npages, 1);
}

/* cp_clear_pages below the plan's first extent: the range this thread
 * cleared last is cached (it was just cleared, and under 1 MiB it stays
 * cached unless the caller evicts it), so a loop over one buffer never
 * times; any other range goes by the thread's history. */
static void clear_any_small(const struct cp__state *s, char *addr, size_t npages)
{
	if (any_small.addr == (uintptr_t)addr && any_small.npages == npages) {
		cp__bands_pick(&s->policy.any, npages)->clear(addr, npages);
		return;
	}
	any_small.addr = (uintptr_t)addr;
	any_small.npages = npages;
	clear_small(s, &any_small.h, &s->policy.uncached, addr, npages);
}
#endif

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
	any_small = (struct any_small_history){ 0 };
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

void __attribute__((noinline)) cp__clear_any_estimated(const struct cp__state *s, void *addr,
						    size_t npages)
{
	struct cp__plan pl;
#ifndef CLEARPAGES_FREESTANDING
	if (npages < CP__HISTORY_BELOW_PAGES) {
		clear_any_small(s, addr, npages);
		return;
	}
#endif
	cp__plan_any(s, npages, &pl);
#ifndef CLEARPAGES_FREESTANDING
	if (!pl.uncached) {           /* nothing timed: nothing learnt either */
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

/* From CP__COLD_HISTORY_BELOW_PAGES: the per-batch plan, out of line so that
 * its frame is not the small calls'. */
static void __attribute__((noinline)) clear_cold_planned(const struct cp__state *s, void *addr,
							  size_t npages)
{
	struct cp__plan pl;
	cp__plan_cold(s, npages, &pl);
	cp__plan_run(&pl, addr, npages);
}

void cp__clear_cold_estimated(const struct cp__state *s, void *addr, size_t npages)
{
#ifndef CLEARPAGES_FREESTANDING
	if (npages < CP__COLD_HISTORY_BELOW_PAGES) {
		clear_small(s, &cold_history, &s->policy.cold, addr, npages);
		return;
	}
#else
	if (npages < CP__COLD_HISTORY_BELOW_PAGES) {
		/* no thread-local history without TLS: size alone, non-temporal */
		cp__bands_pick(&s->policy.cold, npages)->clear(addr, npages);
		return;
	}
#endif
	clear_cold_planned(s, addr, npages);
}
