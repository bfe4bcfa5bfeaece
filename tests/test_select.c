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
enum { ERMS = CP__F_ERMS, FSRM = CP__F_FSRM, AVX2 = CP__F_AVX2, CLZ = CP__F_CLZERO,
       Z512 = CP__F_AVX512 };

/* A built-in row is applied as it stands (each row on its described CPU,
 * and held to its host's recorded tables: tests/test_builtin_rows.c). Under
 * CLEARPAGES_DISABLE a band whose kernel is masked takes the generic choice
 * of its class: the first kernel of that class in cp_kernels()'s ranking
 * (arch/x86_64/kernels.def), zmm kernels skipped where the CPU splits 512-bit
 * stores (AMD). The row's boundaries are read from the row; the names below
 * follow from the ranking alone. */
Test(select, a_masked_rows_kernel_takes_the_first_of_its_class)
{
	static const struct {
		const char *who, *vendor;
		unsigned family, model, features, mask;
		size_t llc_mib;
		const char *uarch;
		const char *want[3];     /* per row band; NULL: the row's own */
	} cases[] = {
		{ "emr -avx512", "GenuineIntel", 6, 0xcf, ERMS | FSRM | AVX2 | Z512, Z512, 300,
		  "intel-emerald-rapids", { "avx2", NULL, NULL } },
		/* sse2 and movnti are all that is left of the vector kernels, and
		 * rep stosb ranks first of the temporal ones */
		{ "emr -avx512,avx2", "GenuineIntel", 6, 0xcf, ERMS | FSRM | AVX2 | Z512, Z512 | AVX2,
		  300, "intel-emerald-rapids", { "rep_stosb", NULL, "movnti" } },
		{ "spr -avx2", "GenuineIntel", 6, 0x8f, ERMS | FSRM | AVX2 | Z512, AVX2, 480,
		  "intel-sapphire-rapids", { "avx512", NULL, "avx512_nt" } },
		/* AMD: the zmm kernel is skipped for the next temporal one */
		{ "zen4 -avx2", "AuthenticAMD", 0x19, 0x11, ERMS | FSRM | AVX2 | CLZ | Z512, AVX2, 32,
		  "amd-zen4", { "rep_stosb", NULL } },
		{ "zen4 -clzero", "AuthenticAMD", 0x19, 0x11, ERMS | FSRM | AVX2 | CLZ | Z512, CLZ, 32,
		  "amd-zen4", { NULL, "avx2_nt" } },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct described d = x86(cases[c].vendor, cases[c].family, cases[c].model,
					 cases[c].features, cases[c].llc_mib);
		const struct cp__builtin *b = cp__builtin_find(cases[c].uarch);
		cr_assert_not_null(b, "%s", cases[c].uarch);
		cr_assert_leq(b->nbands, 3, "%s: a row of %u bands; extend the cases", b->uarch,
			      b->nbands);
		select_for(&d, cases[c].mask, NULL);
		cr_expect_str_eq(d.source + strlen("builtin:"), b->uarch, "%s", cases[c].who);
		for (unsigned j = 0; j < b->nbands; j++) {
			const char *want = cases[c].want[j] ? cases[c].want[j] : b->bands[j].kernel;
			const struct cp_kernel *got = cp__bands_pick(&d.policy.any, b->bands[j].from_pages);
			cr_expect_str_eq(got->name, want, "%s: the row's band %u (%s from %zu pages): "
					 "%s, want %s", cases[c].who, j, b->bands[j].kernel,
					 b->bands[j].from_pages, got->name, want);
		}
	}
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
	/* on Emerald Rapids the string row takes the generic temporal choice,
	 * the row's first kernel (zmm stores), so the two merge */
	struct described emr = x86("GenuineIntel", 6, 0xcf, ERMS | FSRM | AVX2 | Z512, 300);
	const struct cp__builtin *row = cp__builtin_find("intel-emerald-rapids");
	cr_assert(row && row->nbands == 3 && !strcmp(row->bands[1].kernel, "rep_stosb"),
		  "the Emerald Rapids row is no longer zmm, rep stosb, non-temporal");
	select_for(&emr, mask, NULL);
	assert_bands("emr -erms,fsrm", "any", &emr.policy.any,
		     BANDS({ 0, row->bands[0].kernel },
			   { row->bands[2].from_pages, row->bands[2].kernel }));
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

/* CLEARPAGES_NT_THRESHOLD: the hot bands below it, the cold ones from it;
 * CLEARPAGES_KERNEL: that kernel everywhere. Emerald Rapids' row (read from
 * the row: zmm stores, rep stosb, non-temporal) with the threshold inside
 * its rep stosb band. */
Test(select, overrides_apply_to_bands)
{
	struct described d = x86("GenuineIntel", 6, 0xcf, ERMS | FSRM | AVX2 | Z512, 300);
	const struct cp__builtin *row = cp__builtin_find(d.cpu.uarch);
	cr_assert(row && row->nbands == 3 && row->bands[1].from_pages < 256 &&
		  row->bands[2].from_pages > 256, "the Emerald Rapids row moved: pick another threshold");
	const struct cp__bands hot = d.policy.hot, cold = d.policy.cold;
	struct cp__select_in in = { &d.cpu, &d.usable, NULL, 1, 256, NULL, NULL };   /* 1 MiB */
	cp__select(&in, &d.policy);
	assert_bands("emr nt=1M", "any", &d.policy.any,
		     BANDS({ 0, row->bands[0].kernel }, { row->bands[1].from_pages, row->bands[1].kernel },
			   { 256, cp__bands_pick(&cold, 256)->name }));
	in.nt_threshold_pages = 0;
	cp__select(&in, &d.policy);
	assert_bands("emr nt=0", "any", &d.policy.any, BANDS({ 0, cp__bands_pick(&cold, 1)->name }));
	cr_expect(cp__bands_eq(&d.policy.hot, &hot), "emr nt=0: the hot bands moved");
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
