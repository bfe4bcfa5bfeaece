/* SPDX-License-Identifier: MIT */
/*
 * The general-register request: the CP_SIMD flag, the `simd` token of
 * CLEARPAGES_DISABLE (both arches) and the pseudo-feature SIMD behind it,
 * which detection always sets and every CP_SIMD kernel needs. Natively in a
 * child process with CLEARPAGES_DISABLE=simd; in this process when a runner
 * sets it (the arm64 matrix's max-nosimd row); over every built-in profile
 * and the generic rule for a described CPU with SIMD masked.
 */
#include "testutil.h"
#include "nosimd.h"

Test(nosimd, token_applies_to_both_arches)
{
	cr_assert_eq(cp__disable_parse("simd", NULL, NULL), CP__F_SIMD);
	cr_assert_eq(cp__disable_parse(" SiMd ", NULL, NULL), CP__F_SIMD);
	const struct cp__feature_token *t = cp__feature_token_find("simd", 4);
	cr_assert(t && !strcmp(t->arch, "any") && cp__feature_token_here(t));
}

/* CP_SIMD and the pseudo-feature go together in every row of the table. */
Test(nosimd, flag_and_need_agree)
{
	for (size_t i = 0; i < cp__kernel_table_len; i++) {
		const struct cp__kernel_desc *d = &cp__kernel_table[i];
		cr_expect_eq(!!(d->kernel.flags & CP_SIMD), !!(d->needs & CP__F_SIMD),
			     "%s: flags 0x%x, needs 0x%x", d->kernel.name, d->kernel.flags, d->needs);
	}
	for (size_t i = 0; i < cp__copy_kernel_table_len; i++) {
		const struct cp__copy_kernel_desc *d = &cp__copy_kernel_table[i];
		cr_expect_eq(!!(d->kernel.flags & CP_SIMD), !!(d->needs & CP__F_SIMD),
			     "copy %s: flags 0x%x, needs 0x%x", d->kernel.name, d->kernel.flags,
			     d->needs);
	}
}

Test(nosimd, detection_always_sets_simd)
{
	cr_assert(cp__state()->cpu.features & CP__F_SIMD);
}

CHILD_BODY(nosimd_report)
{
	char why[256];
	printf("nosimd=%s\n", nosimd_check(why, sizeof(why)) ? why : "ok");
}

Test(nosimd, disable_simd_leaves_general_register_kernels)
{
	static const char *const values[] = { "simd", "erms,SIMD", "Simd,sve,avx2" };
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		const char *const e[] = { "CLEARPAGES_DISABLE", values[i], NULL };
		struct child_out co = in_child(e, nosimd_report);
		cr_expect(strstr(co.out, "nosimd=ok\n"), "CLEARPAGES_DISABLE=%s: %s", values[i],
			  co.out);
		cr_expect_str_empty(co.err, "CLEARPAGES_DISABLE=%s: %s", values[i], co.err);
	}
}

Test(nosimd, this_process_when_asked)
{
	char why[256];
	if (!nosimd_requested())
		cr_skip_test("CLEARPAGES_DISABLE does not mask simd here");
	cr_assert(!nosimd_check(why, sizeof(why)), "%s", why);
}

/* Selection alone: a CPU with every feature, SIMD masked, under each
 * built-in profile and the generic rule, both preference sets, small and
 * large caches: every band of any, hot and cold is a general-register kernel
 * of the right class (a built-in row naming a vector kernel takes the generic
 * choice of its class). */
static void expect_no_simd_bands(const char *who, const char *list, const struct cp__bands *b,
				 int want_nt)
{
	for (unsigned i = 0; i < cp__bands_count(b); i++) {
		const struct cp_kernel *k = b->band[i].kernel;
		cr_expect(!(k->flags & CP_SIMD), "%s %s band %u: %s", who, list, i, k->name);
		if (want_nt >= 0)
			cr_expect_eq(!!(k->flags & CP_NONTEMPORAL), want_nt, "%s %s band %u: %s",
				     who, list, i, k->name);
	}
}

Test(nosimd, selection_never_picks_a_vector_kernel)
{
	static const size_t llc[] = { (size_t)1 << 20, (size_t)32 << 20, (size_t)480 << 20 };
	static const unsigned prefs[] = { 0, CP__P_STRING_MID | CP__P_NO_AVX512 };
	for (size_t u = 0; u <= cp__builtins_len; u++)
		for (size_t c = 0; c < sizeof(llc) / sizeof(llc[0]); c++)
			for (size_t p = 0; p < 2; p++) {
				struct cp__cpu cpu;
				struct cp__kernel_list usable;
				struct cp__policy pol;
				memset(&cpu, 0, sizeof(cpu));
				snprintf(cpu.uarch, sizeof(cpu.uarch), "%s",
					 u < cp__builtins_len ? cp__builtins[u].uarch : "");
				cpu.features = ~0u;
				cpu.prefs = prefs[p];
				cpu.l2_bytes = (size_t)1 << 20;
				cpu.llc_bytes = llc[c];
				cpu.dczva_block_bytes = 64;
				cp__registry_build(cpu.features & ~CP__F_SIMD, &usable);
				struct cp__select_in in = { &cpu, &usable, NULL, 0, 0, NULL, NULL };
				cp__select(&in, &pol);
				char who[96];
				snprintf(who, sizeof(who), "%s llc %zu prefs %u",
					 cpu.uarch[0] ? cpu.uarch : "generic", llc[c], prefs[p]);
				expect_no_simd_bands(who, "any", &pol.any, -1);
				expect_no_simd_bands(who, "hot", &pol.hot, 0);
				expect_no_simd_bands(who, "cold", &pol.cold, 1);
			}
}
