/* SPDX-License-Identifier: MIT */
/*
 * Copying pages: cp_copy (any bytes, an intent), cp_copy_pages,
 * cp_copy_huge_opts (the walk is huge.c's) with its deprecated alias
 * cp_copy_huge, and the copy registry's public face. Checks first, nothing
 * written when one fails; then the kernel chosen by extent from the
 * published state (state.h: cp__copy_pick; the bands: select.c,
 * copy_bands), or the route where the copy estimate applies (route.h).
 */
#include <string.h>
#include "huge.h"
#include "select.h"
#include "route.h"

int cp_copy_pages(void *dst, const void *src, size_t npages)
{
	const struct cp__state *s = cp__state();    /* first, whatever the arguments */
	if (npages == 0)
		return 0;
	if (cp__check_copy(dst, src, npages))
		return -EINVAL;
	cp__copy_routed(s, dst, src, npages);
	return 0;
}

/* ---- cp_copy: any bytes, the caller's intent ---- */

#define COPY_FLAGS (CP_COPY_HOT | CP_COPY_COLD)

/* The first listed copy kernel of class nt (CP_NONTEMPORAL or 0; the list
 * is ranked): the bands' own stand-in, without preferences. */
static const struct cp_copy_kernel *listed_of_class(const struct cp__state *s, unsigned nt)
{
	return cp__copy_class_pick(&s->copy_kernels, 0, nt);
}

/* CP_COPY_HOT: the copy band's kernel where it is temporal, else the
 * temporal kernel of the nearest band before it (as the clear's hot bands
 * are derived from any's: select.c); none before: the first temporal copy
 * kernel listed. Never the estimate: the caller said where it wants it. */
static const struct cp_copy_kernel *copy_hot_pick(const struct cp__state *s, size_t npages)
{
	const struct cp__copy_bands *b = &s->policy.copy;
#define CP__FROM(i) b->band[i].from_pages
	unsigned i = CP__BAND_INDEX(CP__FROM, npages);
#undef CP__FROM
	for (;; i--) {
		if (!(b->band[i].kernel->flags & CP_NONTEMPORAL))
			return b->band[i].kernel;
		if (i == 0)
			return listed_of_class(s, 0);
	}
}

/* CP_COPY_COLD: the uncached copy band's kernel where it is non-temporal
 * (avx2_nt_pf on the x86 rows), else the non-temporal kernel of the nearest
 * band after it (below where copy_uncached goes non-temporal, the one it
 * goes to), else of the nearest band before it; none at all: the first
 * non-temporal copy kernel listed. */
static const struct cp_copy_kernel *copy_cold_pick(const struct cp__state *s, size_t npages)
{
	const struct cp__copy_bands *b = &s->policy.copy_uncached;
#define CP__FROM(i) b->band[i].from_pages
	unsigned at = CP__BAND_INDEX(CP__FROM, npages);
#undef CP__FROM
	for (unsigned i = at; i < CP__MAX_BANDS; i++)
		if (b->band[i].kernel->flags & CP_NONTEMPORAL)
			return b->band[i].kernel;     /* unused slots repeat the last band's */
	for (unsigned i = at; i-- > 0;)
		if (b->band[i].kernel->flags & CP_NONTEMPORAL)
			return b->band[i].kernel;
	return listed_of_class(s, CP_NONTEMPORAL);
}

static void copy_pages_by_intent(const struct cp__state *s, void *dst, const void *src,
				 size_t npages, unsigned flags)
{
	if (flags & CP_COPY_HOT)
		cp__copy_by(copy_hot_pick(s, npages), dst, src, npages);
	else if (flags & CP_COPY_COLD)
		cp__copy_by(copy_cold_pick(s, npages), dst, src, npages);
	else
		cp__copy_routed(s, dst, src, npages);
}

int cp_copy(void *dst, const void *src, size_t len, unsigned flags)
{
	const struct cp__state *s = cp__state();    /* first, whatever the arguments */
	if (len == 0)
		return 0;
	uintptr_t d = (uintptr_t)dst, r = (uintptr_t)src;
	if ((flags & ~COPY_FLAGS) || flags == COPY_FLAGS || !cp__range_ok(dst, len) ||
	    !cp__range_ok(src, len) || (d < r ? r - d < len : d - r < len))
		return -EINVAL;
	/* bytes to dst's first page boundary; the kernels need both addresses
	 * page-aligned, so src's offset in its page must be dst's */
	size_t head = (size_t)(-d & (CP_PAGE_SIZE - 1));
	if (((d ^ r) & (CP_PAGE_SIZE - 1)) || head > len || len - head < CP_PAGE_SIZE) {
		memcpy(dst, src, len);               /* no whole page to copy by kernel */
		return 0;
	}
	size_t npages = (len - head) / CP_PAGE_SIZE, tail = (len - head) % CP_PAGE_SIZE;
	/* no call for an empty head or tail, as cp_zero's */
	if (head)
		memcpy(dst, src, head);
	copy_pages_by_intent(s, (char *)dst + head, (const char *)src + head, npages, flags);
	if (tail)
		memcpy((char *)dst + (len - tail), (const char *)src + (len - tail), tail);
	return 0;
}

int cp_copy_huge_opts(void *dst, const void *src, size_t npages, size_t hot_idx,
		      const struct cp_huge_opts *opts, const struct cp_copy_kernel *kernel)
{
	return cp__huge_copy(dst, src, npages, hot_idx, opts, kernel);
}

int cp_copy_huge(void *dst, const void *src, size_t npages, size_t hot_idx)
{
	return cp__huge_copy(dst, src, npages, hot_idx, NULL, NULL);
}

size_t cp_copy_kernels(const struct cp_copy_kernel *const **list)
{
	const struct cp__state *s = cp__state();
	if (list)
		*list = s->copy_kernels.k;
	return s->copy_kernels.n;
}

const struct cp_copy_kernel *cp_copy_kernel_find(const char *name)
{
	return cp__copy_list_find(&cp__state()->copy_kernels, name);
}

const struct cp_copy_kernel *cp_copy_kernel_for(size_t npages)
{
	return cp__copy_pick(cp__state(), npages ? npages : 1);
}
