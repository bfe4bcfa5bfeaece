/* SPDX-License-Identifier: MIT */
/*
 * The route table (common/route.h): each route's way at each side of every
 * bound, for a described policy (estimates from 16 KiB, cold estimated
 * below 64 MiB), held to the table in route.h's header and docs/dispatch.md,
 * not to the code. Pure: no kernel runs.
 */
#include "testutil.h"
#include "testhooks.h"

#define KIB(n) ((size_t)(n) * 1024 / CP_PAGE_SIZE)
#define MIB(n) KIB((size_t)(n) * 1024)

static struct cp__policy described(void)
{
	struct cp__policy p = { 0 };
	p.estimate_from_pages = KIB(16);
	p.cold_estimate_below_pages = MIB(64);
	p.copy_estimate_from_pages = KIB(16);
	return p;
}

static const char *way_name(enum cp__way w)
{
	return w == CP__BY_BANDS ? "bands" : w == CP__BY_HISTORY ? "history" : "plan";
}

struct expect {
	enum cp__route route;
	size_t npages;
	enum cp__way way;
};

Test(route, each_way_at_each_side_of_every_bound)
{
	const struct cp__policy p = described();
	const struct expect e[] = {
		/* any: bands below the estimate, history to 1 MiB, plan from it */
		{ CP__ROUTE_ANY, 1, CP__BY_BANDS },
		{ CP__ROUTE_ANY, KIB(16) - 1, CP__BY_BANDS },
		{ CP__ROUTE_ANY, KIB(16), CP__BY_HISTORY },
		{ CP__ROUTE_ANY, MIB(1) - 1, CP__BY_HISTORY },
		{ CP__ROUTE_ANY, MIB(1), CP__BY_PLAN },
		{ CP__ROUTE_ANY, MIB(1024), CP__BY_PLAN },
		/* cold: history below 2 MiB, plan to the cold estimate's end, bands from it */
		{ CP__ROUTE_COLD, 1, CP__BY_HISTORY },
		{ CP__ROUTE_COLD, MIB(2) - 1, CP__BY_HISTORY },
		{ CP__ROUTE_COLD, MIB(2), CP__BY_PLAN },
		{ CP__ROUTE_COLD, MIB(64) - 1, CP__BY_PLAN },
		{ CP__ROUTE_COLD, MIB(64), CP__BY_BANDS },
		/* hot: never estimated */
		{ CP__ROUTE_HOT, 1, CP__BY_BANDS },
		{ CP__ROUTE_HOT, MIB(4), CP__BY_BANDS },
		{ CP__ROUTE_HOT, MIB(1024), CP__BY_BANDS },
		/* copy: as any */
		{ CP__ROUTE_COPY, KIB(16) - 1, CP__BY_BANDS },
		{ CP__ROUTE_COPY, KIB(16), CP__BY_HISTORY },
		{ CP__ROUTE_COPY, MIB(1) - 1, CP__BY_HISTORY },
		{ CP__ROUTE_COPY, MIB(1), CP__BY_PLAN },
	};
	for (size_t i = 0; i < sizeof e / sizeof e[0]; i++) {
		enum cp__way got = cp__way(&p, e[i].route, NULL, e[i].npages);
		cr_expect_eq(got, e[i].way, "route %d at %zu pages: %s, expected %s", e[i].route,
			     e[i].npages, way_name(got), way_name(e[i].way));
	}
}

/* The range cleared (or the destination copied) last goes by the bands,
 * untimed: any's below 1 MiB only (from there the plan's reuse graces
 * decide), a copy's at every extent. Another range, or another length at the
 * same address, goes its way. */
Test(route, the_last_range_goes_by_the_bands)
{
	const struct cp__policy p = described();
	static char buf[2 * 4096] __attribute__((aligned(4096)));
	cp__reuse_history_forget();
	cp__any_last = (struct cp__last_range){ (uintptr_t)buf, KIB(64) };
	cr_expect_eq(cp__way(&p, CP__ROUTE_ANY, buf, KIB(64)), CP__BY_BANDS);
	cr_expect_eq(cp__way(&p, CP__ROUTE_ANY, buf, KIB(32)), CP__BY_HISTORY);
	cr_expect_eq(cp__way(&p, CP__ROUTE_ANY, buf + 4096, KIB(64)), CP__BY_HISTORY);
	cr_expect_eq(cp__way(&p, CP__ROUTE_COPY, buf, KIB(64)), CP__BY_HISTORY,
		     "a clear's last range is not a copy's");
	cp__any_last = (struct cp__last_range){ (uintptr_t)buf, MIB(2) };
	cr_expect_eq(cp__way(&p, CP__ROUTE_ANY, buf, MIB(2)), CP__BY_PLAN);
	cp__copy_last = (struct cp__last_range){ (uintptr_t)buf, MIB(2) };
	cr_expect_eq(cp__way(&p, CP__ROUTE_COPY, buf, MIB(2)), CP__BY_BANDS);
	cr_expect_eq(cp__way(&p, CP__ROUTE_COPY, NULL, MIB(2)), CP__BY_PLAN,
		     "a whole extent has no last range");
	cp__reuse_history_forget();
}

/* Bounds the policy says "never": any and copy never estimated
 * (CP__BAND_UNUSED), cold never estimated (0). */
Test(route, a_policy_that_never_estimates_goes_by_the_bands)
{
	struct cp__policy p = { 0 };
	p.estimate_from_pages = p.copy_estimate_from_pages = CP__BAND_UNUSED;
	p.cold_estimate_below_pages = 0;
	const size_t extents[] = { 1, KIB(16), MIB(1), MIB(2), MIB(1024) };
	for (size_t i = 0; i < sizeof extents / sizeof extents[0]; i++)
		for (int r = CP__ROUTE_ANY; r <= CP__ROUTE_COPY; r++)
			cr_expect_eq(cp__way(&p, (enum cp__route)r, NULL, extents[i]), CP__BY_BANDS,
				     "route %d at %zu pages", r, extents[i]);
	cr_expect_eq(cp__route_plan_from(&p, CP__ROUTE_ANY), CP__BAND_UNUSED);
}

/* The first planned extent is found at a bound: max(estimate, 1 MiB). */
Test(route, the_first_planned_extent)
{
	struct cp__policy p = described();
	cr_expect_eq(cp__route_plan_from(&p, CP__ROUTE_ANY), MIB(1));
	cr_expect_eq(cp__route_plan_from(&p, CP__ROUTE_COLD), MIB(2));
	p.estimate_from_pages = MIB(8);
	cr_expect_eq(cp__route_plan_from(&p, CP__ROUTE_ANY), MIB(8));
}
