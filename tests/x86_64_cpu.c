/* SPDX-License-Identifier: MIT */
/*
 * x86_64 feature bits from described CPUID leaves (cp__x86_features, the
 * pure part of arch/x86_64/cpu.c): no host needed. Each row is what a CPU (or
 * a hypervisor's view of one) reports; a wrong bit, a missing AVX or OSXSAVE
 * check, or an FSRS read from a subleaf that does not exist shows here.
 */
#include "testutil.h"
#include "testhooks.h"

#define L1_AVX      (1u << 28)
#define L1_OSXSAVE  (1u << 27)
#define L7_ERMS     (1u << 9)
#define L7_AVX2     (1u << 5)
#define L7_AVX512F  (1u << 16)
#define L7D_FSRM    (1u << 4)
#define L71_FSRS    (1u << 11)
#define XCR0_AVX    0x07ull       /* x87, SSE, AVX */
#define XCR0_ZMM    0xe7ull       /* and opmask, ZMM_Hi256, Hi16_ZMM */

enum { E = CP__F_ERMS, M = CP__F_FSRM, S = CP__F_FSRS, A2 = CP__F_AVX2, A5 = CP__F_AVX512,
       CZ = CP__F_CLZERO };

static const struct {
	const char *what;
	struct cp__x86_cpuid id;
	unsigned want;
} described[] = {
	{ "Sapphire Rapids: everything, subleaf 1 with FSRS",
	  { L1_AVX | L1_OSXSAVE, 1, L7_ERMS | L7_AVX2 | L7_AVX512F, L7D_FSRM, L71_FSRS, 0, XCR0_ZMM },
	  E | M | S | A2 | A5 },
	{ "Zen 4: no FSRS, clzero",
	  { L1_AVX | L1_OSXSAVE, 1, L7_ERMS | L7_AVX2 | L7_AVX512F, L7D_FSRM, 0, 1, XCR0_ZMM },
	  E | M | A2 | A5 | CZ },
	{ "AVX2 bit set but AVX clear: no AVX2, no AVX-512",
	  { L1_OSXSAVE, 0, L7_ERMS | L7_AVX2 | L7_AVX512F, 0, 0, 0, XCR0_ZMM }, E },
	{ "AVX and AVX2 but no OSXSAVE (XCR0 unreadable): no AVX2",
	  { L1_AVX, 0, L7_AVX2, 0, 0, 0, 0 }, 0 },
	{ "OSXSAVE but the OS saves no AVX state: no AVX2",
	  { L1_AVX | L1_OSXSAVE, 0, L7_AVX2, 0, 0, 0, 0x03 }, 0 },
	{ "AVX state but no ZMM state: AVX2 only",
	  { L1_AVX | L1_OSXSAVE, 0, L7_AVX2 | L7_AVX512F, 0, 0, 0, XCR0_AVX }, A2 },
	{ "AVX512F with ZMM state but AVX clear: neither",
	  { L1_OSXSAVE, 0, L7_AVX512F | L7_AVX2, 0, 0, 0, XCR0_ZMM }, 0 },
	{ "FSRS bit where 7.0 EAX says no subleaf 1: ignored",
	  { 0, 0, L7_ERMS, 0, L71_FSRS, 0, 0 }, E },
	{ "FSRS without ERMS (subleaf 1 exists)",
	  { 0, 2, 0, 0, L71_FSRS, 0, 0 }, S },
	{ "FSRM alone", { 0, 0, 0, L7D_FSRM, 0, 0, 0 }, M },
	{ "qemu64: nothing", { 0, 0, 0, 0, 0, 0, 0 }, 0 },
};

Test(x86_64_cpu, features_from_described_cpuid)
{
	for (size_t i = 0; i < sizeof(described) / sizeof(described[0]); i++) {
		unsigned got = cp__x86_features(&described[i].id);
		cr_expect_eq(got, described[i].want, "%s: features 0x%x, want 0x%x",
			     described[i].what, got, described[i].want);
	}
}

/* rep_stosb is ranked by ERMS or FSRS (kernels.def); FSRM alone, the rep
 * movsb bit, leaves it at the end of the temporal kernels. */
Test(x86_64_cpu, rep_stosb_ranked_by_erms_or_fsrs)
{
	static const struct { unsigned features; int ranked; } cases[] = {
		{ CP__F_ERMS, 1 }, { CP__F_FSRS, 1 }, { CP__F_FSRM, 0 }, { 0, 0 },
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct cp__kernel_list l;
		cp__registry_build(cases[c].features | CP__F_SIMD, &l);
		size_t at = 0, last_temporal = 0;
		for (size_t i = 0; i < l.n; i++) {
			if (!strcmp(l.k[i]->name, "rep_stosb"))
				at = i;
			if (!(l.k[i]->flags & CP_NONTEMPORAL))
				last_temporal = i;
		}
		cr_expect_eq(at != last_temporal, cases[c].ranked,
			     "features 0x%x: rep_stosb at %zu of %zu temporal", cases[c].features,
			     at, last_temporal + 1);
	}
}
