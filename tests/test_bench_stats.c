/* SPDX-License-Identifier: MIT */
/*
 * clearbench's statistics (bench/stats.c, compiled in by the include below):
 * the median's distribution-free interval that the sweep's paired ratios
 * report. Exact ranks on known inputs, no timing.
 */
#include "testutil.h"
#include "../bench/stats.c"

/* 1..n in a scrambled order: the interval must not depend on the order given */
static void scrambled(double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		v[i] = (double)((i * 7 + 3) % n + 1);
}

Test(bench_stats, median_interval_ranks_follow_the_binomial_tail)
{
	/* n, then the 1-based rank k of lo (hi is rank n + 1 - k): k is the largest
	 * with P(Binomial(n, 1/2) <= k - 1) <= 2.5 %, and at least 1 */
	static const size_t cases[][2] = {
		{ 1, 1 }, { 5, 1 }, { 6, 1 }, { 8, 1 }, { 9, 2 }, { 15, 4 }, { 31, 10 }, { 61, 23 },
	};
	double v[64], lo, hi;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		size_t n = cases[c][0], k = cases[c][1];
		scrambled(v, n);
		double med = bench_median_interval(v, n, &lo, &hi);
		cr_expect_float_eq(med, (double)(n + 1) / 2.0, 1e-9, "n %zu: median %g", n, med);
		cr_expect_float_eq(lo, (double)k, 1e-9, "n %zu: lo %g, want rank %zu", n, lo, k);
		cr_expect_float_eq(hi, (double)(n + 1 - k), 1e-9, "n %zu: hi %g, want rank %zu", n,
				   hi, n + 1 - k);
	}
}

Test(bench_stats, median_interval_leaves_its_input_alone)
{
	double v[9], lo, hi;
	scrambled(v, 9);
	double copy[9];
	memcpy(copy, v, sizeof(v));
	bench_median_interval(v, 9, &lo, &hi);
	cr_expect(!memcmp(copy, v, sizeof(v)), "the samples were reordered");
	cr_expect(isnan(bench_median_interval(v, 0, &lo, &hi)) && isnan(lo) && isnan(hi),
		  "no samples: NaN, not a figure");
}
