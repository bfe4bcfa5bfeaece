/* SPDX-License-Identifier: MIT */
/*
 * The copy policy over described CPUs (no emulation): copy bands are a
 * built-in row's own, else the clear's `any` bands with each kernel's copy
 * counterpart at the same extent (common/copy_bands.c, cp__copy_bands_derive).
 * Properties for every described CPU, exact bands for a few rows.
 */
#include "select_util.h"

/* The copy bands as "[from name] ...", for messages. */
static const char *copy_text(const struct cp__copy_bands *b, char *buf, size_t len)
{
	buf[0] = '\0';
	for (unsigned i = 0; i < CP__MAX_BANDS && b->band[i].from_pages != CP__BAND_UNUSED; i++) {
		size_t l = strlen(buf);
		snprintf(buf + l, len - l, " [%zu %s]", b->band[i].from_pages,
			 b->band[i].kernel ? b->band[i].kernel->name : "NULL");
	}
	return buf;
}

#if defined(__x86_64__)
static void expect_copy_bands(const char *who, const struct cp__copy_bands *b,
			      const struct want_band *want, unsigned n)
{
	char text[256];
	copy_text(b, text, sizeof(text));
	for (unsigned i = 0; i < CP__MAX_BANDS; i++) {
		int used = i < n;
		cr_expect(used ? b->band[i].from_pages == want[i].from_pages && b->band[i].kernel &&
				 !strcmp(b->band[i].kernel->name, want[i].kernel)
			       : b->band[i].from_pages == CP__BAND_UNUSED,
			  "%s copy band %u: got%s", who, i, text);
	}
}
#endif

/* The class (CP_NONTEMPORAL or 0) of a copy kernel of the table by name;
 * -1 for a name it does not know. */
static int copy_class(const char *name)
{
	for (size_t i = 0; i < cp__copy_kernel_table_len; i++)
		if (!strcmp(cp__copy_kernel_table[i].kernel.name, name))
			return (int)(cp__copy_kernel_table[i].kernel.flags & CP_NONTEMPORAL);
	return -1;
}

/* What holds for every CPU: bands ascending from 0, every kernel usable;
 * at each extent e the copy kernel's class is that of the built-in copy
 * row's kernel at e where the CPU's row has copy bands, else that of the
 * clear's kernel at 2e; no vector kernel with SIMD masked. */
static void expect_copy_properties(const char *who, unsigned disable, struct described *d,
				   int own_rows)
{
	struct cp__decide_in in = { .cpu = &d->cpu, .disable = disable, .quiet = 1 };
	struct cp__state s;
	char text[256];
	cp__state_decide(&in, &s);
	const struct cp__copy_bands *b = &s.policy.copy;
	copy_text(b, text, sizeof(text));
	cr_assert_eq(b->band[0].from_pages, 0, "%s: copy bands start at 0:%s", who, text);
	for (unsigned i = 0; i < CP__MAX_BANDS; i++) {
		cr_assert_not_null(b->band[i].kernel, "%s: copy band %u has no kernel", who, i);
		cr_expect_eq(cp__copy_list_find(&s.copy_kernels, b->band[i].kernel->name),
			     b->band[i].kernel, "%s: %s is not a usable copy kernel", who,
			     b->band[i].kernel->name);
		if (i && b->band[i].from_pages != CP__BAND_UNUSED)
			cr_expect_gt(b->band[i].from_pages, b->band[i - 1].from_pages, "%s:%s", who, text);
		if (disable & CP__F_SIMD)
			cr_expect_not(b->band[i].kernel->flags & CP_SIMD, "%s: %s uses vector registers",
				      who, b->band[i].kernel->name);
	}
	const struct cp__builtin *row = cp__builtin_find(d->cpu.uarch);
	cr_assert_eq(own_rows, row && row->ncopy, "%s: own_rows %d, the row has %u copy bands",
		     who, own_rows, row ? row->ncopy : 0);
	for (size_t e = 1; e <= ((size_t)1 << 20); e *= 2) {
		unsigned c = cp__copy_bands_pick(b, e)->flags & CP_NONTEMPORAL;
		if (own_rows) {
			const char *name = row->copy[0].kernel;
			for (unsigned i = 1; i < row->ncopy; i++)
				if (e >= row->copy[i].from_pages)
					name = row->copy[i].kernel;
			cr_expect_eq((int)c, copy_class(name), "%s: %zu pages: copy %s for the row's %s",
				     who, e, cp__copy_bands_pick(b, e)->name, name);
			continue;
		}
		unsigned k = cp__bands_pick(&s.policy.any, e)->flags & CP_NONTEMPORAL;
		cr_expect_eq(c, k, "%s: %zu pages: copy %s, clear %s", who, e,
			     cp__copy_bands_pick(b, e)->name, cp__bands_pick(&s.policy.any, e)->name);
	}
}

#if defined(__x86_64__)
enum { ERMS = CP__F_ERMS, FSRM = CP__F_FSRM, AVX2 = CP__F_AVX2, CLZ = CP__F_CLZERO,
       Z512 = CP__F_AVX512, CTR = CP__F_COUNTER };

static const struct {
	const char *who, *vendor;
	unsigned family, model, features;
	size_t llc_mib;
	int own_rows;           /* a built-in row with copy bands of its own */
} cpus[] = {
	{ "sapphire rapids", "GenuineIntel", 6, 0x8f, ERMS | FSRM | AVX2 | Z512, 480, 0 },
	{ "emerald rapids", "GenuineIntel", 6, 0xcf, ERMS | FSRM | AVX2 | Z512, 300, 0 },
	{ "zen 3", "AuthenticAMD", 0x19, 0x01, ERMS | FSRM | AVX2 | CLZ, 32, 0 },
	{ "zen 4", "AuthenticAMD", 0x19, 0x11, ERMS | FSRM | AVX2 | CLZ | Z512, 32, 0 },
	{ "zen 5", "AuthenticAMD", 0x1a, 0x02, ERMS | FSRM | AVX2 | CLZ | Z512 | CTR, 32, 1 },
	{ "generic intel", "GenuineIntel", 6, 0x6a, ERMS | FSRM | AVX2, 1024, 0 },
	{ "qemu64", "AuthenticAMD", 0xf, 0x6b, 0, 32, 0 },
};

Test(copy_policy, every_described_cpu_and_mask)
{
	/* every token of this arch alone, and the combinations that leave each
	 * class its general-register kernels only (every built-in row under
	 * every subset of the tokens: tests/test_builtin_rows.c) */
	static const unsigned masks[] = { 0, CP__F_SIMD, CP__F_AVX2 | CP__F_AVX512,
					  CP__F_ERMS | CP__F_FSRM, CP__F_AVX512, CP__F_AVX2,
					  CP__F_ERMS, CP__F_FSRM, CP__F_FSRS, CP__F_CLZERO,
					  CP__F_COUNTER, CP__F_AVX512 | CP__F_ERMS | CP__F_FSRM };
	for (size_t c = 0; c < sizeof(cpus) / sizeof(cpus[0]); c++)
		for (size_t m = 0; m < sizeof(masks) / sizeof(masks[0]); m++) {
			struct described d = x86(cpus[c].vendor, cpus[c].family, cpus[c].model,
						 cpus[c].features, cpus[c].llc_mib);
			char who[64];
			snprintf(who, sizeof(who), "%s, mask %#x", cpus[c].who, masks[m]);
			expect_copy_properties(who, masks[m], &d, cpus[c].own_rows);
		}
}

/* A row without copy bands copies with each clear band's counterpart
 * (CP_COPY_FOR, else the copy kernel of the same name, else the first of its
 * class: clzero -> avx2_nt, or movnti without vector registers) from the
 * band's own extent. The rows are read from cp__builtins; whether the
 * result copies well: tests/test_builtin_rows.c, on a recorded copy sweep. */
static const char *counterpart(const char *clear, int simd)
{
	static const char *const other[][2] = { { "rep_stosb", "rep_movsb" },
						{ "rep_stosq", "rep_movsq" },
						{ "movq", "rep_movsq" } };
	for (size_t i = 0; i < sizeof(other) / sizeof(other[0]); i++)
		if (!strcmp(clear, other[i][0]))
			return other[i][1];
	if (!strcmp(clear, "clzero"))
		return simd ? "avx2_nt" : "movnti";
	return clear;
}

Test(copy_policy, rows_without_copy_bands_take_counterparts_at_the_same_extent)
{
	unsigned rows = 0;
	for (size_t c = 0; c < sizeof(cpus) / sizeof(cpus[0]); c++)
		for (int simd = 1; simd >= 0; simd--) {
			struct described d = x86(cpus[c].vendor, cpus[c].family, cpus[c].model,
						 cpus[c].features, cpus[c].llc_mib);
			const struct cp__builtin *row = cp__builtin_find(d.cpu.uarch);
			if (!row || row->ncopy)
				continue;
			if (!simd)
				select_for(&d, CP__F_SIMD, NULL);
			rows++;
			/* equal neighbours merged */
			struct want_band want[CP__MAX_BANDS];
			unsigned n = 0;
			for (unsigned i = 0; i < cp__bands_count(&d.policy.any); i++) {
				struct want_band w = { d.policy.any.band[i].from_pages,
						       counterpart(d.policy.any.band[i].kernel->name, simd) };
				if (n && w.from_pages <= want[n - 1].from_pages)
					n--;
				if (!n || strcmp(w.kernel, want[n - 1].kernel))
					want[n++] = w;
			}
			char who[64];
			snprintf(who, sizeof(who), "%s%s", cpus[c].who, simd ? "" : ", simd masked");
			expect_copy_bands(who, &d.policy.copy, want, n);
			if (simd)   /* the clear bands are the row's */
				for (unsigned i = 0; i < row->nbands; i++)
					cr_expect_str_eq(cp__bands_pick(&d.policy.any, row->bands[i].from_pages)->name,
							 row->bands[i].kernel, "%s band %u", who, i);
		}
	cr_expect_geq(rows, 6, "%u rows without copy bands", rows);
}

/* A row's copy bands are applied as they stand (read from the row: what
 * they should be is Zen 5's record, tests/test_builtin_rows.c), and
 * CLEARPAGES_DISABLE=avx512 keeps the small copies temporal: the next
 * temporal copy kernel of the ranking (copy_kernels.def), avx2, never
 * avx2_nt. */
Test(copy_policy, a_rows_copy_bands_and_their_mask)
{
	struct described z5 = x86("AuthenticAMD", 0x1a, 0x02, ERMS | FSRM | AVX2 | CLZ | Z512 | CTR, 32);
	const struct cp__builtin *row = cp__builtin_find(z5.cpu.uarch);
	cr_assert(row && row->ncopy >= 2, "%s: no copy bands", z5.cpu.uarch);
	cr_assert_str_eq(row->copy[0].kernel, "avx512", "the Zen 5 copy row no longer starts with avx512");
	char want[64];
	snprintf(want, sizeof(want), "builtin:%s", row->uarch);
	cr_assert_str_eq(z5.source, want);
	for (unsigned i = 0; i < row->ncopy; i++)
		cr_expect_str_eq(cp__copy_bands_pick(&z5.policy.copy, row->copy[i].from_pages)->name,
				 row->copy[i].kernel, "copy band %u", i);
	select_for(&z5, CP__F_AVX512, NULL);
	for (size_t e = 1; e < row->copy[1].from_pages; e++) {
		const char *got = cp__copy_bands_pick(&z5.policy.copy, e)->name;
		cr_expect_str_eq(got, "avx2", "avx512 masked, %zu pages: %s", e, got);
	}
	cr_expect_str_eq(cp__copy_bands_pick(&z5.policy.copy, row->copy[1].from_pages)->name,
			 row->copy[1].kernel);
}

/* CLEARPAGES_KERNEL names a clear kernel: the copy bands stay; an NT
 * threshold moves them (to the same extent, as every clear band). */
Test(copy_policy, forced_kernel_and_nt_threshold)
{
	struct described d = x86("GenuineIntel", 6, 0x8f, ERMS | FSRM | AVX2 | Z512, 480);
	struct cp__copy_bands plain = d.policy.copy;
	struct cp__decide_in in = { .cpu = &d.cpu, .quiet = 1, .forced_name = "movnti" };
	struct cp__state s;
	cr_assert_eq(cp__state_decide(&in, &s), 0);
	cr_expect(cp__copy_bands_eq(&s.policy.copy, &plain), "CLEARPAGES_KERNEL moved the copy bands");
	in.forced_name = NULL;
	in.has_nt_threshold = 1;
	in.nt_threshold_pages = 256;            /* 1 MiB */
	cp__state_decide(&in, &s);
	cr_expect_str_eq(cp__copy_bands_pick(&s.policy.copy, 255)->name, "rep_movsb");
	cr_expect_str_eq(cp__copy_bands_pick(&s.policy.copy, 256)->name, "avx2_nt");
}
#endif

#if defined(__aarch64__)
Test(copy_policy, arm64_counterparts)
{
	struct described plain = arm(0, 64), all = arm(CP__F_DCZVA | CP__F_SVE | CP__F_MOPS, 64);
	expect_copy_properties("armv8.0", 0, &plain, 0);
	expect_copy_properties("mops sve dczva", 0, &all, 0);
	expect_copy_properties("mops sve dczva, simd masked", CP__F_SIMD, &all, 0);
	cr_expect_str_eq(cp__copy_bands_pick(&all.policy.copy, 1)->name,
			 cp__bands_pick(&all.policy.any, 1)->name, "mops clears, mops copies");
}
#endif

/* A policy published by hand without copy bands gets derived ones. */
Test(copy_policy, hand_made_policy_gets_copy_bands)
{
	struct cp__policy p = cp__state()->policy;
	memset(&p.copy, 0, sizeof(p.copy));
	cr_assert_eq(cp__policy_publish(&p, "test"), 0);
	const struct cp__copy_bands *b = &cp__state()->policy.copy;
	cr_expect_eq(b->band[0].from_pages, 0);
	for (unsigned i = 0; i < CP__MAX_BANDS; i++)
		cr_expect_not_null(b->band[i].kernel, "hand-made policy: copy band %u has no kernel", i);
}
