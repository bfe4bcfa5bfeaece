/* SPDX-License-Identifier: MIT */
/*
 * cp_policy_info: each figure it reports is checked against what the calls
 * then do (the kernel cp_kernel_for and cp_copy_kernel_for name on either
 * side of it, the bytes MAY_DISCARD hands back on either side of it), for the
 * policy in force and for policies a test publishes, "never" included.
 */
#include "zero_mem.h"
#include <errno.h>

static struct cp_policy_info info_now(void)
{
	struct cp_policy_info info = { .size = sizeof(info) };
	cr_assert_eq(cp_policy_info(&info), 0);
	cr_assert_eq(info.size, sizeof(info));
	return info;
}

static unsigned clear_flags(size_t pages)
{
	return cp_kernel_for(pages)->flags;
}
static unsigned copy_flags(size_t pages)
{
	return cp_copy_kernel_for(pages)->flags;
}
static unsigned copy_uncached_flags(size_t pages)
{
	return cp__copy_bands_pick(&cp__state()->policy.copy_uncached, pages)->flags;
}

/* The first extent whose kernel is non-temporal, asked of the calls page by
 * page up to 16 GiB. */
static size_t first_nt_by_calls(unsigned (*flags)(size_t))
{
	for (size_t pages = 1; pages <= ((size_t)1 << 22); pages++)
		if (flags(pages) & CP_NONTEMPORAL)
			return pages * PG;
	return CP_POLICY_NEVER;
}

Test(policy_info, sizes_and_null)
{
	cr_assert_eq(cp_policy_info(NULL), -EINVAL);
	struct cp_policy_info small = { .size = sizeof(small) - 1, .source = (const char *)&small };
	cr_assert_eq(cp_policy_info(&small), -EINVAL);
	cr_assert(small.source == (const char *)&small, "written on -EINVAL");
	/* a caller built against a later header: the rest is left as it was */
	struct { struct cp_policy_info info; size_t later[2]; } big;
	memset(&big, 0x5a, sizeof(big));
	big.info.size = sizeof(big);
	cr_assert_eq(cp_policy_info(&big.info), 0);
	cr_assert_eq(big.info.size, sizeof(struct cp_policy_info));
	cr_assert_eq(big.later[0], (size_t)0x5a5a5a5a5a5a5a5aull);
	cr_assert_str_eq(big.info.source, cp_policy_source());
}

/* The policy in force here, whatever it is: the figures agree with the calls. */
Test(policy_info, agrees_with_the_calls)
{
	struct cp_policy_info info = info_now();
	cr_assert_eq(info.nt_from, first_nt_by_calls(clear_flags), "nt_from %zu", info.nt_from);
	cr_assert_eq(info.copy_nt_from, first_nt_by_calls(copy_flags), "copy_nt_from %zu",
		     info.copy_nt_from);
	cr_assert(info.discard_from == CP_POLICY_NEVER || info.discard_from % PG == 0);
	const struct cp__policy *p = &cp__state()->policy;
	size_t unc = first_nt_by_calls(copy_uncached_flags);
	cr_assert_eq(info.copy_uncached_nt_from, unc, "copy_uncached_nt_from %zu, the bands %zu",
		     info.copy_uncached_nt_from, unc);
	/* the copies estimated from where the two lists part */
	size_t part = CP_POLICY_NEVER;
	for (size_t pages = 1; pages <= ((size_t)1 << 22) && part == CP_POLICY_NEVER; pages++)
		if (cp__copy_bands_pick(&p->copy_uncached, pages) !=
		    cp__copy_bands_pick(&p->copy, pages))
			part = pages * PG;
	if (!p->cached_min_mbps)
		part = CP_POLICY_NEVER;
	cr_assert_eq(info.copy_estimate_from, part, "copy_estimate_from %zu, the bands part at %zu",
		     info.copy_estimate_from, part);
}

/* Published policies, "never" included: what MAY_DISCARD does on resident
 * private anonymous memory two units long, on either side of the figure. */
Test(policy_info, discard_from_is_what_discard_does)
{
	discards_expected();
	size_t unit = cp__discard_unit();
	struct region r = region_map(PRIVATE_ANON, 2);
	struct cp__policy p = cp__state()->defaults;
	const size_t from[] = { 2 * unit / PG, 2 * unit / PG + 1, CP__BAND_UNUSED };
	for (int i = 0; i < 3; i++) {
		p.discard_from_pages = from[i];
		p.parallel_min_share_pages = i == 2 ? 0 : 256;
		cr_assert_eq(cp__policy_publish(&p, "test"), 0);
		struct cp_policy_info info = info_now();
		cr_assert_str_eq(info.source, "test");
		cr_assert_eq(info.parallel_min_share, i == 2 ? CP_POLICY_NEVER : 256 * PG);
		memset(r.p, FILL, r.len);
		size_t d = 0;
		cr_assert_eq(cp_zero_ex(r.p, r.len, CP_ZERO_MAY_DISCARD, &d), 0);
		assert_cleared("discard", r.p, r.len, 0, r.len);
		int says = info.discard_from != CP_POLICY_NEVER && info.discard_from <= r.len;
		cr_assert_eq(d != 0, says, "discard_from %zu bytes reported, %zu of %zu discarded",
			     info.discard_from, d, r.len);
	}
	region_unmap(&r);
}
