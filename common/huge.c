/* SPDX-License-Identifier: MIT */
/*
 * Huge-extent clearing: cp_clear_huge() and cp_clear_huge_opts().
 *
 * A huge extent of n pages is cleared around a hot page h (the faulting page),
 * in one of the orders Linux used over the years, reproduced exactly. With
 * radius r (saturating arithmetic, r = SIZE_MAX is valid); ranges written
 * [a, b] are inclusive, [a, b) half-open:
 *
 * CP_ORDER_NEIGHBOURHOOD_LAST
 *     folio_zero_user(), "mm: folio_zero_user: cache neighbouring pages"
 *     (Ankur Arora's clear-pages series, v11 8/8, FOLIO_ZERO_LOCALITY_RADIUS 2).
 *     Hot range [max(0, h - r), min(n - 1, h + r)]; clear the pages right of
 *     it, then the pages left of it, then the hot range; empty ranges skipped.
 *     The hot range goes to the temporal kernel so its lines stay cached.
 * CP_ORDER_SEQUENTIAL
 *     clear_contig_highpages() over the whole folio: [0, n) as one range
 *     ("contiguous-page").
 * CP_ORDER_PAGE_AT_A_TIME
 *     the classic clear_huge_page()/clear_gigantic_page() loop: one kernel
 *     call per page, 0 to n - 1 ("discontiguous-page").
 * CP_ORDER_CONVERGE
 *     process_huge_page() as of commit c79b57e462b5 ("mm: hugetlb: clear
 *     target sub-page last when clearing huge page"), one page per call:
 *     if 2h <= n: pages n - 1 down to 2h, then for i in 0 .. h - 1 pages i and
 *     2h - 1 - i; otherwise base = n - 2(n - h): pages 0 .. base - 1, then for
 *     i in 0 .. (n - h) - 1 pages base + i and base + 2(n - h) - 1 - i.
 *     The hot page is always the last one.
 * CP_ORDER_HOT_RANGE_LAST
 *     the "oneshot" process_huge_page() rework (clear from the hot offset
 *     plus CONFIG_HOT_CACHE_RANGE to the end, then from 0): c = min(h + r, n);
 *     [c, n) then [0, c).
 *
 * batch_pages splits every range into chunks of at most that many pages, in
 * ascending address order (CONVERGE and PAGE_AT_A_TIME ranges are one page).
 * between(ctx) runs once between each two consecutive kernel calls (Linux's
 * cond_resched() point), so k calls run it k - 1 times.
 *
 * Kernel choice with opts->kernel NULL: NEIGHBOURHOOD_LAST's hot range takes
 * cp__pick_hot(size of the range), every other range cp__pick(size of the
 * range) -- a page of CONVERGE or PAGE_AT_A_TIME is a range of one page --
 * and, in the public calls, from the extent where the cached and uncached
 * bands part, the residency estimate's choice per batch (residency.h).
 * Both apply CLEARPAGES_KERNEL. An explicit opts->kernel is used everywhere.
 *
 * Copies (cp_copy_huge_opts) walk the same orders over dst, reading the
 * same page of src: the hot range (NEIGHBOURHOOD_LAST) takes the copy band
 * of one page, every other range cp_copy_pages' choice for its size, or the
 * explicit copy kernel everywhere.
 */
#include <errno.h>
#include <stdint.h>
#include "huge.h"
#include "route.h"
#include "state.h"

struct walk {
	uintptr_t base;                   /* integer: extents may pass PTRDIFF_MAX */
	const struct cp__state *copying;  /* copies (cp__huge_copy): the state, else NULL */
	uintptr_t src;                    /* copies: the source's base */
	const struct cp_copy_kernel *copy_kernel;   /* copies: explicit, or NULL */
	size_t batch;                     /* 0: no limit */
	const struct cp_kernel *kernel;   /* explicit, or NULL */
	cp__pick_fn pick, pick_hot;
	void (*between)(void *ctx);
	void *ctx;
	int called;                       /* a kernel call has run */
	const struct cp__state *estimate; /* far ranges as cp_clear_pages, or NULL */
};

/* The next chunk of [first, first + count), count > 0: at most batch pages,
 * with between() run before every chunk but the walk's first. */
static size_t next_chunk(struct walk *w, size_t count)
{
	if (w->called && w->between)
		w->between(w->ctx);
	w->called = 1;
	return (w->batch && w->batch < count) ? w->batch : count;
}

/* Copy pages [first, first + count); hot: the one-page band's kernel. */
static void copy_range(struct walk *w, size_t first, size_t count, int hot)
{
	const struct cp_copy_kernel *k = w->copy_kernel;
	if (!k)
		k = cp__copy_pick(w->copying, hot ? 1 : count);
	while (count) {
		size_t chunk = next_chunk(w, count);
		uintptr_t off = first * (uintptr_t)CP_PAGE_SIZE;
		if (w->copy_kernel)      /* the caller's kernel, on the caller's batches */
			k->copy((void *)(w->base + off), (const void *)(w->src + off), chunk);
		else
			cp__copy_by(k, (void *)(w->base + off), (const void *)(w->src + off), chunk);
		first += chunk;
		count -= chunk;
	}
}

/* Clear (or copy) pages [first, first + count), count may be 0; hot: the
 * temporal pick. */
static void run_range(struct walk *w, size_t first, size_t count, int hot)
{
	struct cp__plan plan = { .kernel = NULL };   /* the policy's; unused with the caller's kernel */
	size_t chunk;

	if (count == 0)
		return;
	if (w->copying) {
		copy_range(w, first, count, hot);
		return;
	}
	if (!w->kernel && !hot && w->estimate)
		cp__plan_for(w->estimate, CP__ROUTE_ANY, count, &plan);
	else if (!w->kernel)
		plan.kernel = hot ? w->pick_hot(count) : w->pick(count);
	while (count) {
		chunk = next_chunk(w, count);
		void *addr = (void *)(w->base + first * (uintptr_t)CP_PAGE_SIZE);
		if (w->kernel)
			w->kernel->clear(addr, chunk);     /* the caller's kernel, on the caller's batches */
		else
			cp__plan_run(&plan, addr, chunk);  /* the policy's: in calls of 4080 KiB at most */
		first += chunk;
		count -= chunk;
	}
}

static void neighbourhood_last(struct walk *w, size_t n, size_t h, size_t r)
{
	size_t lo = h > r ? h - r : 0;
	size_t hi = r > n - 1 - h ? n - 1 : h + r;   /* saturates; h < n */

	run_range(w, hi + 1, n - 1 - hi, 0);          /* right of the hot range */
	run_range(w, 0, lo, 0);                       /* left of it */
	run_range(w, lo, hi - lo + 1, 1);             /* the hot range, last */
}

static void converge(struct walk *w, size_t n, size_t h)
{
	size_t i, base, l;

	if (h <= n - h) {                             /* 2h <= n, without overflow */
		base = 0;
		l = h;
		for (i = n; i-- > 2 * h;)             /* n - 1 down to 2h */
			run_range(w, i, 1, 0);
	} else {
		l = n - h;
		base = n - 2 * l;
		for (i = 0; i < base; i++)
			run_range(w, i, 1, 0);
	}
	for (i = 0; i < l; i++) {
		run_range(w, base + i, 1, 0);
		run_range(w, base + 2 * l - 1 - i, 1, 0);
	}
}

static void hot_range_last(struct walk *w, size_t n, size_t h, size_t r)
{
	size_t c = r >= n - h ? n : h + r;            /* min(h + r, n), saturating */

	run_range(w, c, n - c, 0);
	run_range(w, 0, c, 0);
}

/* The checks both walks share: 0, or -EINVAL. */
static int huge_checks(void *base, size_t npages, size_t hot_idx,
		       const struct cp_huge_opts *opts)
{
	if ((unsigned)opts->order > (unsigned)CP_ORDER_HOT_RANGE_LAST)
		return -EINVAL;
	if (hot_idx >= npages)
		return -EINVAL;
	return cp__check_pages(base, npages);
}

static void walk_init(struct walk *w, void *base, const struct cp_huge_opts *opts)
{
	w->base = (uintptr_t)base;
	w->copying = NULL;
	w->src = 0;
	w->copy_kernel = NULL;
	w->batch = opts->batch_pages;
	w->kernel = opts->kernel;
	w->pick = w->pick_hot = NULL;
	w->between = opts->between;
	w->ctx = opts->ctx;
	w->called = 0;
	w->estimate = NULL;
}

static void walk(struct walk *w, size_t npages, size_t hot_idx, const struct cp_huge_opts *opts)
{
	size_t i;

	switch (opts->order) {
	case CP_ORDER_NEIGHBOURHOOD_LAST:
		neighbourhood_last(w, npages, hot_idx, opts->radius);
		break;
	case CP_ORDER_SEQUENTIAL:
		run_range(w, 0, npages, 0);
		break;
	case CP_ORDER_PAGE_AT_A_TIME:
		for (i = 0; i < npages; i++)
			run_range(w, i, 1, 0);
		break;
	case CP_ORDER_CONVERGE:
		converge(w, npages, hot_idx);
		break;
	case CP_ORDER_HOT_RANGE_LAST:
		hot_range_last(w, npages, hot_idx, opts->radius);
		break;
	}
}

static const struct cp_huge_opts huge_defaults = CP_HUGE_OPTS_INIT;

static int huge_clear(void *base, size_t npages, size_t hot_idx,
		      const struct cp_huge_opts *opts,
		      cp__pick_fn pick, cp__pick_fn pick_hot, int estimate)
{
	struct walk w;

	cp__initialise();
	if (npages == 0)
		return 0;
	if (!opts)
		opts = &huge_defaults;
	if (huge_checks(base, npages, hot_idx, opts) || (opts->kernel && !opts->kernel->clear))
		return -EINVAL;
	walk_init(&w, base, opts);
	w.pick = pick;
	w.pick_hot = pick_hot;
	w.estimate = estimate ? cp__state() : NULL;
	walk(&w, npages, hot_idx, opts);
	return 0;
}

int cp__huge_copy(void *dst, const void *src, size_t npages, size_t hot_idx,
		  const struct cp_huge_opts *opts, const struct cp_copy_kernel *kernel)
{
	struct walk w;

	cp__initialise();
	if (npages == 0)
		return 0;
	if (!opts)
		opts = &huge_defaults;
	if (huge_checks(dst, npages, hot_idx, opts) || opts->kernel ||
	    (kernel && !kernel->copy) || cp__check_copy(dst, src, npages))
		return -EINVAL;
	walk_init(&w, dst, opts);
	w.copying = cp__state();
	w.src = (uintptr_t)src;
	w.copy_kernel = kernel;
	walk(&w, npages, hot_idx, opts);
	return 0;
}

int cp__huge_clear(void *base, size_t npages, size_t hot_idx,
		   const struct cp_huge_opts *opts,
		   cp__pick_fn pick, cp__pick_fn pick_hot)
{
	return huge_clear(base, npages, hot_idx, opts, pick, pick_hot, 0);
}

int cp_clear_huge_opts(void *base, size_t npages, size_t hot_idx,
		       const struct cp_huge_opts *opts)
{
	return huge_clear(base, npages, hot_idx, opts, cp__pick, cp__pick_hot, 1);
}

int cp_clear_huge(void *base, size_t npages, size_t hot_idx)
{
	return huge_clear(base, npages, hot_idx, NULL, cp__pick, cp__pick_hot, 1);
}
