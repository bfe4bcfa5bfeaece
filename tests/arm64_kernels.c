/* SPDX-License-Identifier: MIT */
/*
 * arm64-only tests: the DC ZVA loop at every step, the raw kernels called
 * directly (whatever CLEARPAGES_DISABLE says), the emulated CPU model
 * (DC ZVA block, SVE vector length) the matrix runner says it set up, and
 * detection from ID register values (synthetic, and read with MRS).
 * Sized for qemu (CP_TEST_QUICK=1): a few pages per call.
 */
#include "testutil.h"
#include "testhooks.h"
#include <stdio.h>
#include <sys/auxv.h>
#include <sys/prctl.h>

#ifndef PR_SVE_GET_VL
#define PR_SVE_GET_VL 51
#endif
#ifndef PR_SVE_VL_LEN_MASK
#define PR_SVE_VL_LEN_MASK 0xffff
#endif

/* arch/arm64/dc_zva.S: the loop of cp_arm64_dc_zva with an explicit step. */
void cp__arm64_dc_zva_step(void *addr, size_t npages, size_t step);

/* Clear npages in the middle of a guarded fill (one fill page either side). */
static void check_clear(const char *who, void (*clear)(void *, size_t), size_t npages)
{
	struct guarded g = guarded_map(npages + 2);
	memset(g.mem, FILL, g.len);
	clear(g.mem + CP_PAGE_SIZE, npages);
	assert_cleared(who, g.mem, g.len, CP_PAGE_SIZE, npages * CP_PAGE_SIZE);
	guard_unmap(&g);
}

static unsigned long read_dczid(void)
{
	unsigned long v;
	__asm__ volatile("mrs %0, dczid_el0" : "=r"(v));
	return v;
}

/* Every power-of-two step from 4 B up to the real block: a smaller step zeroes
 * a block more than once and never skips one, so each must clear exactly. */
Test(arm64, dc_zva_every_step)
{
	unsigned long dczid = read_dczid();
	if (dczid & (1u << 4))
		cr_skip_test("DC ZVA prohibited here (DCZID_EL0.DZP set)");
	size_t block = (size_t)4 << (dczid & 0xf);
	static const size_t pages[] = { 1, 3 };
	for (size_t step = 4; step <= block; step *= 2) {
		for (size_t p = 0; p < sizeof(pages) / sizeof(pages[0]); p++) {
			struct guarded g = guarded_map(pages[p] + 2);
			char who[64];
			snprintf(who, sizeof(who), "dc_zva step %zu (block %zu)", step, block);
			memset(g.mem, FILL, g.len);
			cp__arm64_dc_zva_step(g.mem + CP_PAGE_SIZE, pages[p], step);
			assert_cleared(who, g.mem, g.len, CP_PAGE_SIZE, pages[p] * CP_PAGE_SIZE);
			guard_unmap(&g);
		}
	}
}

/* cpu.c reports what DCZID_EL0 says, and the model is the one the runner set up. */
Test(arm64, dc_zva_block_matches_model)
{
	const struct cp__state *st = cp__state();
	unsigned long dczid = read_dczid();
	unsigned want_block = (dczid & (1u << 4)) || (dczid & 0xf) > 9 ? 0 : 4u << (dczid & 0xf);
	cr_assert_eq(st->cpu.dczva_block_bytes, want_block,
		     "cpu.c says block %u, DCZID_EL0 (0x%lx) says %u",
		     st->cpu.dczva_block_bytes, dczid, want_block);
	cr_assert_eq(!!(st->cpu.features & CP__F_DCZVA), want_block != 0);
	const char *e = getenv("CP_EXPECT_DCZVA_BLOCK");
	if (!e || !*e)
		cr_skip_test("CP_EXPECT_DCZVA_BLOCK not set: no CPU model to check against");
	cr_assert_eq(want_block, (unsigned)strtoul(e, NULL, 0),
		     "DC ZVA block %u, the model should have %s", want_block, e);
}

Test(arm64, sve_vector_length_matches_model)
{
	const char *e = getenv("CP_EXPECT_SVE_VL");
	int has_sve = !!(cp__state()->cpu.features & CP__F_SVE);
	cr_assert_eq(has_sve, !!(getauxval(AT_HWCAP) & (1UL << 22)));
	if (!e || !*e)
		cr_skip_test("CP_EXPECT_SVE_VL not set: no CPU model to check against");
	unsigned want = (unsigned)strtoul(e, NULL, 0);
	if (!want) {
		cr_assert(!has_sve, "SVE present, the model should have none");
		return;
	}
	cr_assert(has_sve, "no SVE, the model should have VL %u", want);
	int vl = prctl(PR_SVE_GET_VL);
	cr_assert(vl >= 0, "PR_SVE_GET_VL failed");
	cr_assert_eq((unsigned)(vl & PR_SVE_VL_LEN_MASK), want,
		     "SVE VL %d bytes, the model should have %u", vl & PR_SVE_VL_LEN_MASK, want);
}

/* The raw symbols, called directly on every kernel the CPU can run, even when
 * CLEARPAGES_DISABLE hides it from cp_kernels(): the drop-in objects are used
 * without the dispatcher. */
Test(arm64, raw_kernels_direct)
{
	const struct {
		const char *name;
		void (*clear)(void *, size_t);
		unsigned needs;
	} raw[] = {
		{ "cp_arm64_stp",     cp_arm64_stp,     0 },
		{ "cp_arm64_stp_q",   cp_arm64_stp_q,   0 },
		{ "cp_arm64_stnp",    cp_arm64_stnp,    0 },
		{ "cp_arm64_stnp_x",  cp_arm64_stnp_x,  0 },
		{ "cp_arm64_dc_zva",  cp_arm64_dc_zva,  CP__F_DCZVA },
		{ "cp_arm64_sve",     cp_arm64_sve,     CP__F_SVE },
		{ "cp_arm64_mops",    cp_arm64_mops,    CP__F_MOPS },
		{ "cp_arm64_mops_nt", cp_arm64_mops_nt, CP__F_MOPS },
	};
	static const size_t pages[] = { 0, 1, 2, 5 };
	unsigned have = cp__state()->cpu.features;
	for (size_t i = 0; i < sizeof(raw) / sizeof(raw[0]); i++) {
		if ((raw[i].needs & have) != raw[i].needs)
			continue;
		for (size_t p = 0; p < sizeof(pages) / sizeof(pages[0]); p++)
			check_clear(raw[i].name, raw[i].clear, pages[p]);
	}
}

/* Every raw kernel reaches the end exactly when the last page abuts a guard
 * page (a stray write faults) — SVE with a vector length that does not divide
 * 4096 (48 bytes) ends in its predicated tail. */
Test(arm64, raw_kernels_flush_with_guard)
{
	void (*const raw[])(void *, size_t) = {
		cp_arm64_stp, cp_arm64_stp_q, cp_arm64_stnp, cp_arm64_stnp_x, cp_arm64_dc_zva,
		cp_arm64_sve, cp_arm64_mops, cp_arm64_mops_nt,
	};
	static const unsigned needs[] = { 0, 0, 0, 0, CP__F_DCZVA, CP__F_SVE, CP__F_MOPS,
					  CP__F_MOPS };
	unsigned have = cp__state()->cpu.features;
	struct guarded g = guarded_map(4);
	for (size_t i = 0; i < sizeof(raw) / sizeof(raw[0]); i++) {
		if ((needs[i] & have) != needs[i])
			continue;
		memset(g.mem, FILL, g.len);
		raw[i](g.mem, 4);   /* from the leading guard to the trailing one */
		cr_assert_eq(first_not(g.mem, g.len, 0), g.len, "raw kernel %zu", i);
	}
	guard_unmap(&g);
}

/* cpu.c always fills a model string and non-zero cache sizes (defaults). */
Test(arm64, cpu_detect_fills_everything)
{
	const struct cp__state *st = cp__state();
	cr_assert_str_eq(st->cpu.vendor, "arm64");
	cr_assert(st->cpu.model[0] != '\0');
	cr_assert(st->cpu.l2_bytes > 0);
	cr_assert(st->cpu.llc_bytes >= st->cpu.l2_bytes,
		  "llc %zu < l2 %zu", st->cpu.llc_bytes, st->cpu.l2_bytes);
}

/* ---- Detection from ID register values (arch/arm64/cpu.c, cpu_regs.h) ---- */

#define HWCAP_CPUID_BIT (1UL << 11)
#define HWCAP_SVE_BIT   (1UL << 22)
#define HWCAP2_MOPS_BIT (1UL << 43)
#define PFR0_SVE        (1ULL << 32)   /* ID_AA64PFR0_EL1.SVE = 1 */
#define ISAR2_MOPS      (1ULL << 16)   /* ID_AA64ISAR2_EL1.MOPS = 1 */
#define DCZID_DZP_BIT   0x10u

/* Register values of named cores (MIDR as qemu 10 and the cores report it;
 * the PFR0 and ISAR2 values keep the fields other than SVE and MOPS set, so
 * a shift or mask that reads the wrong field shows). */
static const struct described_core {
	const char *what;
	unsigned long long midr, pfr0, isar2, dczid;
	unsigned features, block, implementer, part;
	const char *uarch;
} described_cores[] = {
	{ "cortex-a53", 0x410fd034, 0x11, 0, 0x4,
	  CP__F_DCZVA, 64, 0x41, 0xd03, "arm-cortex-a53" },
	{ "cortex-a57", 0x411fd070, 0x11, 0, 0x4,
	  CP__F_DCZVA, 64, 0x41, 0xd07, "arm-cortex-a57" },
	{ "cortex-a72", 0x410fd083, 0x11, 0, 0x4,
	  CP__F_DCZVA, 64, 0x41, 0xd08, "arm-cortex-a72" },
	{ "neoverse-n1", 0x414fd0c1, 0x1100000010112222ULL, 0, 0x4,
	  CP__F_DCZVA, 64, 0x41, 0xd0c, "arm-neoverse-n1" },
	{ "neoverse-n1, DC ZVA prohibited (DZP)", 0x414fd0c1, 0x1100000010112222ULL, 0,
	  DCZID_DZP_BIT | 0x4, 0, 0, 0x41, 0xd0c, "arm-neoverse-n1" },
	{ "neoverse-n2", 0x410fd493, 0x1101000110011ULL | PFR0_SVE, 0x0000000000001100ULL, 0x4,
	  CP__F_DCZVA | CP__F_SVE, 64, 0x41, 0xd49, "arm-neoverse-n2" },
	{ "neoverse-v1", 0x411fd402, 0x1101000110011ULL | PFR0_SVE, 0, 0x4,
	  CP__F_DCZVA | CP__F_SVE, 64, 0x41, 0xd40, "arm-neoverse-v1" },
	{ "neoverse-v2", 0x410fd4f0, 0x1101000110011ULL | PFR0_SVE, 0x1100, 0x4,
	  CP__F_DCZVA | CP__F_SVE, 64, 0x41, 0xd4f, "arm-neoverse-v2" },
	{ "a64fx with SVE", 0x461f0010, 0x100110011ULL, 0, 0x6,
	  CP__F_DCZVA | CP__F_SVE, 256, 0x46, 0x001, "fujitsu-a64fx" },
	{ "ampereone", 0xc00fac30, 0x1000000010011ULL, 0, 0x4,
	  CP__F_DCZVA, 64, 0xc0, 0xac3, "ampere-ampereone" },
	{ "neoverse-n1 with a 2 KiB DC ZVA block (BS 9, the largest dc_zva steps)", 0x414fd0c1,
	  0x1100000010112222ULL, 0, 0x9, CP__F_DCZVA, 2048, 0x41, 0xd0c, "arm-neoverse-n1" },
	{ "neoverse-n1 with a 4 KiB DC ZVA block (BS 10): no DC ZVA", 0x414fd0c1,
	  0x1100000010112222ULL, 0, 0xa, 0, 0, 0x41, 0xd0c, "arm-neoverse-n1" },
	{ "a 32 KiB DC ZVA block (BS 13): no DC ZVA", 0x414fd0c1,
	  0x1100000010112222ULL, 0, 0xd, 0, 0, 0x41, 0xd0c, "arm-neoverse-n1" },
	{ "qemu max (MOPS, SVE; implementer 0: no uarch)", 0x000f0510,
	  0x1000100110011ULL, 0x110012, 0x7,
	  CP__F_DCZVA | CP__F_SVE | CP__F_MOPS, 512, 0x00, 0x051, "" },
	{ "a MOPS core without SVE, MOPS field 2", 0x410fd8e0, 0x1100000010112222ULL,
	  2 * ISAR2_MOPS, 0x4, CP__F_DCZVA | CP__F_MOPS, 64, 0x41, 0xd8e, "arm-neoverse-n3" },
	{ "no MIDR (reads 0), every other field but SVE/MOPS set",
	  0, ~(0xfULL << 32), ~(0xfULL << 16), 0x4,
	  CP__F_DCZVA, 64, 0, 0, "" },
};

/* Every described core, each checked in full (non-fatal: every row reports). */
Test(arm64, cpu_from_regs_described_cores)
{
	for (size_t i = 0; i < sizeof(described_cores) / sizeof(described_cores[0]); i++) {
		const struct described_core *d = &described_cores[i];
		struct cp__cpu c;
		memset(&c, 0xa5, sizeof(c));   /* it must fill everything, not OR into it */
		cp__cpu_from_regs(&c, d->midr, d->pfr0, d->isar2, d->dczid);
		cr_expect_eq(c.features, d->features | CP__F_SIMD, "%s: features 0x%x, want 0x%x",
			     d->what, c.features, d->features | CP__F_SIMD);
		cr_expect_eq(c.dczva_block_bytes, d->block, "%s: DC ZVA block %u, want %u",
			     d->what, c.dczva_block_bytes, d->block);
		cr_expect_eq(c.midr_implementer, d->implementer, "%s: implementer 0x%x",
			     d->what, c.midr_implementer);
		cr_expect_eq(c.midr_part, d->part, "%s: part 0x%x", d->what, c.midr_part);
		cr_expect_str_eq(c.uarch, d->uarch, "%s: uarch \"%s\", want \"%s\"",
				 d->what, c.uarch, d->uarch);
		cr_expect_str_eq(c.vendor, "arm64", "%s", d->what);
		cr_expect(c.l2_bytes > 0 && c.llc_bytes >= c.l2_bytes, "%s: caches", d->what);
		cr_expect_eq(c.prefs, 0u, "%s: prefs", d->what);
		cr_expect_eq(c.family | c.model_id | c.stepping, 0u, "%s: x86 fields", d->what);
	}
}

Test(arm64, cpu_from_regs_model_string)
{
	struct cp__cpu c;
	cp__cpu_from_regs(&c, 0x410fd034, 0x11, 0, 0x4);
	cr_expect_str_eq(c.model, "Arm 0x41 part 0xd03 r0p4 (MIDR 0x410fd034)");
	cp__cpu_from_regs(&c, 0x461f0010, 0, 0, 0x6);
	cr_expect_str_eq(c.model, "Fujitsu 0x46 part 0x001 r1p0 (MIDR 0x461f0010)");
	cp__cpu_from_regs(&c, 0x000f0510, 0, 0, 0x7);
	cr_expect_str_eq(c.model, "implementer 0x00 part 0x051 r0p0 (MIDR 0x000f0510)");
	cp__cpu_from_regs(&c, 0, 0, 0, 0x4);
	cr_expect_str_eq(c.model, "unknown arm64");
}

static int have_cpuid_emulation(void)
{
	return !!(getauxval(AT_HWCAP) & HWCAP_CPUID_BIT);
}

/* The MRS path agrees with what the kernel (or qemu-user) says in HWCAP and
 * with the hosted detection. */
Test(arm64, cpu_detect_mrs_agrees_with_hwcap)
{
	if (!have_cpuid_emulation())
		cr_skip_test("no HWCAP_CPUID: the kernel does not emulate ID register "
			     "reads at EL0, so MRS of MIDR_EL1/ID_AA64* would trap");
	struct cp__cpu c;
	const struct cp__cpu *hosted = &cp__state()->cpu;
	cp__cpu_detect_mrs(&c);
	cr_expect_eq(!!(c.features & CP__F_SVE), !!(getauxval(AT_HWCAP) & HWCAP_SVE_BIT),
		     "SVE: ID_AA64PFR0_EL1 and HWCAP_SVE disagree");
	cr_expect_eq(!!(c.features & CP__F_MOPS), !!(getauxval(AT_HWCAP2) & HWCAP2_MOPS_BIT),
		     "MOPS: ID_AA64ISAR2_EL1 and HWCAP2_MOPS disagree");
	cr_expect_eq(c.features, hosted->features, "MRS features 0x%x, hosted 0x%x",
		     c.features, hosted->features);
	cr_expect_eq(c.dczva_block_bytes, hosted->dczva_block_bytes);
	/* The hosted path takes MIDR from /sys (cpu0) on an arm64 kernel, which on
	 * a big.LITTLE system need not be the core this thread runs on. */
	if (access("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1", R_OK) != 0) {
		cr_expect_eq(c.midr_implementer, hosted->midr_implementer);
		cr_expect_eq(c.midr_part, hosted->midr_part);
		cr_expect_str_eq(c.uarch, hosted->uarch);
	}
}

/* Under qemu-user (the matrix sets QEMU_CPU), MIDR_EL1 read with MRS is the
 * emulated model's, and the hosted detection names the same uarch. */
Test(arm64, cpu_detect_mrs_midr_matches_qemu_model)
{
	static const struct {
		const char *qemu_cpu;
		unsigned implementer, part;
		const char *uarch;
	} models[] = {
		{ "cortex-a53", 0x41, 0xd03, "arm-cortex-a53" },
		{ "cortex-a57", 0x41, 0xd07, "arm-cortex-a57" },
		{ "cortex-a72", 0x41, 0xd08, "arm-cortex-a72" },
		{ "neoverse-n1", 0x41, 0xd0c, "arm-neoverse-n1" },
		{ "neoverse-n2", 0x41, 0xd49, "arm-neoverse-n2" },
		{ "neoverse-v1", 0x41, 0xd40, "arm-neoverse-v1" },
		{ "a64fx", 0x46, 0x001, "fujitsu-a64fx" },
		{ "max", 0x00, 0x051, "" },   /* qemu's own implementer 0, part 0x051 */
	};
	const char *e = getenv("QEMU_CPU");
	if (!e || !*e)
		cr_skip_test("QEMU_CPU not set: no emulated model to check MIDR against");
	if (!have_cpuid_emulation())
		cr_skip_test("no HWCAP_CPUID under QEMU_CPU=%s: MRS of MIDR_EL1 would trap", e);
	size_t base = strcspn(e, ",");
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		if (strlen(models[i].qemu_cpu) != base || strncmp(e, models[i].qemu_cpu, base))
			continue;
		struct cp__cpu c;
		cp__cpu_detect_mrs(&c);
		cr_expect_eq(c.midr_implementer, models[i].implementer,
			     "%s: MIDR implementer 0x%x", e, c.midr_implementer);
		cr_expect_eq(c.midr_part, models[i].part, "%s: MIDR part 0x%x", e, c.midr_part);
		cr_expect_str_eq(c.uarch, models[i].uarch, "%s: uarch from MRS", e);
		cr_expect_str_eq(cp__state()->cpu.uarch, models[i].uarch, "%s: hosted uarch", e);
		return;
	}
	cr_skip_test("QEMU_CPU=%s: no MIDR recorded for this model here", e);
}
