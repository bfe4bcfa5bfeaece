/* SPDX-License-Identifier: MIT */
/*
 * cp_arm64_copy_ldp_stp - copy pages with ldp/stp of x register pairs,
 * 64 bytes per iteration
 *
 * The baseline every AArch64 core runs, temporal, with no feature and no
 * FP/SIMD state: for code that must not touch vector registers.
 *
 * Assumptions:
 * ARMv8-a, AArch64; dst and src 4096-aligned, not overlapping;
 * npages == 0 does nothing.
 */
#include "cp_arm64.h"

#define dst	x0	/* in: destination; ends at dstend */
#define src	x1	/* in: source; advanced with dst */
#define npages	x2	/* in: pages to copy */
#define dstend	x3
#define a_lo	x4
#define a_hi	x5
#define b_lo	x6
#define b_hi	x7
#define c_lo	x8
#define c_hi	x9
#define d_lo	x10
#define d_hi	x11

	.arch	armv8-a

/* void cp_arm64_copy_ldp_stp(void *dst, const void *src, size_t npages) */
ENTRY cp_arm64_copy_ldp_stp
	CP_COPY_PAIR_LOOP ldp, stp, 16, post, dst, src, npages, dstend, \
		a_lo, a_hi, b_lo, b_hi, c_lo, c_hi, d_lo, d_hi
	ret
END cp_arm64_copy_ldp_stp
