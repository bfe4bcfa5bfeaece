/* SPDX-License-Identifier: MIT */
/*
 * The checked entry points: argument checks exactly as the contract states,
 * then one kernel call. Nothing is written when a check fails. Also the
 * registry's public face (cp_kernels, cp_kernel_find, cp_kernel_for).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include "residency.h"
#include "state.h"
#ifndef CLEARPAGES_FREESTANDING
#include "discard.h"
#include "parallel.h"
#endif

#define CP_STR2(x) #x
#define CP_STR(x) CP_STR2(x)

const char *cp_version(void)
{
	return CP_STR(CP_VERSION_MAJOR) "." CP_STR(CP_VERSION_MINOR) "." CP_STR(CP_VERSION_PATCH);
}

/* cp_clear_pages past its checks, and cp_zero's body: the band's kernel,
 * or, from the extent where the cached and uncached bands part, the
 * estimate's choice. One comparison below it; a small range the thread
 * cleared last is still cached (hosted only, residency.h). */
static inline void clear_any(const struct cp__state *s, void *addr, size_t npages)
{
	if (npages < s->policy.estimate_from_pages
#ifndef CLEARPAGES_FREESTANDING
	    || cp__any_small_again(addr, npages)
#else
	    || npages < CP__HISTORY_BELOW_PAGES   /* no history without TLS: the extent alone */
#endif
	   )
		cp__clear_by(cp__bands_pick(&s->policy.any, npages), addr, npages);
	else
		cp__clear_any_estimated(s, addr, npages);   /* out of line: no plan frame below */
}

/* Non-temporal, unless the target is cached and any's band is temporal
 * there: then a non-temporal store only evicts what is already cached. */
static void clear_cold(const struct cp__state *s, void *addr, size_t npages)
{
	if (npages >= s->policy.cold_estimate_below_pages)
		cp__clear_by(cp__bands_pick(&s->policy.cold, npages), addr, npages);
	else
		cp__clear_cold_estimated(s, addr, npages);
}

/* ---- cp_zero: every intent, any address, any length ---- */

#define ZERO_FLAGS (CP_ZERO_HOT | CP_ZERO_COLD | CP_ZERO_PARALLEL | CP_ZERO_MAY_DISCARD)

#ifndef CLEARPAGES_FREESTANDING
/* The shares of a parallel clear run the intent's plan, made for the whole
 * extent as cp_clear_pages_parallel makes any's. */
static void zero_parallel(const struct cp__state *s, void *addr, size_t npages, unsigned flags)
{
	struct cp__plan pl = { .kernel = cp__bands_pick(&s->policy.hot, npages) };
	if (flags & CP_ZERO_COLD)
		cp__plan_cold(s, npages, &pl);
	else if (!(flags & CP_ZERO_HOT))
		cp__plan_any(s, npages, &pl);
	size_t share = __atomic_load_n(&s->policy.parallel_min_share_pages, __ATOMIC_RELAXED);
	cp__clear_parallel_plan(addr, npages, 0, share ? share : SIZE_MAX, &pl);
}
#endif

/* Whole pages with stores, by intent (the bodies of the page calls). */
static inline void zero_pages_in(const struct cp__state *s, void *addr, size_t npages,
				 unsigned flags)
{
#ifndef CLEARPAGES_FREESTANDING
	if (flags & CP_ZERO_PARALLEL) {
		zero_parallel(s, addr, npages, flags);
		return;
	}
#endif
	if (flags & CP_ZERO_HOT)
		cp__clear_by(cp__bands_pick(&s->policy.hot, npages), addr, npages);
	else if (flags & CP_ZERO_COLD)
		clear_cold(s, addr, npages);
	else
		clear_any(s, addr, npages);
}

static inline void zero_pages(void *addr, size_t npages, unsigned flags)
{
	zero_pages_in(cp__state(), addr, npages, flags);
}

/* A process's first clear: it publishes the state. Out of line, so that the
 * calls after it keep no register across a call but the kernel's. */
static int __attribute__((noinline, cold)) clear_pages_first(void *addr, size_t npages,
							      unsigned flags)
{
	zero_pages_in(cp__state_slow(), addr, npages, flags);
	return 0;
}

/* The three page calls: the contract's checks, then zero_pages with the
 * call's intent (a constant, folded where zero_pages is inlined). */
static inline int clear_pages_checked(void *addr, size_t npages, unsigned flags)
{
	if (npages == 0)
		return 0;
	if (cp__check_pages(addr, npages))
		return -EINVAL;
	const struct cp__state *s = cp__state_published();
	if (__builtin_expect(s == NULL, 0))
		return clear_pages_first(addr, npages, flags);
	zero_pages_in(s, addr, npages, flags);
	return 0;
}

int cp_clear_pages(void *addr, size_t npages)
{
	return clear_pages_checked(addr, npages, 0);
}

int cp_clear_pages_hot(void *addr, size_t npages)
{
	return clear_pages_checked(addr, npages, CP_ZERO_HOT);
}

int cp_clear_pages_cold(void *addr, size_t npages)
{
	return clear_pages_checked(addr, npages, CP_ZERO_COLD);
}

#ifndef CLEARPAGES_FREESTANDING
static void zero_pages_cb(void *addr, size_t npages, void *flags)
{
	zero_pages(addr, npages, *(const unsigned *)flags);
}

/* Untouched ranges are sampled from here: one mincore call is a few percent
 * of storing 4 MiB, and a resident range stops at the first sample. */
#define UNTOUCHED_FROM_PAGES ((size_t)4 << 20 >> 12)

/* The page-aligned middle with MAY_DISCARD: handed back where it may be and
 * pays (common/discard.c), the rest stored. Bytes discarded. HOT never
 * discards: the caller would fault every page straight back in. */
static size_t zero_body(void *addr, size_t npages, unsigned flags)
{
	if ((flags & (CP_ZERO_MAY_DISCARD | CP_ZERO_HOT)) == CP_ZERO_MAY_DISCARD) {
		size_t from = cp__state()->policy.discard_from_pages;
		if (npages >= from)
			return cp__discard(addr, npages, from, zero_pages_cb, &flags);
		if (npages >= UNTOUCHED_FROM_PAGES && cp__untouched(addr, npages))
			return cp__discard(addr, npages, cp__discard_unit() / CP_PAGE_SIZE,
					   zero_pages_cb, &flags);
	}
	zero_pages(addr, npages, flags);
	return 0;
}
#else
static size_t zero_body(void *addr, size_t npages, unsigned flags)
{
	zero_pages(addr, npages, flags);   /* no /proc, no madvise: stores */
	return 0;
}
#endif

int cp_zero_ex(void *addr, size_t len, unsigned flags, size_t *discarded)
{
	if ((flags & ~ZERO_FLAGS) || (flags & (CP_ZERO_HOT | CP_ZERO_COLD)) ==
				     (CP_ZERO_HOT | CP_ZERO_COLD))
		return -EINVAL;
	size_t given_back = 0;
	if (len == 0)
		goto out;
	if (!cp__range_ok(addr, len))
		return -EINVAL;
	uintptr_t start = (uintptr_t)addr, end = start + len;   /* may wrap to 0 */
	uintptr_t body = (start + CP_PAGE_SIZE - 1) & ~(uintptr_t)(CP_PAGE_SIZE - 1);
	uintptr_t body_end = end & ~(uintptr_t)(CP_PAGE_SIZE - 1);
	if (end == 0)           /* the range ends exactly at the top */
		body_end = (uintptr_t)0 - CP_PAGE_SIZE;
	if (body < start || body >= body_end) {          /* no whole page inside */
		memset(addr, 0, len);
		goto out;
	}
	/* no call for an empty head or tail: a zero-length memset is not free (a masked
	 * store in glibc's AVX-512 memset), and page-aligned blocks are the common case */
	if (body != start)
		memset(addr, 0, body - start);
	given_back = zero_body((void *)body, (body_end - body) / CP_PAGE_SIZE, flags);
	if (end != body_end)
		memset((void *)body_end, 0, end - body_end);
out:
	if (discarded)
		*discarded = given_back;
	return 0;
}

int cp_zero(void *addr, size_t len, unsigned flags)
{
	return cp_zero_ex(addr, len, flags, NULL);
}

/* Any address, any length: the whole pages inside through the dispatcher,
 * the head and tail (less than a page each) with ordinary stores. */
int cp_clear(void *addr, size_t len)
{
	return cp_zero_ex(addr, len, 0, NULL);
}

size_t cp_kernels(const struct cp_kernel *const **list)
{
	const struct cp__state *s = cp__state();
	if (list)
		*list = s->kernels.k;
	return s->kernels.n;
}

const struct cp_kernel *cp_kernel_find(const char *name)
{
	return cp__list_find(&cp__state()->kernels, name);
}

const struct cp_kernel *cp_kernel_for(size_t npages)
{
	return cp__pick(npages ? npages : 1);
}
