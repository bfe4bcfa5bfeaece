/* SPDX-License-Identifier: MIT */
/*
 * cp_copy_huge_opts: every order copies exactly, for the library's choice and
 * every copy kernel; the copy walks exactly as the clear does for the same
 * options (a recording copy kernel against a recording clear kernel:
 * tests/test_huge.c checks the clear's walk against Linux's); bad input
 * writes nothing. Its deprecated alias cp_copy_huge (the build defines
 * CP_NO_DEPRECATED) makes the calls of opts and kernel NULL, call for call.
 */
#include "testutil.h"
#include "testhooks.h"
#include "copy_pattern.h"
#include "residency.h"
#include "state.h"
#include <errno.h>

#define FAKE_BASE ((void *)((uintptr_t)1 << 40))
#define MAXEV 4096

static const char *const order_name[] = {
	"NEIGHBOURHOOD_LAST", "SEQUENTIAL", "PAGE_AT_A_TIME", "CONVERGE", "HOT_RANGE_LAST"
};

/* ---- the recorders: one event list per walk ------------------------------ */

struct event { char kind; size_t first, count; };   /* 'K' a kernel call, 'B' between */
struct trail {
	uintptr_t base, src;       /* src: copies only */
	size_t nev;
	struct event ev[MAXEV];
};
static struct trail clear_trail, copy_trail;

static void trail_reset(struct trail *t, const void *base, const void *src)
{
	t->base = (uintptr_t)base;
	t->src = (uintptr_t)src;
	t->nev = 0;
}

static void trail_add(struct trail *t, char kind, uintptr_t at, size_t count)
{
	cr_assert(t->nev < MAXEV, "too many events");
	cr_assert(kind == 'B' || (at >= t->base && (at - t->base) % PG == 0),
		  "kernel called at %p, base %p", (void *)at, (void *)t->base);
	t->ev[t->nev++] = (struct event){ kind, kind == 'B' ? 0 : (at - t->base) / PG, count };
}

static void rec_clear(void *addr, size_t npages)
{
	trail_add(&clear_trail, 'K', (uintptr_t)addr, npages);
}

/* Records the call as kind, checks that it reads the same page of the
 * source as it writes of the destination, then copies. */
static void rec_copy_as(char kind, void *dst, const void *src, size_t npages)
{
	uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
	cr_assert(d - copy_trail.base == s - copy_trail.src,
		  "copy to page %zu of dst from page %zu of src", (size_t)(d - copy_trail.base) / PG,
		  (size_t)(s - copy_trail.src) / PG);
	trail_add(&copy_trail, kind, d, npages);
	memcpy(dst, src, npages * PG);
}

static void rec_copy(void *dst, const void *src, size_t npages)
{
	rec_copy_as('K', dst, src, npages);
}

/* A second recorder ('F'), for a policy whose bands tell two kernels apart. */
static void rec_copy_far(void *dst, const void *src, size_t npages)
{
	rec_copy_as('F', dst, src, npages);
}

static void rec_between(void *ctx)
{
	trail_add(ctx, 'B', 0, 0);
}

static const struct cp_kernel rec_clear_kernel = { "rec", "test", 0, rec_clear };
static const struct cp_copy_kernel rec_copy_kernel = { "rec", "test", 0, rec_copy };
static const struct cp_copy_kernel rec_far_kernel = { "rec_far", "test", 0, rec_copy_far };

/* ---- exact copies ------------------------------------------------------------ */

static const struct { size_t n, hot, radius, batch; } shapes[] = {
	{ 1, 0, 0, 0 }, { 1, 0, SIZE_MAX, 1 }, { 2, 1, 2, 0 }, { 8, 5, 1, 3 }, { 8, 0, 0, 1 },
	{ 8, 7, SIZE_MAX, 0 }, { 17, 0, 2, 4 }, { 17, 16, 0, 0 }, { 33, 32, SIZE_MAX, 0 },
	{ 64, 20, 7, 5 }, { 64, 63, 0, 7 }, { 64, 0, SIZE_MAX, 0 },
};
#define NSHAPES (sizeof(shapes) / sizeof(shapes[0]))

/* Every shape, with the library's choice and every listed copy kernel. */
static void check_exact(enum cp_order order)
{
	const struct cp_copy_kernel *const *list;
	size_t nk = cp_copy_kernels(&list);
	char why[256];
	for (size_t sh = 0; sh < NSHAPES; sh++)
		for (size_t ki = 0; ki <= nk; ki++) {
			const struct cp_copy_kernel *k = ki < nk ? list[ki] : NULL;
			struct cp_huge_opts o = { order, shapes[sh].radius, shapes[sh].batch,
						  NULL, NULL, NULL };
			struct copy_pair c;
			cr_assert_eq(copy_pair_map(&c, shapes[sh].n, (sh + ki) % 2, 31 * sh + ki), 0);
			int rc = cp_copy_huge_opts(c.d, c.s, shapes[sh].n, shapes[sh].hot, &o, k);
			cr_assert(rc == 0 && !copy_pair_verify(&c, why, sizeof(why)),
				  "%s n=%zu hot=%zu radius=%zu batch=%zu kernel %s: rc %d, %s",
				  order_name[order], shapes[sh].n, shapes[sh].hot, shapes[sh].radius,
				  shapes[sh].batch, k ? k->name : "NULL", rc, rc ? "" : why);
			copy_pair_unmap(&c);
		}
}

Test(copy_huge, neighbourhood_last_exact) { check_exact(CP_ORDER_NEIGHBOURHOOD_LAST); }
Test(copy_huge, sequential_exact) { check_exact(CP_ORDER_SEQUENTIAL); }
Test(copy_huge, page_at_a_time_exact) { check_exact(CP_ORDER_PAGE_AT_A_TIME); }
Test(copy_huge, converge_exact) { check_exact(CP_ORDER_CONVERGE); }
Test(copy_huge, hot_range_last_exact) { check_exact(CP_ORDER_HOT_RANGE_LAST); }

/* opts NULL is CP_HUGE_OPTS_INIT: the same calls (recorded through the
 * explicit kernel); the alias copies exactly (its calls: alias_is_opts_null). */
Test(copy_huge, default_opts)
{
	const struct cp_huge_opts init = CP_HUGE_OPTS_INIT;
	struct copy_pair c;
	char why[256];
	cr_assert_eq(copy_pair_map(&c, 16, 1, 16), 0);
	cr_assert_eq(cp_copy_huge(c.d, c.s, 16, 9), 0);
	cr_assert(!copy_pair_verify(&c, why, sizeof(why)), "%s", why);
	trail_reset(&copy_trail, c.d, c.s);
	cr_assert_eq(cp_copy_huge_opts(c.d, c.s, 16, 9, NULL, &rec_copy_kernel), 0);
	static struct trail with_null;
	with_null = copy_trail;
	trail_reset(&copy_trail, c.d, c.s);
	cr_assert_eq(cp_copy_huge_opts(c.d, c.s, 16, 9, &init, &rec_copy_kernel), 0);
	cr_assert_eq(with_null.nev, 3, "[12,15] [0,6] [7,11]: %zu calls", with_null.nev);
	cr_assert_eq(copy_trail.nev, 3);
	cr_assert(!memcmp(with_null.ev, copy_trail.ev, sizeof(with_null.ev[0]) * 3));
	copy_pair_unmap(&c);
}

/* cp_copy_huge(d, s, n, h) is cp_copy_huge_opts(d, s, n, h, NULL, NULL), the
 * deprecated alias (include/clearpages.h): with the library's choice per range
 * (a published policy of two recording copy kernels, 'K' below 4 pages and 'F'
 * from there, so a range's kernel shows) the same calls, in the same order,
 * on the same pages, and the same bytes; the same answer to bad input. */
Test(copy_huge, alias_is_opts_null)
{
	struct cp__policy p = cp__state()->policy;
	const struct cp__copy_band bands[] = { { 0, &rec_copy_kernel }, { 4, &rec_far_kernel } };
	for (unsigned i = 0; i < CP__MAX_BANDS; i++)
		p.copy.band[i] = i < 2 ? bands[i]
				       : (struct cp__copy_band){ CP__BAND_UNUSED, bands[1].kernel };
	p.copy_uncached = p.copy;      /* walks take the copy bands (docs/dispatch.md) */
	cr_assert_eq(cp__policy_publish(&p, "test"), 0);
	static const struct { size_t n, hot; } shape[] = {
		{ 1, 0 }, { 2, 1 }, { 5, 2 }, { 8, 0 }, { 16, 9 }, { 33, 32 }, { 64, 20 }, { 512, 300 },
	};
	static struct trail alias;
	char why[256];
	size_t kinds['Z' + 1] = { 0 };
	for (size_t i = 0; i < sizeof(shape) / sizeof(shape[0]); i++) {
		const size_t n = shape[i].n, h = shape[i].hot;
		struct copy_pair c;
		cr_assert_eq(copy_pair_map(&c, n, i % 2, 13 * n + h), 0);
		trail_reset(&copy_trail, c.d, c.s);
		cr_assert_eq(cp_copy_huge(c.d, c.s, n, h), 0, "n=%zu hot=%zu", n, h);
		cr_assert(!copy_pair_verify(&c, why, sizeof(why)), "alias n=%zu hot=%zu: %s", n, h, why);
		alias = copy_trail;
		memset(c.dst.mem, FILL, c.dst.len);
		trail_reset(&copy_trail, c.d, c.s);
		cr_assert_eq(cp_copy_huge_opts(c.d, c.s, n, h, NULL, NULL), 0, "n=%zu hot=%zu", n, h);
		cr_assert(!copy_pair_verify(&c, why, sizeof(why)), "opts n=%zu hot=%zu: %s", n, h, why);
		cr_assert_eq(alias.nev, copy_trail.nev, "n=%zu hot=%zu: the alias made %zu calls, "
			     "cp_copy_huge_opts(NULL, NULL) %zu", n, h, alias.nev, copy_trail.nev);
		for (size_t e = 0; e < alias.nev; e++) {
			const struct event *a = &alias.ev[e], *b = &copy_trail.ev[e];
			cr_assert(a->kind == b->kind && a->first == b->first && a->count == b->count,
				  "n=%zu hot=%zu call %zu: the alias %c [%zu +%zu], "
				  "cp_copy_huge_opts(NULL, NULL) %c [%zu +%zu]", n, h, e, a->kind,
				  a->first, a->count, b->kind, b->first, b->count);
			kinds[(unsigned char)a->kind]++;
		}
		if (n == 16) {     /* [12,15] and [0,6] by extent, the hot range [7,11] last */
			const struct event want[] = { { 'F', 12, 4 }, { 'F', 0, 7 }, { 'K', 7, 5 } };
			cr_assert_eq(alias.nev, 3);
			for (size_t e = 0; e < 3; e++)
				cr_assert(alias.ev[e].kind == want[e].kind &&
					  alias.ev[e].first == want[e].first &&
					  alias.ev[e].count == want[e].count,
					  "16 pages, hot 9, call %zu: %c [%zu +%zu], want %c [%zu +%zu]", e,
					  alias.ev[e].kind, alias.ev[e].first, alias.ev[e].count,
					  want[e].kind, want[e].first, want[e].count);
		}
		copy_pair_unmap(&c);
	}
	cr_assert(kinds['K'] && kinds['F'], "both bands' kernels called: K %zu, F %zu",
		  kinds['K'], kinds['F']);

	/* bad input: the same -EINVAL, nothing called, nothing written */
	struct copy_pair c;
	cr_assert_eq(copy_pair_map(&c, 4, 1, 4), 0);
	unsigned char *d = c.d, *s = c.s;
	trail_reset(&copy_trail, c.d, c.s);
	const struct { unsigned char *d, *s; size_t n, hot; } bad[] = {
		{ d, s, 4, 4 }, { d, s, 4, SIZE_MAX }, { NULL, s, 4, 0 }, { d, NULL, 4, 0 },
		{ d + 64, s, 4, 0 }, { d, s + 2048, 4, 0 }, { d, d, 4, 0 }, { d + PG, d, 2, 0 },
		{ d, d + PG, 2, 1 }, { d, s, SIZE_MAX / PG + 1, 0 },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(cp_copy_huge(bad[i].d, bad[i].s, bad[i].n, bad[i].hot), -EINVAL,
			     "bad input %zu: the alias", i);
		cr_assert_eq(cp_copy_huge_opts(bad[i].d, bad[i].s, bad[i].n, bad[i].hot, NULL, NULL),
			     -EINVAL, "bad input %zu: cp_copy_huge_opts(NULL, NULL)", i);
	}
	cr_assert_eq(cp_copy_huge(NULL, NULL, 0, 9), cp_copy_huge_opts(NULL, NULL, 0, 9, NULL, NULL));
	cr_assert_eq(copy_trail.nev, 0, "a kernel ran on bad input");
	cr_assert(!copy_pair_untouched(&c, why, sizeof(why)), "%s", why);
	copy_pair_unmap(&c);
	cp__policy_publish(&cp__state()->defaults, cp__state()->default_source);
}

/* ---- the walk: the clear's, call for call ------------------------------------ */

static void check_same_walk(enum cp_order order)
{
	static const size_t ns[] = { 1, 2, 5, 8, 33 }, bs[] = { 0, 1, 3, 64 };
	static const size_t rs[] = { 0, 1, 2, 8, SIZE_MAX };
	char why[256];
	size_t runs = 0;
	for (size_t in = 0; in < sizeof(ns) / sizeof(ns[0]); in++) {
		size_t n = ns[in];
		struct copy_pair c;
		cr_assert_eq(copy_pair_map(&c, n, 1, n), 0);
		size_t hs[] = { 0, 1, 2, n / 2, n > 3 ? n - 3 : 0, n - 1 };
		for (size_t ih = 0; ih < 6; ih++)
			for (size_t ir = 0; ir < sizeof(rs) / sizeof(rs[0]); ir++)
				for (size_t ib = 0; ib < sizeof(bs) / sizeof(bs[0]); ib++) {
					size_t h = hs[ih] < n ? hs[ih] : n - 1;
					struct cp_huge_opts o = { order, rs[ir], bs[ib], &rec_clear_kernel,
								  rec_between, &clear_trail };
					trail_reset(&clear_trail, FAKE_BASE, NULL);
					cr_assert_eq(cp_clear_huge_opts(FAKE_BASE, n, h, &o), 0);
					o.kernel = NULL;
					o.ctx = &copy_trail;
					memset(c.dst.mem, FILL, c.dst.len);
					trail_reset(&copy_trail, c.d, c.s);
					cr_assert_eq(cp_copy_huge_opts(c.d, c.s, n, h, &o, &rec_copy_kernel), 0);
					const char *what = order_name[order];
					cr_assert_eq(copy_trail.nev, clear_trail.nev,
						     "%s n=%zu h=%zu r=%zu batch=%zu: %zu events, the clear %zu",
						     what, n, h, rs[ir], bs[ib], copy_trail.nev, clear_trail.nev);
					size_t calls = 0;
					for (size_t e = 0; e < copy_trail.nev; e++) {
						const struct event *a = &copy_trail.ev[e], *b = &clear_trail.ev[e];
						cr_assert(a->kind == b->kind && a->first == b->first &&
							  a->count == b->count,
							  "%s n=%zu h=%zu r=%zu batch=%zu: event %zu is %c [%zu +%zu], "
							  "the clear's %c [%zu +%zu]", what, n, h, rs[ir], bs[ib], e,
							  a->kind, a->first, a->count, b->kind, b->first, b->count);
						cr_assert_eq(a->kind, e % 2 ? 'B' : 'K', "%s: event %zu", what, e);
						calls += a->kind == 'K';
					}
					cr_assert_eq(copy_trail.nev, 2 * calls - 1, "between() runs k - 1 times");
					cr_assert(!copy_pair_verify(&c, why, sizeof(why)), "%s: %s", what, why);
					runs++;
				}
		copy_pair_unmap(&c);
	}
	cr_assert_gt(runs, 500);
}

Test(copy_huge, neighbourhood_last_walk) { check_same_walk(CP_ORDER_NEIGHBOURHOOD_LAST); }
Test(copy_huge, sequential_walk) { check_same_walk(CP_ORDER_SEQUENTIAL); }
Test(copy_huge, page_at_a_time_walk) { check_same_walk(CP_ORDER_PAGE_AT_A_TIME); }
Test(copy_huge, converge_walk) { check_same_walk(CP_ORDER_CONVERGE); }
Test(copy_huge, hot_range_last_walk) { check_same_walk(CP_ORDER_HOT_RANGE_LAST); }

/* ---- bad input ------------------------------------------------------------------ */

static const struct cp_copy_kernel null_copy = { "null", "test", 0, NULL };

Test(copy_huge, zero_pages_first)
{
	struct cp_huge_opts o = { (enum cp_order)99, 0, 0, &rec_clear_kernel, rec_between,
				  &copy_trail };
	trail_reset(&copy_trail, NULL, NULL);
	cr_assert_eq(cp_copy_huge(NULL, NULL, 0, 3), 0);
	cr_assert_eq(cp_copy_huge_opts(NULL, NULL, 0, SIZE_MAX, &o, &null_copy), 0);
	cr_assert_eq(cp_copy_huge_opts((void *)1, (void *)1, 0, 0, NULL, NULL), 0);
	cr_assert_eq(copy_trail.nev, 0);
}

/* -EINVAL, no kernel call, no between(), nothing written. */
Test(copy_huge, bad_input_writes_nothing)
{
	struct copy_pair c;
	char why[256];
	cr_assert_eq(copy_pair_map(&c, 4, 1, 4), 0);
	struct cp_huge_opts o = { CP_ORDER_SEQUENTIAL, 2, 0, NULL, rec_between, &copy_trail };
	static const int orders[] = { 5, 6, 1000, -1, (int)0x80000000u };
	trail_reset(&copy_trail, c.d, c.s);
	for (size_t i = 0; i < sizeof(orders) / sizeof(orders[0]); i++) {
		o.order = (enum cp_order)orders[i];
		cr_assert_eq(cp_copy_huge_opts(c.d, c.s, 4, 0, &o, &rec_copy_kernel), -EINVAL,
			     "order %d", orders[i]);
	}
	for (int ord = 0; ord < 5; ord++) {
		const char *who = order_name[ord];
		o.order = (enum cp_order)ord;
		cr_assert_eq(cp_copy_huge_opts(c.d, c.s, 4, 4, &o, &rec_copy_kernel), -EINVAL, "%s", who);
		cr_assert_eq(cp_copy_huge_opts(c.d, c.s, 4, SIZE_MAX, &o, &rec_copy_kernel), -EINVAL);
		cr_assert_eq(cp_copy_huge_opts(c.d, c.s, 4, 0, &o, &null_copy), -EINVAL, "%s", who);
		cr_assert_eq(cp_copy_huge_opts(c.d, c.d, 4, 0, &o, &rec_copy_kernel), -EINVAL);
		cr_assert_eq(cp_copy_huge_opts(c.d + PG, c.d, 2, 0, &o, &rec_copy_kernel), -EINVAL);
		cr_assert_eq(cp_copy_huge_opts(c.d, c.d + PG, 2, 1, &o, &rec_copy_kernel), -EINVAL);
		cr_assert_eq(cp_copy_huge_opts(NULL, c.s, 4, 0, &o, &rec_copy_kernel), -EINVAL);
		cr_assert_eq(cp_copy_huge_opts(c.d, NULL, 4, 0, &o, &rec_copy_kernel), -EINVAL);
		cr_assert_eq(cp_copy_huge_opts(c.d + 64, c.s, 4, 0, &o, &rec_copy_kernel), -EINVAL);
		cr_assert_eq(cp_copy_huge_opts(c.d, c.s + 2048, 4, 0, &o, &rec_copy_kernel), -EINVAL);
		o.kernel = &rec_clear_kernel;       /* a clear kernel has no place in a copy */
		cr_assert_eq(cp_copy_huge_opts(c.d, c.s, 4, 0, &o, &rec_copy_kernel), -EINVAL, "%s", who);
		cr_assert_eq(cp_copy_huge_opts(c.d, c.s, 4, 0, &o, NULL), -EINVAL, "%s", who);
		o.kernel = NULL;
	}
	cr_assert_eq(copy_trail.nev, 0, "a kernel or between() ran on bad input");
	cr_assert(!copy_pair_untouched(&c, why, sizeof(why)), "%s", why);
	copy_pair_unmap(&c);
}

/* No copy kernel is called on more than CP__MAX_CALL_PAGES (4080 KiB) by the
 * library's choice, as clears: cp_copy_pages and the walk's far ranges; a
 * caller's own kernel keeps the caller's batches. */
Test(copy_huge, library_copies_in_calls_of_4080_kib)
{
	const size_t npages = 2 * CP__MAX_CALL_PAGES + 60;
	struct cp__policy p = cp__state()->policy;
	const struct cp__copy_band rec_band = { 0, &rec_copy_kernel };
	for (unsigned i = 0; i < CP__MAX_BANDS; i++)
		p.copy.band[i] = (struct cp__copy_band){ i ? CP__BAND_UNUSED : 0, rec_band.kernel };
	p.copy_uncached = p.copy;      /* the uncached path's calls: test_copy_history.c */
	cr_assert_eq(cp__policy_publish(&p, "test"), 0);
	struct copy_pair c;
	char why[256];
	cr_assert_eq(copy_pair_map(&c, npages, 0, 7), 0);
	for (int way = 0; way < 3; way++) {
		trail_reset(&copy_trail, c.d, c.s);
		struct cp_huge_opts o = { CP_ORDER_SEQUENTIAL, 0, 0, NULL, NULL, NULL };
		int rc = way == 0 ? cp_copy_pages(c.d, c.s, npages)
			 : cp_copy_huge_opts(c.d, c.s, npages, 0, &o, way == 1 ? NULL : &rec_copy_kernel);
		cr_assert_eq(rc, 0);
		cr_assert(!copy_pair_verify(&c, why, sizeof(why)), "%s", why);
		if (way == 2) {        /* the caller's kernel: one call, as asked */
			cr_expect_eq(copy_trail.nev, 1, "caller's kernel: %zu calls", copy_trail.nev);
			continue;
		}
		cr_assert_eq(copy_trail.nev, 3, "way %d: %zu calls, want 3", way, copy_trail.nev);
		const size_t want[3][2] = { { 0, CP__MAX_CALL_PAGES },
					    { CP__MAX_CALL_PAGES, CP__MAX_CALL_PAGES },
					    { 2 * CP__MAX_CALL_PAGES, 60 } };
		for (unsigned i = 0; i < 3; i++)
			cr_expect(copy_trail.ev[i].first == want[i][0] &&
				  copy_trail.ev[i].count == want[i][1],
				  "way %d call %u: pages %zu+%zu, want %zu+%zu", way, i,
				  copy_trail.ev[i].first, copy_trail.ev[i].count, want[i][0], want[i][1]);
	}
	copy_pair_unmap(&c);
	cp__policy_publish(&cp__state()->defaults, cp__state()->default_source);
}
