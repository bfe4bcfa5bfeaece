/*
 * arm64-only tests: the DC ZVA loop at every step, the raw kernels called
 * directly (whatever CLEARPAGES_DISABLE says), and the emulated CPU model
 * (DC ZVA block, SVE vector length) the matrix runner says it set up.
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
	unsigned want_block = (dczid & (1u << 4)) ? 0 : 4u << (dczid & 0xf);
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
		{ "cp_arm64_dc_zva",  cp_arm64_dc_zva,  CP__F_DCZVA },
		{ "cp_arm64_sve",     cp_arm64_sve,     CP__F_SVE },
		{ "cp_arm64_mops",    cp_arm64_mops,    CP__F_MOPS },
		{ "cp_arm64_mops_nt", cp_arm64_mops_nt, CP__F_MOPS },
	};
	static const size_t pages[] = { 1, 2, 5 };
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
		cp_arm64_stp, cp_arm64_stp_q, cp_arm64_stnp, cp_arm64_dc_zva,
		cp_arm64_sve, cp_arm64_mops, cp_arm64_mops_nt,
	};
	static const unsigned needs[] = { 0, 0, 0, CP__F_DCZVA, CP__F_SVE, CP__F_MOPS, CP__F_MOPS };
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
