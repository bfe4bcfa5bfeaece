/* SPDX-License-Identifier: MIT */
/*
 * cp_arm64_stp - clear pages with `stp xzr, xzr`, 64 bytes per iteration
 *
 * The baseline every AArch64 core runs, temporal, with no feature and no
 * FP/SIMD state: for code that must not touch vector registers.
 *
 * Assumptions:
 * ARMv8-a, AArch64; dst 4096-aligned; npages == 0 does nothing.
 */
#include "cp_arm64.h"

#define dst	x0	/* in: addr; ends at dstend */
#define npages	x1	/* in: npages */
#define dstend	x2

	.arch	armv8-a

/* void cp_arm64_stp(void *addr, size_t npages) */
ENTRY cp_arm64_stp
	CP_STORE_LOOP stp, xzr, 16, post, dst, npages, dstend
	ret
END cp_arm64_stp
