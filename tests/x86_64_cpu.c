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
#define L1D_TSC     (1u << 4)
#define E7D_INVTSC  (1u << 8)

enum { E = CP__F_ERMS, M = CP__F_FSRM, S = CP__F_FSRS, A2 = CP__F_AVX2, A5 = CP__F_AVX512,
       CZ = CP__F_CLZERO, CT = CP__F_COUNTER };

/* The leaves of the first rows in their order; the fields added since
 * (leaf 1 EDX, 0x80000007 EDX, 0x15, 0x16) are 0 there, named where a row
 * needs them. */
#define LEAVES(l1c, l7a, l7b, l7d, l71a, e8b, x0) \
	.l1_ecx = (l1c), .l7_eax = (l7a), .l7_ebx = (l7b), .l7_edx = (l7d), \
	.l7s1_eax = (l71a), .e8_ebx = (e8b), .xcr0 = (x0)

static const struct {
	const char *what;
	struct cp__x86_cpuid id;
	unsigned want;
} described[] = {
	{ "Sapphire Rapids: everything, subleaf 1 with FSRS",
	  { LEAVES(L1_AVX | L1_OSXSAVE, 1, L7_ERMS | L7_AVX2 | L7_AVX512F, L7D_FSRM, L71_FSRS, 0,
		   XCR0_ZMM) },
	  E | M | S | A2 | A5 },
	{ "Zen 4: no FSRS, clzero",
	  { LEAVES(L1_AVX | L1_OSXSAVE, 1, L7_ERMS | L7_AVX2 | L7_AVX512F, L7D_FSRM, 0, 1,
		   XCR0_ZMM) },
	  E | M | A2 | A5 | CZ },
	{ "AVX2 bit set but AVX clear: no AVX2, no AVX-512",
	  { LEAVES(L1_OSXSAVE, 0, L7_ERMS | L7_AVX2 | L7_AVX512F, 0, 0, 0, XCR0_ZMM) }, E },
	{ "AVX and AVX2 but no OSXSAVE (XCR0 unreadable): no AVX2",
	  { LEAVES(L1_AVX, 0, L7_AVX2, 0, 0, 0, 0) }, 0 },
	{ "OSXSAVE but the OS saves no AVX state: no AVX2",
	  { LEAVES(L1_AVX | L1_OSXSAVE, 0, L7_AVX2, 0, 0, 0, 0x03) }, 0 },
	{ "AVX state but no ZMM state: AVX2 only",
	  { LEAVES(L1_AVX | L1_OSXSAVE, 0, L7_AVX2 | L7_AVX512F, 0, 0, 0, XCR0_AVX) }, A2 },
	{ "AVX512F with ZMM state but AVX clear: neither",
	  { LEAVES(L1_OSXSAVE, 0, L7_AVX512F | L7_AVX2, 0, 0, 0, XCR0_ZMM) }, 0 },
	{ "FSRS bit where 7.0 EAX says no subleaf 1: ignored",
	  { LEAVES(0, 0, L7_ERMS, 0, L71_FSRS, 0, 0) }, E },
	{ "FSRS without ERMS (subleaf 1 exists)",
	  { LEAVES(0, 2, 0, 0, L71_FSRS, 0, 0) }, S },
	{ "FSRM alone", { LEAVES(0, 0, 0, L7D_FSRM, 0, 0, 0) }, M },
	{ "qemu64: nothing", { LEAVES(0, 0, 0, 0, 0, 0, 0) }, 0 },
	/* COUNTER: a TSC whose rate holds across P-states and idle */
	{ "TSC and invariant TSC: counter", { .l1_edx = L1D_TSC, .e7_edx = E7D_INVTSC }, CT },
	{ "TSC without invariant TSC (rate follows the P-state): no counter",
	  { .l1_edx = L1D_TSC }, 0 },
	{ "invariant TSC bit without the TSC itself: no counter", { .e7_edx = E7D_INVTSC }, 0 },
	{ "Sapphire Rapids with its TSC bits: counter beside the rest",
	  { LEAVES(L1_AVX | L1_OSXSAVE, 1, L7_ERMS | L7_AVX2 | L7_AVX512F, L7D_FSRM, L71_FSRS, 0,
		   XCR0_ZMM), .l1_edx = L1D_TSC | 0x178bfbff, .e7_edx = E7D_INVTSC },
	  E | M | S | A2 | A5 | CT },
};

Test(x86_64_cpu, features_from_described_cpuid)
{
	for (size_t i = 0; i < sizeof(described) / sizeof(described[0]); i++) {
		unsigned got = cp__x86_features(&described[i].id);
		cr_expect_eq(got, described[i].want, "%s: features 0x%x, want 0x%x",
			     described[i].what, got, described[i].want);
	}
}

/* The TSC's rate: leaf 0x15 (crystal Hz * EBX / EAX) where all three are
 * given, else leaf 0x16's base MHz (low 16 bits), else unknown (0: the
 * library then measures it). */
Test(x86_64_cpu, counter_hz_from_described_leaves)
{
	static const struct {
		const char *what;
		struct cp__x86_cpuid id;
		unsigned long long want;
	} rows[] = {
		{ "0x15: 24 MHz crystal, ratio 216/2 (Ice Lake server)",
		  { .l15 = { 2, 216, 24000000 } }, 2592000000ull },
		{ "0x15: 25 MHz crystal, ratio 168/2, 0x16 disagrees: 0x15 wins",
		  { .l15 = { 2, 168, 25000000 }, .l16_eax = 2000 }, 2100000000ull },
		{ "0x15 without the crystal (ECX 0): 0x16's 2600 MHz",
		  { .l15 = { 2, 216, 0 }, .l16_eax = 2600 }, 2600000000ull },
		{ "0x15 ratio with EAX 0 (no division by zero): 0x16",
		  { .l15 = { 0, 216, 24000000 }, .l16_eax = 2100 }, 2100000000ull },
		{ "0x16 upper half set (reserved bits): only EAX[15:0] counts",
		  { .l16_eax = 0xabcd0000u | 2600 }, 2600000000ull },
		{ "neither leaf (a hypervisor's view, this VM): unknown", { .l1_edx = L1D_TSC }, 0 },
		{ "a crystal whose product passes 32 bits", { .l15 = { 1, 200, 38400000 } },
		  7680000000ull },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		unsigned long long got = cp__x86_counter_hz(&rows[i].id);
		cr_expect_eq(got, rows[i].want, "%s: %llu Hz, want %llu", rows[i].what, got,
			     rows[i].want);
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
