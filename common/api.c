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

#define CP_STR2(x) #x
#define CP_STR(x) CP_STR2(x)

const char *cp_version(void)
{
	return CP_STR(CP_VERSION_MAJOR) "." CP_STR(CP_VERSION_MINOR) "." CP_STR(CP_VERSION_PATCH);
}

/* [addr, addr + len) with len > 0 must not pass the top of the address space. */
static int range_ok(const void *addr, size_t len)
{
	return addr && len - 1 <= UINTPTR_MAX - (uintptr_t)addr;
}

int cp__check_pages(const void *addr, size_t npages)
{
	if (!addr || ((uintptr_t)addr & (CP_PAGE_SIZE - 1)) ||
	    npages > SIZE_MAX / CP_PAGE_SIZE || !range_ok(addr, npages * CP_PAGE_SIZE))
		return -EINVAL;
	return 0;
}

/* cp_clear_pages past its checks, and cp_clear's body: the band's kernel,
 * or, from the extent where the cached and uncached bands part, the
 * estimate's choice (common/residency.h). One comparison below it. */
static inline void clear_any(void *addr, size_t npages)
{
	const struct cp__state *s = cp__state();
	if (npages < s->policy.estimate_from_pages) {
		cp__bands_pick(&s->policy.any, npages)->clear(addr, npages);
		return;
	}
	struct cp__plan pl;
	cp__plan_any(s, npages, &pl);
	cp__plan_run(&pl, addr, npages);
}

int cp_clear_pages(void *addr, size_t npages)
{
	if (npages == 0)
		return 0;
	if (cp__check_pages(addr, npages))
		return -EINVAL;
	clear_any(addr, npages);
	return 0;
}

int cp_clear_pages_hot(void *addr, size_t npages)
{
	if (npages == 0)
		return 0;
	if (cp__check_pages(addr, npages))
		return -EINVAL;
	cp__pick_hot(npages)->clear(addr, npages);
	return 0;
}

/* Non-temporal, unless the target is cached and any's band is temporal
 * there: then a non-temporal store only evicts what is already cached. */
int cp_clear_pages_cold(void *addr, size_t npages)
{
	if (npages == 0)
		return 0;
	if (cp__check_pages(addr, npages))
		return -EINVAL;
	const struct cp__state *s = cp__state();
	if (npages >= s->policy.cold_estimate_below_pages)
		cp__bands_pick(&s->policy.cold, npages)->clear(addr, npages);
	else
		cp__clear_cold_estimated(s, addr, npages);
	return 0;
}

/* Any address, any length: the whole pages inside through the dispatcher,
 * the head and tail (less than a page each) with ordinary stores. */
int cp_clear(void *addr, size_t len)
{
	if (len == 0)
		return 0;
	if (!range_ok(addr, len))
		return -EINVAL;
	uintptr_t start = (uintptr_t)addr, end = start + len;   /* may wrap to 0 */
	uintptr_t body = (start + CP_PAGE_SIZE - 1) & ~(uintptr_t)(CP_PAGE_SIZE - 1);
	uintptr_t body_end = end & ~(uintptr_t)(CP_PAGE_SIZE - 1);
	if (end == 0)           /* the range ends exactly at the top */
		body_end = (uintptr_t)0 - CP_PAGE_SIZE;
	if (body < start || body >= body_end) {          /* no whole page inside */
		memset(addr, 0, len);
		return 0;
	}
	/* no call for an empty head or tail: a zero-length memset is not free (a masked
	 * store in glibc's AVX-512 memset), and page-aligned blocks are the common case */
	if (body != start)
		memset(addr, 0, body - start);
	clear_any((void *)body, (body_end - body) / CP_PAGE_SIZE);
	if (end != body_end)
		memset((void *)body_end, 0, end - body_end);
	return 0;
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
