/* SPDX-License-Identifier: MIT */
/*
 * Selection over described CPUs, no emulation: each description is what
 * detection would give on that machine (identity, features, caches); the
 * test checks the bands, the parallel split and the source. The same
 * choices scored against sweeps recorded on real hosts:
 * tests/test_generic_rule.c.
 */
#include "select_util.h"

#if defined(__x86_64__)
/* The whole policy of a described CPU: its source, three band lists, the split. */
static void expect_policy(const char *who, const struct described *d, const char *source,
			  const struct want_band *any, unsigned nany,
			  const struct want_band *hot, unsigned nhot,
			  const struct want_band *cold, unsigned ncold, size_t share_pages)
{
	cr_expect_str_eq(d->source, source, "%s", who);
	assert_bands(who, "any", &d->policy.any, any, nany);
	assert_bands(who, "hot", &d->policy.hot, hot, nhot);
	assert_bands(who, "cold", &d->policy.cold, cold, ncold);
	cr_expect_eq(d->policy.parallel_min_share_pages, share_pages, "%s: parallel share", who);
}

enum { ERMS = CP__F_ERMS, FSRM = CP__F_FSRM, AVX2 = CP__F_AVX2, CLZ = CP__F_CLZERO,
       Z512 = CP__F_AVX512 };

Test(select, sapphire_rapids)
{
	struct described d = x86("GenuineIntel", 6, 0x8f, ERMS | FSRM | AVX2 | Z512, 480);
	expect_policy("spr", &d, "builtin:intel-sapphire-rapids",
		      BANDS({ 0, "avx2" }, { 2, "rep_stosb" }, { MIB_PAGES(64), "avx2_nt" }),
		      BANDS({ 0, "avx2" }, { 2, "rep_stosb" }), BANDS({ 0, "avx2_nt" }), MIB_PAGES(4));
}

Test(select, emerald_rapids)
{
	struct described d = x86("GenuineIntel", 6, 0xcf, ERMS | FSRM | AVX2 | Z512, 300);
	expect_policy("emr", &d, "builtin:intel-emerald-rapids",
		      BANDS({ 0, "avx512" }, { 8, "rep_stosb" }, { MIB_PAGES(32), "avx2_nt" }),
		      BANDS({ 0, "avx512" }, { 8, "rep_stosb" }), BANDS({ 0, "avx2_nt" }), MIB_PAGES(4));
	/* CLEARPAGES_DISABLE=avx512: the row falls back to the generic temporal choice */
	select_for(&d, Z512, NULL);
	assert_bands("emr -avx512", "any", &d.policy.any,
		     BANDS({ 0, "avx2" }, { 8, "rep_stosb" }, { MIB_PAGES(32), "avx2_nt" }));
	/* and =avx2 too: sse2 and movnti are all that is left of the vector kernels */
	select_for(&d, Z512 | AVX2, NULL);
	assert_bands("emr -avx512,avx2", "any", &d.policy.any,
		     BANDS({ 0, "rep_stosb" }, { MIB_PAGES(32), "movnti" }));
}

/* CLEARPAGES_DISABLE=erms,fsrm masks what selection reads: no band of any
 * Intel host keeps rep stosb, built-in or generic, and nothing else moves
 * but the string bands. */
Test(select, disable_erms_fsrm_moves_the_policy_off_rep_stosb)
{
	const unsigned mask = cp__disable_parse("erms,fsrm", NULL, NULL);
	cr_assert_eq(mask, ERMS | FSRM);
	const struct { const char *who; unsigned model; size_t llc_mib; } hosts[] = {
		{ "spr", 0x8f, 480 }, { "emr", 0xcf, 300 }, { "skx", 0x55, 38 },
		{ "6/167", 0xa7, 480 }, { "haswell", 0x3c, 8 },
	};
	for (size_t h = 0; h < sizeof(hosts) / sizeof(hosts[0]); h++) {
		struct described d = x86("GenuineIntel", 6, hosts[h].model,
					 ERMS | FSRM | AVX2 | Z512, hosts[h].llc_mib);
		int had = 0;
		for (unsigned i = 0; i < CP__MAX_BANDS; i++)
			had |= !strcmp(d.policy.any.band[i].kernel->name, "rep_stosb");
		cr_expect(had, "%s: rep_stosb is in the unmasked policy", hosts[h].who);
		size_t nt_from = cp__policy_nt_from(&d.policy);
		select_for(&d, mask, NULL);
		const struct cp__bands *lists[] = { &d.policy.any, &d.policy.hot, &d.policy.cold };
		for (unsigned l = 0; l < 3; l++)
			for (unsigned i = 0; i < CP__MAX_BANDS; i++)
				cr_expect(strcmp(lists[l]->band[i].kernel->name, "rep_stosb"),
					  "%s: band %u of list %u is rep_stosb with erms,fsrm masked",
					  hosts[h].who, i, l);
		cr_expect_eq(cp__policy_nt_from(&d.policy), nt_from, "%s: the crossover moved",
			     hosts[h].who);
	}
	/* the exact bands on Emerald Rapids: the string row takes the generic
	 * temporal choice (zmm stores), so it merges with the first */
	struct described emr = x86("GenuineIntel", 6, 0xcf, ERMS | FSRM | AVX2 | Z512, 300);
	select_for(&emr, mask, NULL);
	assert_bands("emr -erms,fsrm", "any", &emr.policy.any,
		     BANDS({ 0, "avx512" }, { MIB_PAGES(32), "avx2_nt" }));
}

Test(select, amd_zen4_and_zen3)
{
	/* no split below 16 MiB: shares of 8 MiB */
	struct described z4 = x86("AuthenticAMD", 0x19, 0x11, ERMS | FSRM | AVX2 | CLZ | Z512, 32);
	expect_policy("zen4", &z4, "builtin:amd-zen4",
		      BANDS({ 0, "avx2" }, { MIB_PAGES(16), "clzero" }),
		      BANDS({ 0, "avx2" }), BANDS({ 0, "clzero" }), MIB_PAGES(8));
	struct described z3 = x86("AuthenticAMD", 0x19, 0x01, ERMS | FSRM | AVX2 | CLZ, 32);
	expect_policy("zen3", &z3, "builtin:amd-zen3",
		      BANDS({ 0, "avx2" }, { MIB_PAGES(16), "avx2_nt" }),
		      BANDS({ 0, "avx2" }), BANDS({ 0, "avx2_nt" }), MIB_PAGES(8));
}

Test(select, unknown_cpus_get_the_generic_rule)
{
	/* an Intel no profile was measured on (Skylake-X): zmm first, rep stosb
	 * from two pages, non-temporal from half its LLC */
	struct described skx = x86("GenuineIntel", 6, 0x55, ERMS | AVX2 | Z512, 38);
	cr_assert_str_eq(skx.source, "generic");
	assert_bands("skx", "any", &skx.policy.any,
		     BANDS({ 0, "avx512" }, { 4, "rep_stosb" }, { MIB_PAGES(19), "avx2_nt" }));
	cr_expect_eq(skx.policy.parallel_min_share_pages, MIB_PAGES(8));
	/* an AMD with AVX-512 but no profile (a future family): no zmm kernel,
	 * no rep stosb band, clzero for non-temporal stores */
	struct described amd = x86("AuthenticAMD", 0x1f, 0x01, ERMS | FSRM | AVX2 | Z512 | CLZ, 32);
	cr_assert_str_eq(amd.source, "generic");
	assert_bands("amd", "any", &amd.policy.any,
		     BANDS({ 0, "avx2" }, { MIB_PAGES(16), "clzero" }));
	assert_bands("amd", "cold", &amd.policy.cold, BANDS({ 0, "clzero" }));
	/* qemu64: no ERMS, no AVX2; the emulator's default caches */
	struct described q = x86("AuthenticAMD", 0xf, 0x6b, 0, 32);
	cr_assert_str_eq(q.source, "generic");
	assert_bands("qemu64", "any", &q.policy.any,
		     BANDS({ 0, "rep_stosq" }, { MIB_PAGES(16), "movnti" }));
	/* Haswell: AVX2 and ERMS, an 8 MiB LLC */
	struct described hsw = x86("GenuineIntel", 6, 0x3c, ERMS | AVX2, 8);
	assert_bands("haswell", "any", &hsw.policy.any,
		     BANDS({ 0, "avx2" }, { 4, "rep_stosb" }, { MIB_PAGES(4), "avx2_nt" }));
	/* a huge reported LLC is capped at 64 MiB */
	struct described big = x86("GenuineIntel", 6, 0x6a, ERMS | FSRM | AVX2, 1024);
	cr_expect_eq(cp__policy_nt_from(&big.policy), MIB_PAGES(64));
}

Test(select, a_profile_for_another_cpu_is_never_selected)
{
	static const char zen4[] = "version 2\narch x86_64\ncpu AuthenticAMD 25 17 AMD EPYC\n"
				   "band 0 avx2\nband 16M avx2_nt\nparallel 8M\nend\n";
	struct described spr = x86("GenuineIntel", 6, 0x8f, ERMS | FSRM | AVX2 | Z512, 480);
	struct cp__profile pr;
	struct cp__profile_error err;
	cr_assert_eq(cp__profile_parse(zen4, sizeof(zen4) - 1, &spr.usable, &pr, &err), 0,
		     "line %u: %s", err.line, err.why);
	cr_expect_not(cp__profile_cpu_matches(&pr, &spr.cpu), "a Zen 4 profile on a Sapphire Rapids");
	struct described z4 = x86("AuthenticAMD", 25, 17, ERMS | FSRM | AVX2 | CLZ | Z512, 32);
	strcpy(z4.cpu.model, "AMD EPYC");
	cr_expect(cp__profile_cpu_matches(&pr, &z4.cpu));
	strcpy(z4.cpu.model, "AMD EPYC 9654");
	cr_expect_not(cp__profile_cpu_matches(&pr, &z4.cpu), "another brand");
	/* built-ins are looked up by the detected name only */
	cr_expect_null(cp__builtin_find(""));
	cr_expect_null(cp__builtin_find("intel-sapphire"));
	cr_expect_not_null(cp__builtin_find("amd-zen4"));
}

Test(select, overrides_apply_to_bands)
{
	struct described d = x86("GenuineIntel", 6, 0xcf, ERMS | FSRM | AVX2 | Z512, 300);
	struct cp__select_in in = { &d.cpu, &d.usable, NULL, 1, 256, NULL, NULL };   /* 1 MiB */
	cp__select(&in, &d.policy);
	assert_bands("emr nt=1M", "any", &d.policy.any,
		     BANDS({ 0, "avx512" }, { 8, "rep_stosb" }, { 256, "avx2_nt" }));
	in.nt_threshold_pages = 0;
	cp__select(&in, &d.policy);
	assert_bands("emr nt=0", "any", &d.policy.any, BANDS({ 0, "avx2_nt" }));
	assert_bands("emr nt=0", "hot", &d.policy.hot, BANDS({ 0, "avx512" }, { 8, "rep_stosb" }));
	in.has_nt_threshold = 0;
	in.forced = cp__list_find(&d.usable, "movq");
	cp__select(&in, &d.policy);
	assert_bands("emr forced", "any", &d.policy.any, BANDS({ 0, "movq" }));
	assert_bands("emr forced", "hot", &d.policy.hot, BANDS({ 0, "movq" }));
	assert_bands("emr forced", "cold", &d.policy.cold, BANDS({ 0, "movq" }));
}

/* The recorded sweeps: tests/test_generic_rule.c. */
#endif

#if defined(__aarch64__)
Test(select, arm64_models)
{
	struct described a53 = arm(CP__F_DCZVA, 64);
	cr_expect_str_eq(a53.source, "generic");
	assert_bands("a53", "any", &a53.policy.any,
		     BANDS({ 0, "dc_zva" }, { MIB_PAGES(4), "stnp" }));
	struct described a64fx = arm(CP__F_DCZVA | CP__F_SVE, 256);
	assert_bands("a64fx", "any", &a64fx.policy.any,
		     BANDS({ 0, "dc_zva" }, { MIB_PAGES(4), "stnp" }));
	struct described max = arm(CP__F_DCZVA | CP__F_SVE | CP__F_MOPS, 512);
	assert_bands("max", "any", &max.policy.any,
		     BANDS({ 0, "mops" }, { MIB_PAGES(4), "mops_nt" }));
	struct described dzp = arm(CP__F_SVE, 0);
	assert_bands("dzp", "any", &dzp.policy.any,
		     BANDS({ 0, "sve" }, { MIB_PAGES(4), "stnp" }));
}
#endif

/* No rows: no kernel to fill the list with, so it is left exactly as it was
 * (it once filled every slot from band[-1]). */
Test(select, bands_set_with_no_rows_leaves_the_list)
{
	const struct cp__bands *any = &cp__state()->policy.any;
	struct { struct cp__bands before, list, after; } s;
	memset(&s.before, 0xa5, sizeof(s.before));
	memset(&s.after, 0x5a, sizeof(s.after));
	s.list = *any;
	cp__bands_set(&s.list, NULL, 0);
	cr_assert(!memcmp(&s.list, any, sizeof(s.list)), "the list changed");
	unsigned char want_before[sizeof(s.before)], want_after[sizeof(s.after)];
	memset(want_before, 0xa5, sizeof(want_before));
	memset(want_after, 0x5a, sizeof(want_after));
	cr_assert(!memcmp(&s.before, want_before, sizeof(want_before)), "wrote before the list");
	cr_assert(!memcmp(&s.after, want_after, sizeof(want_after)), "wrote after the list");
}
