/* SPDX-License-Identifier: MIT */
/*
 * cp_clear_huge / cp_clear_huge_opts on real memory: every order with every
 * kernel clears exactly its pages between guard pages, and bad input writes
 * nothing. (The exact page sequences are in test_huge.c.)
 */
#include "testutil.h"
#include <errno.h>
#include <stdio.h>


/* n pages at mem + 4096 inside a guarded mapping of n + 2 pages, all FILL. */
static struct guarded map_filled(size_t n)
{
	struct guarded g = guarded_map(n + 2);
	memset(g.mem, FILL, g.len);
	return g;
}

static void check_cleared(struct guarded *g, size_t n, const char *what)
{
	assert_cleared(what, g->mem, g->len, PG, n * PG);
}

/* Every order, kernel NULL and every usable kernel, small extents. */
Test(huge_memory, every_order_every_kernel)
{
	const struct cp_kernel *const *list;
	size_t nk = cp_kernels(&list);
	static const size_t hs[] = { 0, 5, 8 };
	char what[128];

	cr_assert_gt(nk, 0);
	for (size_t ki = 0; ki <= nk; ki++) {
		const struct cp_kernel *k = ki < nk ? list[ki] : NULL;
		for (int ord = 0; ord < 5; ord++)
			for (size_t ih = 0; ih < 3; ih++) {
				struct cp_huge_opts o = { (enum cp_order)ord, 1, 3, k, NULL, NULL };
				struct guarded g = map_filled(9);
				snprintf(what, sizeof(what), "order %d kernel %s h=%zu", ord,
					 k ? k->name : "NULL", hs[ih]);
				cr_assert_eq(cp_clear_huge_opts(g.mem + PG, 9, hs[ih], &o), 0, "%s", what);
				check_cleared(&g, 9, what);
				guard_unmap(&g);
			}
	}
}

/* A 2 MiB huge page through the default path, and (natively) through CONVERGE. */
Test(huge_memory, two_mib)
{
	struct cp_huge_opts o = { CP_ORDER_CONVERGE, 2, 0, NULL, NULL, NULL };
	struct guarded g = map_filled(512);

	cr_assert_eq(cp_clear_huge(g.mem + PG, 512, 300), 0);
	check_cleared(&g, 512, "cp_clear_huge 512");
	if (!test_quick()) {
		memset(g.mem, FILL, g.len);
		cr_assert_eq(cp_clear_huge_opts(g.mem + PG, 512, 77, &o), 0);
		check_cleared(&g, 512, "CONVERGE 512");
	}
	guard_unmap(&g);
}

static const struct cp_kernel null_clear = { "null", "test", 0, NULL };

/* The bad inputs of test_huge.c on real memory with the library's kernels: nothing written. */
Test(huge_bad, einval_nothing_written)
{
	struct cp_huge_opts o = CP_HUGE_OPTS_INIT;
	struct guarded g = map_filled(8);
	unsigned char *p = g.mem + PG;

	cr_assert_eq(cp_clear_huge(p, 8, 8), -EINVAL);
	cr_assert_eq(cp_clear_huge(p + 64, 7, 0), -EINVAL);
	o.order = (enum cp_order)5;
	cr_assert_eq(cp_clear_huge_opts(p, 8, 0, &o), -EINVAL);
	o.order = CP_ORDER_CONVERGE;
	o.kernel = &null_clear;
	cr_assert_eq(cp_clear_huge_opts(p, 8, 0, &o), -EINVAL);
	o.kernel = NULL;
	cr_assert_eq(cp_clear_huge_opts(p, 8, 9, &o), -EINVAL);
	cr_assert_eq(first_not(g.mem, g.len, FILL), g.len, "bad input: memory written");
	guard_unmap(&g);
}
