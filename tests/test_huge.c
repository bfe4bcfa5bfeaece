/* SPDX-License-Identifier: MIT */
/*
 * cp_clear_huge / cp_clear_huge_opts.
 *
 * The sequence tests pass a recording kernel and a fake, never-dereferenced
 * base: they touch no memory, so they stay cheap under qemu. Each expected
 * sequence comes from a reference written literally from the issue (and, for
 * NEIGHBOURHOOD_LAST and CONVERGE, from the Linux code's own signed clamps and
 * loops), never from the implementation. A few tests clear real, guarded memory.
 */
#include "testutil.h"
#include "testhooks.h"
#include <errno.h>
#include <stdio.h>

#define FAKE_BASE ((void *)((uintptr_t)1 << 40))
#define MAXEV 4096

/* ---- the recorder ------------------------------------------------------ */

struct event { char kind; size_t first, count; const char *kernel; };
static struct {
	uintptr_t base;
	size_t n;
	struct event ev[MAXEV];
	size_t nev, ncalls, nbetween, npicks;
	size_t pick_size[MAXEV];
	char pick_kind[MAXEV];       /* 'p' cp__pick, 'h' cp__pick_hot */
} rec;

static void rec_reset(void *base, size_t n)
{
	memset(&rec, 0, sizeof(rec));
	rec.base = (uintptr_t)base;
	rec.n = n;
}

static void rec_call(const char *name, void *addr, size_t npages)
{
	uintptr_t a = (uintptr_t)addr;

	cr_assert(a >= rec.base && (a - rec.base) % PG == 0,
		  "kernel called at %p, base %p", addr, (void *)rec.base);
	cr_assert(rec.nev < MAXEV, "too many events");
	rec.ev[rec.nev++] = (struct event){ 'K', (a - rec.base) / PG, npages, name };
	rec.ncalls++;
}
static void rec_clear(void *addr, size_t npages) { rec_call("rec", addr, npages); }
static void rec_clear_hot(void *addr, size_t npages) { rec_call("hot", addr, npages); }
static void rec_clear_pol(void *addr, size_t npages) { rec_call("policy", addr, npages); }
static void rec_between(void *ctx)
{
	cr_assert(ctx == &rec, "between got ctx %p", ctx);
	cr_assert(rec.nev < MAXEV, "too many events");
	rec.ev[rec.nev++] = (struct event){ 'B', 0, 0, NULL };
	rec.nbetween++;
}
static const struct cp_kernel rec_kernel = { "rec", "test", 0, rec_clear };
static const struct cp_kernel hot_kernel = { "hot", "test", 0, rec_clear_hot };
static const struct cp_kernel pol_kernel = { "policy", "test", 0, rec_clear_pol };

static const struct cp_kernel *rec_pick(size_t n)
{
	rec.pick_size[rec.npicks] = n;
	rec.pick_kind[rec.npicks++] = 'p';
	return &pol_kernel;
}
static const struct cp_kernel *rec_pick_hot(size_t n)
{
	rec.pick_size[rec.npicks] = n;
	rec.pick_kind[rec.npicks++] = 'h';
	return &hot_kernel;
}

/* ---- the reference, literally from the definitions ---------------------- */

struct plan { size_t len; size_t first[MAXEV], count[MAXEV]; };

/* Inclusive page range [a, b] (empty when b < a), split into batches. */
static void ref_range(struct plan *p, long long a, long long b, size_t batch)
{
	long long step = batch ? (long long)batch : b - a + 1;

	for (long long s = a; s <= b; s += step) {
		long long e = s + step - 1 < b ? s + step - 1 : b;
		p->first[p->len] = (size_t)s;
		p->count[p->len++] = (size_t)(e - s + 1);
	}
}

static long long clampll(long long v, long long lo, long long hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static void ref_plan(struct plan *p, enum cp_order order, size_t n_, size_t h_,
		     size_t r_, size_t batch)
{
	long long n = (long long)n_, h = (long long)h_, r = (long long)r_;

	p->len = 0;
	switch (order) {
	case CP_ORDER_NEIGHBOURHOOD_LAST: {
		/* folio_zero_user(): r[2] hot, r[1] left, r[0] right; cleared r[0], r[1], r[2] */
		long long hs = clampll(h - r, 0, n - 1), he = clampll(h + r, 0, n - 1);
		long long ls = 0, le = clampll(hs - 1, -1, hs);
		long long rs = clampll(he + 1, he, n), re = n - 1;
		ref_range(p, rs, re, batch);
		ref_range(p, ls, le, batch);
		ref_range(p, hs, he, batch);
		break;
	}
	case CP_ORDER_SEQUENTIAL:
		ref_range(p, 0, n - 1, batch);
		break;
	case CP_ORDER_PAGE_AT_A_TIME:
		for (long long i = 0; i < n; i++)
			ref_range(p, i, i, 0);
		break;
	case CP_ORDER_CONVERGE: {
		/* process_huge_page() before the oneshot rework */
		long long i, base, l;
		if (2 * h <= n) {
			base = 0;
			l = h;
			for (i = n - 1; i >= 2 * h; i--)
				ref_range(p, i, i, 0);
		} else {
			base = n - 2 * (n - h);
			l = n - h;
			for (i = 0; i < base; i++)
				ref_range(p, i, i, 0);
		}
		for (i = 0; i < l; i++) {
			ref_range(p, base + i, base + i, 0);
			ref_range(p, base + 2 * l - 1 - i, base + 2 * l - 1 - i, 0);
		}
		break;
	}
	case CP_ORDER_HOT_RANGE_LAST: {
		long long c = h + r < n ? h + r : n;
		ref_range(p, c, n - 1, batch);
		ref_range(p, 0, c - 1, batch);
		break;
	}
	}
}

/* ---- checks ------------------------------------------------------------ */

/* Events are K (B K)*, k - 1 betweens, every page exactly once, calls == plan. */
static void check_events(const struct plan *p, const char *what)
{
	static unsigned char seen[1024];
	size_t k = 0;

	cr_assert(rec.n <= sizeof(seen));
	memset(seen, 0, rec.n);
	for (size_t i = 0; i < rec.nev; i++) {
		const struct event *e = &rec.ev[i];
		cr_assert_eq(e->kind, (i % 2) ? 'B' : 'K', "%s: event %zu is %c", what, i, e->kind);
		if (e->kind != 'K')
			continue;
		cr_assert(k < p->len, "%s: call %zu [%zu +%zu] not expected", what, k, e->first, e->count);
		cr_assert(e->first == p->first[k] && e->count == p->count[k],
			  "%s: call %zu is [%zu +%zu], expected [%zu +%zu]", what, k,
			  e->first, e->count, p->first[k], p->count[k]);
		cr_assert(e->count >= 1 && e->first < rec.n && e->count <= rec.n - e->first,
			  "%s: call %zu out of range", what, k);
		for (size_t pg = e->first; pg < e->first + e->count; pg++)
			cr_assert_eq(seen[pg]++, 0, "%s: page %zu cleared twice", what, pg);
		k++;
	}
	cr_assert_eq(k, p->len, "%s: %zu calls, expected %zu", what, k, p->len);
	cr_assert_eq(rec.nbetween, k ? k - 1 : 0, "%s: %zu betweens for %zu calls", what,
		     rec.nbetween, k);
	for (size_t pg = 0; pg < rec.n; pg++)
		cr_assert_eq(seen[pg], 1, "%s: page %zu not cleared", what, pg);
}

static const char *const order_name[] = {
	"NEIGHBOURHOOD_LAST", "SEQUENTIAL", "PAGE_AT_A_TIME", "CONVERGE", "HOT_RANGE_LAST"
};

static void check_grid(enum cp_order order)
{
	static const size_t ns[] = { 1, 2, 5, 512 }, rs[] = { 0, 2, 8 }, bs[] = { 0, 1, 7, 64 };
	static struct plan p;
	char what[160];
	size_t runs = 0;

	for (size_t in = 0; in < 4; in++) {
		size_t n = ns[in];
		/* h in {0, 1, 2, middle, n-3, n-1}, out-of-range values skipped */
		long long hs[] = { 0, 1, 2, (long long)n / 2, (long long)n - 3, (long long)n - 1 };
		for (size_t ih = 0; ih < 6; ih++) {
			if (hs[ih] < 0 || hs[ih] >= (long long)n)
				continue;
			for (size_t ir = 0; ir < 3; ir++)
				for (size_t ib = 0; ib < 4; ib++) {
					size_t h = (size_t)hs[ih];
					struct cp_huge_opts o = { order, rs[ir], bs[ib], &rec_kernel,
								  rec_between, &rec };
					snprintf(what, sizeof(what), "%s n=%zu h=%zu r=%zu batch=%zu",
						 order_name[order], n, h, rs[ir], bs[ib]);
					rec_reset(FAKE_BASE, n);
					cr_assert_eq(cp_clear_huge_opts(FAKE_BASE, n, h, &o), 0, "%s", what);
					ref_plan(&p, order, n, h, rs[ir], bs[ib]);
					check_events(&p, what);
					runs++;
				}
		}
	}
	cr_assert_gt(runs, 200);
}

Test(huge_order, neighbourhood_last) { check_grid(CP_ORDER_NEIGHBOURHOOD_LAST); }
Test(huge_order, sequential) { check_grid(CP_ORDER_SEQUENTIAL); }
Test(huge_order, page_at_a_time) { check_grid(CP_ORDER_PAGE_AT_A_TIME); }
Test(huge_order, converge) { check_grid(CP_ORDER_CONVERGE); }
Test(huge_order, hot_range_last) { check_grid(CP_ORDER_HOT_RANGE_LAST); }

/* The examples of docs/dispatch.md ("Example: n = 8, h = 5, r = 1, no
 * batching"), written out by hand: n = 8, r = 1. */
Test(huge_order, readme_examples)
{
	static const struct {
		enum cp_order order;
		size_t h, batch, ncalls;
		long long call[8][2];            /* inclusive page ranges, in call order */
	} ex[] = {
		{ CP_ORDER_NEIGHBOURHOOD_LAST, 5, 0, 3, { { 7, 7 }, { 0, 3 }, { 4, 6 } } },
		{ CP_ORDER_SEQUENTIAL, 5, 0, 1, { { 0, 7 } } },
		{ CP_ORDER_PAGE_AT_A_TIME, 5, 0, 8, { { 0, 0 }, { 1, 1 }, { 2, 2 }, { 3, 3 },
						      { 4, 4 }, { 5, 5 }, { 6, 6 }, { 7, 7 } } },
		{ CP_ORDER_CONVERGE, 5, 0, 8, { { 0, 0 }, { 1, 1 }, { 2, 2 }, { 7, 7 },
						{ 3, 3 }, { 6, 6 }, { 4, 4 }, { 5, 5 } } },
		{ CP_ORDER_HOT_RANGE_LAST, 5, 0, 2, { { 6, 7 }, { 0, 5 } } },
		{ CP_ORDER_CONVERGE, 2, 0, 8, { { 7, 7 }, { 6, 6 }, { 5, 5 }, { 4, 4 },
						{ 0, 0 }, { 3, 3 }, { 1, 1 }, { 2, 2 } } },
		{ CP_ORDER_NEIGHBOURHOOD_LAST, 5, 3, 4, { { 7, 7 }, { 0, 2 }, { 3, 3 }, { 4, 6 } } },
		{ CP_ORDER_PAGE_AT_A_TIME, 5, 3, 8, { { 0, 0 }, { 1, 1 }, { 2, 2 }, { 3, 3 },
						      { 4, 4 }, { 5, 5 }, { 6, 6 }, { 7, 7 } } },
	};
	static struct plan p;
	char what[64];

	for (size_t e = 0; e < sizeof(ex) / sizeof(ex[0]); e++) {
		struct cp_huge_opts o = { ex[e].order, 1, ex[e].batch, &rec_kernel, rec_between, &rec };
		snprintf(what, sizeof(what), "%s h=%zu batch=%zu", order_name[ex[e].order], ex[e].h,
			 ex[e].batch);
		rec_reset(FAKE_BASE, 8);
		cr_assert_eq(cp_clear_huge_opts(FAKE_BASE, 8, ex[e].h, &o), 0, "%s", what);
		p.len = 0;
		for (size_t i = 0; i < ex[e].ncalls; i++)
			ref_range(&p, ex[e].call[i][0], ex[e].call[i][1], 0);
		check_events(&p, what);
		cr_assert_eq(rec.nbetween, ex[e].ncalls - 1, "%s", what);
	}
}

/* Saturating radius: h + r must not wrap, h - r must not go below 0. */
Test(huge_order, radius_saturates)
{
	static const size_t radii[] = { SIZE_MAX, SIZE_MAX - 3, SIZE_MAX - 5, (size_t)1 << 63 };
	static struct plan p;

	for (size_t i = 0; i < 4; i++) {
		struct cp_huge_opts o = { CP_ORDER_NEIGHBOURHOOD_LAST, radii[i], 3, &rec_kernel,
					  rec_between, &rec };
		rec_reset(FAKE_BASE, 8);
		cr_assert_eq(cp_clear_huge_opts(FAKE_BASE, 8, 5, &o), 0);
		p.len = 0;
		ref_range(&p, 0, 7, 3);                /* the hot range is everything */
		check_events(&p, "NEIGHBOURHOOD_LAST huge radius");

		o.order = CP_ORDER_HOT_RANGE_LAST;
		rec_reset(FAKE_BASE, 8);
		cr_assert_eq(cp_clear_huge_opts(FAKE_BASE, 8, 5, &o), 0);
		check_events(&p, "HOT_RANGE_LAST huge radius");   /* c = n: [0, 8) */
	}
}

/* h and n near the top of the valid range (fake base, never dereferenced). */
static void check_call(size_t ev, size_t first, size_t count)
{
	cr_assert(ev < rec.nev && rec.ev[ev].kind == 'K' && rec.ev[ev].first == first &&
		  rec.ev[ev].count == count, "event %zu: want [%zu +%zu]", ev, first, count);
}

Test(huge_order, big_counts)
{
	const size_t n = SIZE_MAX / PG - 1;            /* base PG + n pages ends at the top */
	struct cp_huge_opts o = { CP_ORDER_HOT_RANGE_LAST, 2, 0, &rec_kernel, rec_between, &rec };

	rec_reset((void *)PG, 0);                     /* c = n - 1: [n-1, n) then [0, n-1) */
	cr_assert_eq(cp_clear_huge_opts((void *)PG, n, n - 3, &o), 0);
	cr_assert_eq(rec.nev, 3);
	check_call(0, n - 1, 1);
	check_call(2, 0, n - 1);

	o.radius = SIZE_MAX;                           /* c = n: [0, n) */
	rec_reset((void *)PG, 0);
	cr_assert_eq(cp_clear_huge_opts((void *)PG, n, n - 1, &o), 0);
	cr_assert_eq(rec.nev, 1);
	check_call(0, 0, n);

	o.order = CP_ORDER_NEIGHBOURHOOD_LAST;         /* hot [0, n-1]: one call */
	rec_reset((void *)PG, 0);
	cr_assert_eq(cp_clear_huge_opts((void *)PG, n, n - 1, &o), 0);
	cr_assert_eq(rec.nev, 1);
	check_call(0, 0, n);

	o.radius = 2;                                  /* left [0, n-3), hot [n-3, n-1] */
	rec_reset((void *)PG, 0);
	cr_assert_eq(cp_clear_huge_opts((void *)PG, n, n - 1, &o), 0);
	cr_assert_eq(rec.nev, 3);
	check_call(0, 0, n - 3);
	check_call(2, n - 3, 3);

	o.radius = SIZE_MAX - 1;                       /* h = 1: h + r wraps if unsaturated */
	rec_reset((void *)PG, 0);
	cr_assert_eq(cp_clear_huge_opts((void *)PG, n, 1, &o), 0);
	cr_assert_eq(rec.nev, 1);
	check_call(0, 0, n);
}

/* kernel NULL: NEIGHBOURHOOD_LAST's hot range from pick_hot, every other range from
 * the extent policy for that range's size (a CONVERGE / PAGE_AT_A_TIME page: 1). */
Test(huge_kernel, null_kernel_choice)
{
	struct cp_huge_opts o = { CP_ORDER_NEIGHBOURHOOD_LAST, 1, 2, NULL, rec_between, &rec };
	static const char *const want[] = { "policy", "policy", "policy", "hot", "hot" };

	/* n = 8, h = 5, r = 1, batch 2: [7,7] [0,3] [4,6] -> calls 7 | 0-1 2-3 | 4-5 6 */
	rec_reset(FAKE_BASE, 8);
	cr_assert_eq(cp__huge_clear(FAKE_BASE, 8, 5, &o, rec_pick, rec_pick_hot), 0);
	cr_assert_eq(rec.npicks, 3, "one pick per range, not per batch");
	cr_assert(rec.pick_kind[0] == 'p' && rec.pick_size[0] == 1);
	cr_assert(rec.pick_kind[1] == 'p' && rec.pick_size[1] == 4);
	cr_assert(rec.pick_kind[2] == 'h' && rec.pick_size[2] == 3);
	cr_assert_eq(rec.ncalls, 5);
	for (size_t i = 0; i < 5; i++)
		cr_assert_str_eq(rec.ev[2 * i].kernel, want[i], "call %zu", i);

	/* every other order: cp__pick only, with each range's size */
	static const size_t sizes[5][9] = {
		{ 0 }, { 8 }, { 1, 1, 1, 1, 1, 1, 1, 1 }, { 1, 1, 1, 1, 1, 1, 1, 1 }, { 2, 6 } };
	static const size_t npicks[5] = { 0, 1, 8, 8, 2 };
	for (int ord = 1; ord < 5; ord++) {
		o.order = (enum cp_order)ord;
		o.batch_pages = 0;
		rec_reset(FAKE_BASE, 8);
		cr_assert_eq(cp__huge_clear(FAKE_BASE, 8, 5, &o, rec_pick, rec_pick_hot), 0);
		cr_assert_eq(rec.npicks, npicks[ord], "%s", order_name[ord]);
		for (size_t i = 0; i < rec.npicks; i++)
			cr_assert(rec.pick_kind[i] == 'p' && rec.pick_size[i] == sizes[ord][i],
				  "%s pick %zu: %c %zu", order_name[ord], i, rec.pick_kind[i],
				  rec.pick_size[i]);
		for (size_t i = 0; i < rec.nev; i += 2)
			cr_assert_str_eq(rec.ev[i].kernel, "policy");
	}

	/* an explicit kernel: no pick at all */
	for (int ord = 0; ord < 5; ord++) {
		struct cp_huge_opts e = { (enum cp_order)ord, 1, 0, &rec_kernel, NULL, NULL };
		rec_reset(FAKE_BASE, 8);
		cr_assert_eq(cp__huge_clear(FAKE_BASE, 8, 5, &e, rec_pick, rec_pick_hot), 0);
		cr_assert_eq(rec.npicks, 0);
		for (size_t i = 0; i < rec.nev; i++)
			cr_assert_str_eq(rec.ev[i].kernel, "rec");
	}
}

/* opts NULL is CP_HUGE_OPTS_INIT: NEIGHBOURHOOD_LAST, radius 2, no batching. */
Test(huge_kernel, null_opts_is_init)
{
	static struct plan p;
	const struct cp_huge_opts init = CP_HUGE_OPTS_INIT;

	cr_assert_eq(init.order, CP_ORDER_NEIGHBOURHOOD_LAST);
	cr_assert_eq(init.radius, 2);
	cr_assert_eq(init.batch_pages, 0);
	cr_assert_null(init.kernel);
	rec_reset(FAKE_BASE, 16);
	cr_assert_eq(cp__huge_clear(FAKE_BASE, 16, 9, NULL, rec_pick, rec_pick_hot), 0);
	ref_plan(&p, CP_ORDER_NEIGHBOURHOOD_LAST, 16, 9, 2, 0);   /* [12,15] [0,6] [7,11] */
	cr_assert_eq(p.len, 3);
	for (size_t i = 0; i < rec.nev; i++)
		cr_assert(rec.ev[i].first == p.first[i] && rec.ev[i].count == p.count[i]);
	cr_assert_eq(rec.nev, 3);
	cr_assert_str_eq(rec.ev[2].kernel, "hot");
}

/* ---- bad input ---------------------------------------------------------- */

static const struct cp_kernel null_clear = { "null", "test", 0, NULL };

/* npages == 0 returns 0 before any other check. */
Test(huge_bad, zero_pages_first)
{
	struct cp_huge_opts o = { (enum cp_order)99, 0, 0, &null_clear, rec_between, &rec };

	rec_reset(FAKE_BASE, 0);
	cr_assert_eq(cp_clear_huge(NULL, 0, 0), 0);
	cr_assert_eq(cp_clear_huge((void *)1, 0, 7), 0);
	cr_assert_eq(cp_clear_huge_opts(NULL, 0, SIZE_MAX, &o), 0);
	cr_assert_eq(cp_clear_huge_opts((void *)3, 0, 0, NULL), 0);
	cr_assert_eq(rec.nev, 0);
}

/* -EINVAL, nothing called, for each bad argument (fake base, recording kernel). */
Test(huge_bad, einval_recorded)
{
	struct cp_huge_opts o = { CP_ORDER_SEQUENTIAL, 2, 0, &rec_kernel, rec_between, &rec };
	unsigned char *fb = FAKE_BASE;
	int orders[] = { 5, 6, 1000, -1, (int)0x80000000u };

	rec_reset(FAKE_BASE, 0);
	for (size_t i = 0; i < sizeof(orders) / sizeof(orders[0]); i++) {
		o.order = (enum cp_order)orders[i];
		cr_assert_eq(cp_clear_huge_opts(fb, 4, 0, &o), -EINVAL, "order %d", orders[i]);
	}
	for (int ord = 0; ord < 5; ord++) {
		o.order = (enum cp_order)ord;
		cr_assert_eq(cp_clear_huge_opts(fb, 4, 4, &o), -EINVAL);          /* h == n */
		cr_assert_eq(cp_clear_huge_opts(fb, 4, 5, &o), -EINVAL);
		cr_assert_eq(cp_clear_huge_opts(fb, 1, SIZE_MAX, &o), -EINVAL);
		cr_assert_eq(cp_clear_huge_opts(NULL, 4, 0, &o), -EINVAL);
		cr_assert_eq(cp_clear_huge_opts(fb + 1, 4, 0, &o), -EINVAL);      /* misaligned */
		cr_assert_eq(cp_clear_huge_opts(fb + 2048, 4, 0, &o), -EINVAL);
		cr_assert_eq(cp_clear_huge_opts(fb + 4095, 4, 0, &o), -EINVAL);
		cr_assert_eq(cp_clear_huge_opts(fb, SIZE_MAX / PG + 1, 0, &o), -EINVAL);
		cr_assert_eq(cp_clear_huge_opts(fb, SIZE_MAX, 0, &o), -EINVAL);   /* overflow */
		cr_assert_eq(cp_clear_huge_opts((void *)(UINTPTR_MAX & ~(uintptr_t)4095), 2, 0, &o),
			     -EINVAL);                                            /* past the top */
		cr_assert_eq(cp_clear_huge_opts(fb, SIZE_MAX / PG - ((uintptr_t)fb / PG) + 2, 0, &o),
			     -EINVAL);
	}
	cr_assert_eq(rec.nev, 0, "a kernel or between ran on bad input");
	o.kernel = &null_clear;
	o.order = CP_ORDER_SEQUENTIAL;
	cr_assert_eq(cp_clear_huge_opts(fb, 4, 0, &o), -EINVAL);
}
