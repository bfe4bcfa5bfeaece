/* SPDX-License-Identifier: MIT */
/*
 * The residency estimate: the chunk's timing, the verdict, the counter's rate
 * and the per-batch plans (the strategy and its numbers: residency.h; the
 * thread's histories that steer the calls the plans do not: history.c). The
 * pure parts, cp__timing_for and cp__residency_verdict, are what the tests
 * feed described hosts' timings.
 */
#include "route.h"

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
	out->limit_ticks = out->stall_ticks = 0;
	if (!mbps || !hz || !min_pages)
		return 0;
	for (size_t pages = min_pages; pages <= CP__RESIDENCY_MAX_CHUNK_PAGES; pages *= 2) {
		/* bytes / (mbps * 10^6 B/s) seconds, in ticks */
		uint64_t limit = chunk_ticks(pages, hz, (uint64_t)mbps * 1000000u);
		if (limit >= CP__RESIDENCY_MIN_TICKS) {
			uint64_t slow = chunk_ticks(pages, hz, (uint64_t)CP__RESIDENCY_STALL_MBPS * 1000000u);
			out->chunk_pages = pages;
			out->limit_ticks = limit;
			out->stall_ticks = CP__RESIDENCY_STALL_FACTOR * limit;
			if (out->stall_ticks < slow)
				out->stall_ticks = slow;
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
	int very_slow = last > t->stall_ticks;
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

void cp__counter_pair_pick(const uint64_t (*tries)[3], unsigned n, uint64_t *ns, uint64_t *ticks)
{
	unsigned best = 0;
	for (unsigned i = 1; i < n; i++)
		if (tries[i][2] - tries[i][0] < tries[best][2] - tries[best][0])
			best = i;
	*ns = tries[best][1];
	*ticks = tries[best][0] + (tries[best][2] - tries[best][0]) / 2;
}

#ifndef CLEARPAGES_FREESTANDING
/* The clock between two counter reads, three times, the tightest kept: a
 * preemption between one clock and counter read would skew the rate by its
 * length over the 2 ms span (on a loaded 2-vCPU VM, cold chunks read as
 * cached). Async-signal-safe (clock_gettime). */
static void counter_pair(uint64_t *ns, uint64_t *ticks)
{
	uint64_t tries[3][3];
	for (unsigned i = 0; i < 3; i++) {
		tries[i][0] = cp__counter_read();
		tries[i][1] = now_ns();
		tries[i][2] = cp__counter_read();
	}
	cp__counter_pair_pick((const uint64_t (*)[3])tries, 3, ns, ticks);
}
#endif

void cp__counter_calibration_start(void)
{
#ifndef CLEARPAGES_FREESTANDING
	if (cp__counter_readable())
		counter_pair(&calib_ns0, &calib_ticks0);
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
	if (hz || !calib_ns0 || !cp__counter_readable())
		return hz;
	uint64_t ns, ticks;
	counter_pair(&ns, &ticks);
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

const struct cp_kernel *cp__chunk_kernel(const struct cp__state *s, const struct cp_kernel *cached,
					 size_t chunk_pages)
{
	if (s->cpu.prefs & CP__P_STRING_MID)
		return cached;
	const struct cp_kernel *k = cp__bands_pick(&s->policy.any, chunk_pages);
	return cp__is_nt(k) ? cached : k;
}

/* Estimate between temporal `cached` and `uncached` where the counter allows. */
static void plan_pair(const struct cp__state *s, const struct cp_kernel *cached,
		      const struct cp_kernel *uncached, struct cp__plan *out)
{
	if (cached == uncached || cp__is_nt(cached))
		return;        /* a non-temporal chunk's time says nothing of the caches */
	if (cp__timing_for(s->policy.cached_min_mbps, cp__counter_hz(s),
			   CP__RESIDENCY_CHUNK_PAGES, &out->timing)) {
		out->untimed_cached = out->kernel == cached;
		out->kernel = cached;
		out->uncached = uncached;
		out->timed = cp__chunk_kernel(s, cached, out->timing.chunk_pages);
	}
}

void cp__plan_for(const struct cp__state *s, enum cp__route r, size_t extent,
		  struct cp__plan *out)
{
	const struct cp__policy *p = &s->policy;
	out->kernel = cp__bands_pick(cp__route_bands(p, r), extent);
	out->uncached = NULL;
	out->reused = 0;
	if (cp__way(p, r, NULL, extent) == CP__BY_PLAN)
		plan_pair(s, cp__bands_pick(&p->any, extent),
			  cp__bands_pick(cp__route_uncached(p, r), extent), out);
}

void cp__clear_in_calls(const struct cp_kernel *k, void *addr, size_t npages)
{
	char *p = addr;
	for (; npages > CP__MAX_CALL_PAGES; npages -= CP__MAX_CALL_PAGES) {
		k->clear(p, CP__MAX_CALL_PAGES);
		p += CP__MAX_CALL_PAGES * CP_PAGE_SIZE;
	}
	k->clear(p, npages);
}

void cp__copy_in_calls(const struct cp_copy_kernel *k, void *dst, const void *src, size_t npages)
{
	char *d = dst;
	const char *s = src;
	for (; npages > CP__MAX_CALL_PAGES; npages -= CP__MAX_CALL_PAGES) {
		k->copy(d, s, CP__MAX_CALL_PAGES);
		d += CP__MAX_CALL_PAGES * CP_PAGE_SIZE;
		s += CP__MAX_CALL_PAGES * CP_PAGE_SIZE;
	}
	k->copy(d, s, npages);
}

int cp__plan_run(const struct cp__plan *pl, void *addr, size_t npages)
{
	if (!pl->uncached) {
		cp__clear_by(pl->kernel, addr, npages);
		return 1;
	}
	if (!cp__counter_readable()) {   /* PR_SET_TSC on this thread: the extent's choice */
		cp__clear_by(pl->untimed_cached || pl->reused ? pl->kernel : pl->uncached, addr, npages);
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
			ticks[timed++] = cp__timed_clear(pl->timed, p, chunk);
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
		 * cold blocks). Cleared again non-temporally, they leave; at the
		 * batch's end, when their own stores are done (right after them it
		 * cost more: bench/results/amd-zen3/README.md). */
		if (timed && !cached && !pl->reused && cp__is_nt(pl->uncached))
			pl->uncached->clear(p - timed * chunk * CP_PAGE_SIZE, timed * chunk);
		p += batch * CP_PAGE_SIZE;
		npages -= batch;
	}
	return all_cached;
}
