/* SPDX-License-Identifier: MIT */
/*
 * The route of a call: how the kernel that clears or copies it is chosen.
 * cp__way() below is the only place that holds an extent against a bound;
 * the entry points (api.c, copy.c), the whole-extent plans of parallel
 * shares, RESIDENT's runs and huge walks' far ranges (residency.c:
 * cp__plan_for) all ask it.
 *
 *   route  bands, untimed               the thread's history      a plan per batch
 *   any    below estimate_from, or the  estimate_from .. 1 MiB    from 1 MiB (and from
 *          range it cleared last                                   estimate_from)
 *   cold   from cold_estimate_below     below 2 MiB               2 MiB .. cold_estimate_below
 *   hot    always
 *   copy   below copy_estimate_from,    copy_estimate_from ..     from 1 MiB: one timed
 *          or the destination of its    1 MiB                     chunk a call
 *          last copy
 *
 * bands: the route's own bands at the extent (policy.h: any, cold, hot,
 * copy). history (history.c): the calling thread's last verdict, one call
 * in 64 to 256 timed: a chunk per call costs a cached target too much below
 * the bounds (bench/results/amd-zen4/README.md, the history bound's
 * ablation). plan (residency.c): the first chunk of each 4 MiB batch
 * timed, then the cached or the uncached band; cp_clear_pages' plan keeps
 * its reuse graces. The estimate bounds are the policy's (cp__policy_finish:
 * where the cached and uncached bands part); the strategy and the timing
 * constants: residency.h. Without thread-local storage (the freestanding
 * object) a history's calls take the bands and copies are never timed.
 * Whichever way, no kernel call passes CP__MAX_CALL_PAGES.
 */
#ifndef CP_ROUTE_H
#define CP_ROUTE_H

#include <stddef.h>
#include <stdint.h>
#include "residency.h"
#include "state.h"

enum cp__route { CP__ROUTE_ANY, CP__ROUTE_COLD, CP__ROUTE_HOT, CP__ROUTE_COPY };
enum cp__way { CP__BY_BANDS, CP__BY_HISTORY, CP__BY_PLAN };

#define CP__HISTORY_BELOW_PAGES       256    /* any and copy: 1 MiB */
#define CP__COLD_HISTORY_BELOW_PAGES  512    /* cold: 2 MiB */

/* The range the calling thread cleared last through any's history, and the
 * destination of its last estimated copy (history.c writes them). Still
 * cached unless the caller evicted it: a loop over one buffer pays a
 * compare, not a timing. Initial-exec TLS: no call, async-signal-safe. */
struct cp__last_range {
	uintptr_t addr;
	size_t npages;
};
#ifndef CLEARPAGES_FREESTANDING
extern __thread struct cp__last_range cp__any_last
	__attribute__((tls_model("initial-exec"), visibility("hidden")));
extern __thread struct cp__last_range cp__copy_last
	__attribute__((tls_model("initial-exec"), visibility("hidden")));
#endif

/* addr is NULL for a whole extent's plan, which has no last range (the
 * constant folds the reads away: residency.c keeps no edge to history.c). */
static inline int cp__done_last(enum cp__route r, const void *addr, size_t npages)
{
#ifndef CLEARPAGES_FREESTANDING
	if (!addr)
		return 0;
	if (r == CP__ROUTE_COPY)    /* each read %fs-relative: no TLS address taken */
		return cp__copy_last.addr == (uintptr_t)addr && cp__copy_last.npages == npages;
	return cp__any_last.addr == (uintptr_t)addr && cp__any_last.npages == npages;
#else
	(void)r, (void)addr, (void)npages;
	return 0;
#endif
}

/* The way of a call of npages at addr on route r (a constant at every call
 * site, so one row is compiled). */
static inline enum cp__way cp__way(const struct cp__policy *p, enum cp__route r,
				   const void *addr, size_t npages)
{
	enum cp__way way;
	switch (r) {
	case CP__ROUTE_HOT:
		return CP__BY_BANDS;
	case CP__ROUTE_COLD:
		if (npages >= p->cold_estimate_below_pages)
			return CP__BY_BANDS;
		way = npages < CP__COLD_HISTORY_BELOW_PAGES ? CP__BY_HISTORY : CP__BY_PLAN;
		break;
	case CP__ROUTE_COPY:
		if (npages < p->copy_estimate_from_pages || cp__done_last(r, addr, npages))
			return CP__BY_BANDS;
		way = npages < CP__HISTORY_BELOW_PAGES ? CP__BY_HISTORY : CP__BY_PLAN;
		break;
	default:
		if (npages < p->estimate_from_pages)
			return CP__BY_BANDS;
		if (npages >= CP__HISTORY_BELOW_PAGES)
			return CP__BY_PLAN;
		if (cp__done_last(r, addr, npages))
			return CP__BY_BANDS;
		way = CP__BY_HISTORY;
	}
#ifdef CLEARPAGES_FREESTANDING
	if (way == CP__BY_HISTORY || r == CP__ROUTE_COPY)
		return CP__BY_BANDS;
#endif
	return way;
}

/* The first extent that route r plans (no last range), CP__BAND_UNUSED if
 * none: cp__way changes only at its bounds, so the first is one of them
 * (tests, clearbench). */
static inline size_t cp__route_plan_from(const struct cp__policy *p, enum cp__route r)
{
	const size_t bounds[] = { 1, p->estimate_from_pages, p->cold_estimate_below_pages,
				  p->copy_estimate_from_pages, CP__HISTORY_BELOW_PAGES,
				  CP__COLD_HISTORY_BELOW_PAGES };
	size_t first = CP__BAND_UNUSED;
	for (unsigned i = 0; i < sizeof bounds / sizeof bounds[0]; i++)
		if (bounds[i] && bounds[i] < first && cp__way(p, r, NULL, bounds[i]) == CP__BY_PLAN)
			first = bounds[i];
	return first;
}

/* The bands a clear route takes untimed, and the two an estimate picks
 * between (cold: any's temporal band where the target is cached). */
static inline const struct cp__bands *cp__route_bands(const struct cp__policy *p, enum cp__route r)
{
	return r == CP__ROUTE_COLD ? &p->cold : r == CP__ROUTE_HOT ? &p->hot : &p->any;
}
static inline const struct cp__bands *cp__route_uncached(const struct cp__policy *p,
							 enum cp__route r)
{
	return r == CP__ROUTE_COLD ? &p->cold : &p->uncached;
}

/* No kernel is called on more than this many pages at once: the plan's
 * batch less its timed chunk (4080 KiB). AMD's rep stos stops allocating the
 * lines it stores past a length (4 MiB on the Zen 5 VM:
 * bench/results/amd-zen5/README.md), which a cached target pays for; a call
 * per 4 MiB costs nothing measurable. Copies alike. */
#define CP__MAX_CALL_PAGES (CP__RESIDENCY_BATCH_PAGES - CP__RESIDENCY_CHUNK_PAGES)
void cp__clear_in_calls(const struct cp_kernel *k, void *addr, size_t npages);
void cp__copy_in_calls(const struct cp_copy_kernel *k, void *dst, const void *src, size_t npages);
static inline void cp__clear_by(const struct cp_kernel *k, void *addr, size_t npages)
{
	if (__builtin_expect(npages <= CP__MAX_CALL_PAGES, 1))
		k->clear(addr, npages);
	else
		cp__clear_in_calls(k, addr, npages);   /* out of line: no loop in the small call */
}
static inline void cp__copy_by(const struct cp_copy_kernel *k, void *dst, const void *src,
			       size_t npages)
{
	if (__builtin_expect(npages <= CP__MAX_CALL_PAGES, 1))
		k->copy(dst, src, npages);
	else
		cp__copy_in_calls(k, dst, src, npages);
}

/* The plan of a clear of one whole extent on route r (a parallel clear's
 * shares, RESIDENT's runs, a huge walk's far ranges: residency.c): timed
 * where cp__way says plan, else the route's band throughout. */
void cp__plan_for(const struct cp__state *s, enum cp__route r, size_t extent,
		  struct cp__plan *out);

/* The history's and the plan's calls (history.c), out of line: the calls
 * by bands keep no frame. */
void cp__clear_estimated(const struct cp__state *s, enum cp__route r, enum cp__way way,
			 void *addr, size_t npages);
void cp__copy_estimated(const struct cp__state *s, enum cp__way way, void *dst, const void *src,
			size_t npages);

#ifndef CLEARPAGES_FREESTANDING
/* Tests: forget the calling thread's last ranges and its histories. */
void cp__reuse_history_forget(void);
#endif

/* A clear of [addr, addr + npages) on route r, past the argument checks. */
static inline void cp__clear_routed(const struct cp__state *s, enum cp__route r, void *addr,
				    size_t npages)
{
	enum cp__way way = cp__way(&s->policy, r, addr, npages);
	if (__builtin_expect(way == CP__BY_BANDS, 1))
		cp__clear_by(cp__bands_pick(cp__route_bands(&s->policy, r), npages), addr, npages);
	else
		cp__clear_estimated(s, r, way, addr, npages);
}

/* cp_copy_pages past its checks, and cp_copy's whole pages without intent. */
static inline void cp__copy_routed(const struct cp__state *s, void *dst, const void *src,
				   size_t npages)
{
	enum cp__way way = cp__way(&s->policy, CP__ROUTE_COPY, dst, npages);
	if (__builtin_expect(way == CP__BY_BANDS, 1))
		cp__copy_by(cp__copy_bands_pick(&s->policy.copy, npages), dst, src, npages);
	else
		cp__copy_estimated(s, way, dst, src, npages);
}

#endif
