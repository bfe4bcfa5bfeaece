/* SPDX-License-Identifier: MIT */
/*
 * The extent policy: ordered lists of extent bands, [from_pages, kernel]
 * ascending, the first from 0. Four lists, for three calls and two kinds of
 * memory:
 *   any       cp_clear_pages, cp_zero's body, the huge orders' far ranges and
 *             parallel shares, on memory in the caches
 *   uncached  the same calls on memory that is not (common/residency.c tells)
 *   hot       temporal kernels only: CP_ZERO_HOT, the hot range
 *   cold      non-temporal kernels only: CP_ZERO_COLD on memory that is
 *             not cached; on cached memory it takes any's kernel where that is
 *             temporal (a non-temporal store of a cached line saves nothing)
 * plus the residency threshold and the parallel split. Built by
 * common/select.c; part of the published state (common/state.h), so never
 * written once a reader can see it.
 */
#ifndef CP_POLICY_H
#define CP_POLICY_H

#include <stddef.h>
#include <stdint.h>
#include "cp_public.h"

#define CP__MAX_BANDS 8
/* Copies below 16 KiB go by extent alone, never estimated: on the Zen 3
 * copy sweep a temporal 4 KiB copy served cold and then-read targets alike
 * (avx2 0.78 of the best for both against avx2_nt's 0.64:
 * tests/data/amd-zen3-copy.csv); from 16 KiB the non-temporal one did. */
#define CP__COPY_ESTIMATE_MIN_PAGES 4
/* from_pages of an unused band: no extent reaches it (npages <= SIZE_MAX / 4096). */
#define CP__BAND_UNUSED SIZE_MAX

struct cp__band {
	size_t from_pages;
	const struct cp_kernel *kernel;
};

/* Every slot holds a kernel (unused ones repeat the last band's, from
 * CP__BAND_UNUSED), so the lookup needs no count. */
struct cp__bands {
	struct cp__band band[CP__MAX_BANDS];
};

/* The copy policy: the same bands, of copy kernels (cp_copy_pages). */
struct cp__copy_band {
	size_t from_pages;
	const struct cp_copy_kernel *kernel;
};
struct cp__copy_bands {
	struct cp__copy_band band[CP__MAX_BANDS];
};

struct cp__policy {
	struct cp__bands any, hot, cold, uncached;
	/* A temporal clear of the first chunk at this rate or faster (MB/s,
	 * 10^6 bytes/s) says the target is cached; 0 = never estimate. */
	unsigned cached_min_mbps;
	/* Derived by cp__policy_finish: the smallest extent at which any and
	 * uncached differ (CP__BAND_UNUSED: never), and the extent below which
	 * cold may meet a temporal any band (0: never). */
	size_t estimate_from_pages, cold_estimate_below_pages;
	/* Smallest share cp_clear_pages_parallel gives a thread; 0 = never split. */
	size_t parallel_min_share_pages;
	/* cp_zero(CP_ZERO_MAY_DISCARD): the smallest part of private anonymous
	 * memory handed back with madvise rather than stored; CP__BAND_UNUSED:
	 * never (common/discard.c). */
	size_t discard_from_pages;
	/* cp_copy_pages and the copy walks: a built-in row's copy bands, else
	 * any's, each kernel's copy counterpart at the same extent
	 * (cp__copy_bands_derive). */
	struct cp__copy_bands copy;
	/* The same on memory not in the cache, where the thread's copy history
	 * says so (history.c): copy's bands below where the uncached bands go
	 * non-temporal, from there their kernels' copy counterparts,
	 * prefetching (copy_bands.c, derive_uncached). copy_estimate_from_pages
	 * (cp__policy_finish): the first extent where the two differ, never
	 * below CP__COPY_ESTIMATE_MIN_PAGES (CP__BAND_UNUSED: never
	 * estimated). */
	struct cp__copy_bands copy_uncached;
	size_t copy_estimate_from_pages;
};

/* The band of npages: ascending scan, so a one-page clear costs one
 * comparison and the worst case (past every boundary) eight. FROM(i) is
 * band i's from_pages (clear and copy bands alike). */
#define CP__BAND_INDEX(FROM, npages) __extension__ ({                        \
	unsigned i_ = 0;                                                       \
	if ((npages) >= FROM(1)) {   /* else straight-line: the small call */  \
		i_ = 1;                                                        \
		while (i_ + 1 < CP__MAX_BANDS && (npages) >= FROM(i_ + 1))     \
			i_++;                                                  \
	}                                                                      \
	i_; })
static inline const struct cp_kernel *cp__bands_pick(const struct cp__bands *b, size_t npages)
{
#define CP__FROM(i) b->band[i].from_pages
	return b->band[CP__BAND_INDEX(CP__FROM, npages)].kernel;
#undef CP__FROM
}
static inline const struct cp_copy_kernel *cp__copy_bands_pick(const struct cp__copy_bands *b,
							       size_t npages)
{
#define CP__FROM(i) b->band[i].from_pages
	return b->band[CP__BAND_INDEX(CP__FROM, npages)].kernel;
#undef CP__FROM
}

/* Bands in use (1 .. CP__MAX_BANDS). */
static inline unsigned cp__bands_count(const struct cp__bands *b)
{
	unsigned n = 1;
	while (n < CP__MAX_BANDS && b->band[n].from_pages != CP__BAND_UNUSED)
		n++;
	return n;
}

/* Where a band list first goes non-temporal; CP__BAND_UNUSED: never. */
static inline size_t cp__bands_nt_from(const struct cp__bands *b)
{
	unsigned n = cp__bands_count(b);
	for (unsigned i = 0; i < n; i++)
		if (b->band[i].kernel->flags & CP_NONTEMPORAL)
			return b->band[i].from_pages;
	return CP__BAND_UNUSED;
}

/* Where cp_clear_pages first goes non-temporal on cached memory. */
static inline size_t cp__policy_nt_from(const struct cp__policy *p)
{
	return cp__bands_nt_from(&p->any);
}

/* Two policies hold the same choices. Field by field, never memcmp: the
 * struct has padding (after cached_min_mbps) that a policy built on the
 * stack leaves uninitialised. */
static inline int cp__bands_eq(const struct cp__bands *a, const struct cp__bands *b)
{
	for (unsigned i = 0; i < CP__MAX_BANDS; i++)
		if (a->band[i].from_pages != b->band[i].from_pages ||
		    a->band[i].kernel != b->band[i].kernel)
			return 0;
	return 1;
}
static inline int cp__copy_bands_eq(const struct cp__copy_bands *a, const struct cp__copy_bands *b)
{
	for (unsigned i = 0; i < CP__MAX_BANDS; i++)
		if (a->band[i].from_pages != b->band[i].from_pages ||
		    a->band[i].kernel != b->band[i].kernel)
			return 0;
	return 1;
}
static inline int cp__policy_eq(const struct cp__policy *a, const struct cp__policy *b)
{
	return cp__bands_eq(&a->any, &b->any) && cp__bands_eq(&a->hot, &b->hot) &&
	       cp__bands_eq(&a->cold, &b->cold) && cp__bands_eq(&a->uncached, &b->uncached) &&
	       a->cached_min_mbps == b->cached_min_mbps &&
	       a->estimate_from_pages == b->estimate_from_pages &&
	       a->cold_estimate_below_pages == b->cold_estimate_below_pages &&
	       a->parallel_min_share_pages == b->parallel_min_share_pages &&
	       a->discard_from_pages == b->discard_from_pages &&
	       cp__copy_bands_eq(&a->copy, &b->copy) &&
	       cp__copy_bands_eq(&a->copy_uncached, &b->copy_uncached) &&
	       a->copy_estimate_from_pages == b->copy_estimate_from_pages;
}

/* The derived fields of p from its bands and threshold (select.c; anything
 * that builds a policy by hand calls it before publishing). */
void cp__policy_finish(struct cp__policy *p);

#endif
