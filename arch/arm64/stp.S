/*
 * cp_arm64_stp: clear pages with `stp xzr, xzr` (16 bytes a store).
 *
 * The baseline every AArch64 core runs: no feature needed, no vector state
 * touched, temporal (lines are allocated in the cache). It wins where nothing
 * else is allowed or worth it: DC ZVA prohibited (DCZID_EL0.DZP) and code that
 * must not use FP/SIMD registers (kernels, signal handlers, -mgeneral-regs-only).
 *
 * Assumptions:
 * ARMv8-a, AArch64; dst 4096-aligned, count >= 1 (no checks).
 */
#include "cp_arm64.h"

#define dst	x0	/* in: addr */
#define count	x1	/* in: npages */
#define dstend	x2

	.arch	armv8-a

/* void cp_arm64_stp(void *addr, size_t npages) */
ENTRY cp_arm64_stp
	add	dstend, dst, count, lsl CP_PAGE_SHIFT
	/* One 64-byte line per iteration: four pair stores, then one
	   post-incremented pair so the loop carries a single add. */
1:	stp	xzr, xzr, [dst, 16]
	stp	xzr, xzr, [dst, 32]
	stp	xzr, xzr, [dst, 48]
	stp	xzr, xzr, [dst], 64
	cmp	dst, dstend
	b.ne	1b
	ret
END cp_arm64_stp
