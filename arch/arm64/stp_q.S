/* SPDX-License-Identifier: MIT */
/*
 * cp_arm64_stp_q - clear pages with `stp q0, q0` of a zeroed vector, 128 bytes
 * per iteration
 *
 * Half the store instructions of stp xzr for the same bytes, temporal: cores
 * whose store pipes take 128-bit data keep up with the L1 at small extents.
 *
 * Assumptions:
 * ARMv8-a, AArch64, AdvSIMD; dst 4096-aligned; npages == 0 does nothing.
 * Clobbers v0 (caller-saved in AAPCS64).
 */
#include "cp_arm64.h"

#define dst	x0	/* in: addr; ends at dstend */
#define npages	x1	/* in: npages */
#define dstend	x2
#define zero	q0	/* zeroed vector */

	.arch	armv8-a

/* void cp_arm64_stp_q(void *addr, size_t npages) */
ENTRY cp_arm64_stp_q
	movi	v0.2d, #0
	CP_STORE_LOOP stp, zero, 32, post, dst, npages, dstend
	ret
END cp_arm64_stp_q
