/*
 * cp_arm64_stp_q: clear pages with `stp q0, q0` of a zeroed vector register
 * (32 bytes a store).
 *
 * Half the store instructions of stp xzr for the same bytes: on wide cores
 * (Cortex-A7x/X, Neoverse) whose store pipes take 128-bit data it keeps up with
 * the L1 at small extents. Temporal. No feature needed beyond AdvSIMD, which
 * every AArch64 Linux system has. Clobbers v0 (caller-saved in AAPCS64).
 *
 * Assumptions:
 * ARMv8-a, AArch64, AdvSIMD; dst 4096-aligned, count >= 1 (no checks).
 */
#include "cp_arm64.h"

#define dst	x0	/* in: addr */
#define count	x1	/* in: npages */
#define dstend	x2
#define zero	q0	/* zeroed vector */

	.arch	armv8-a

/* void cp_arm64_stp_q(void *addr, size_t npages) */
ENTRY cp_arm64_stp_q
	movi	v0.2d, #0
	add	dstend, dst, count, lsl CP_PAGE_SHIFT
	/* Two 64-byte lines per iteration (4096 is a multiple of 128). */
1:	stp	zero, zero, [dst, 32]
	stp	zero, zero, [dst, 64]
	stp	zero, zero, [dst, 96]
	stp	zero, zero, [dst], 128
	cmp	dst, dstend
	b.ne	1b
	ret
END cp_arm64_stp_q
