/* SPDX-License-Identifier: MIT */
/*
 * The thread count of a parallel CP_ZERO_RESIDENT fill (common/fill.c): the
 * ramp fed with described scaling curves, as CPU detection is fed described
 * CPUs. Measured points come from the recorded hosts (the GPU host's 1, 4
 * and 16 threads: bench/results/gpu-host-h200/README.md; the 2-vCPU VMs'
 * 1 and 2); points between them are assumed and say so. The count kept
 * must run within 0.95 of the best measured point.
 */
#include <criterion/criterion.h>
#include "fill.h"

struct curve {
	const char *name;
	unsigned most;             /* CPUs the caller may use */
	double gbps[65];           /* GB/s by thread count; 0 = not described */
};

/* A count's rate: described, or the nearest described count below it. */
static double rate_at(const struct curve *c, unsigned n)
{
	while (n > 1 && c->gbps[n] == 0)
		n--;
	return c->gbps[n];
}

static unsigned ramp(const struct curve *c)
{
	struct cp__ramp r = { 0, 0, 0 };
	unsigned cur = c->most < 2 ? c->most : 2, steps = 0;
	for (unsigned next; (next = cp__ramp_next(&r, cur, rate_at(c, cur), c->most)); cur = next)
		cr_assert_lt(++steps, 10, "%s: the ramp does not end", c->name);
	return r.keep;
}

static void assert_kept_near_best(const struct curve *c)
{
	unsigned keep = ramp(c);
	double best = 0;
	for (unsigned n = 1; n <= c->most; n++)
		best = c->gbps[n] > best ? c->gbps[n] : best;
	cr_assert(keep >= 1 && keep <= c->most, "%s: kept %u of %u", c->name, keep, c->most);
	cr_assert_geq(rate_at(c, keep), 0.95 * best, "%s: kept %u threads, %.2f GB/s against %.2f",
		      c->name, keep, rate_at(c, keep), best);
}

Test(fill_ramp, gpu_host_thp_stops_at_four)
{
	/* 1, 4, 16 measured; 2 and 8 assumed between them */
	struct curve c = { "gpu host THP", 16, { [1] = 4.72, [2] = 9.0, [4] = 17.58, [8] = 16.0,
						   [16] = 14.37 } };
	assert_kept_near_best(&c);
	cr_assert_eq(ramp(&c), 4);
}

Test(fill_ramp, gpu_host_4k_stops_where_it_flattens)
{
	struct curve c = { "gpu host 4k", 16, { [1] = 2.45, [2] = 4.8, [4] = 8.71, [8] = 8.70,
						  [16] = 8.70 } };
	assert_kept_near_best(&c);
	cr_assert_eq(ramp(&c), 4, "8 threads gained nothing over 4: keep 4");
}

Test(fill_ramp, two_vcpus_take_both)
{
	struct curve zen3_4k = { "zen3 4k", 2, { [1] = 2.11, [2] = 4.52 } };
	struct curve zen3_thp = { "zen3 THP", 2, { [1] = 10.23, [2] = 12.21 } };
	struct curve one = { "one CPU", 1, { [1] = 3.0 } };
	assert_kept_near_best(&zen3_4k);
	assert_kept_near_best(&zen3_thp);
	cr_assert_eq(ramp(&zen3_4k), 2);
	cr_assert_eq(ramp(&one), 1);
}

Test(fill_ramp, a_machine_that_scales_takes_every_cpu)
{
	struct curve c = { "linear to 48", 48, { [1] = 1 } };
	for (unsigned n = 2; n <= 48; n++)
		c.gbps[n] = n;
	assert_kept_near_best(&c);
	cr_assert_eq(ramp(&c), 48);
}

Test(fill_ramp, a_doubling_that_loses_goes_back)
{
	struct curve c = { "worse at 4", 8, { [2] = 5.0, [4] = 4.0, [8] = 3.0 } };
	cr_assert_eq(ramp(&c), 2);
	struct curve d = { "a little better at 8", 16, { [2] = 5.0, [4] = 9.0, [8] = 9.5, [16] = 9.0 } };
	cr_assert_eq(ramp(&d), 8, "8 gained under 10 %% but ran faster than 4: keep 8");
}
