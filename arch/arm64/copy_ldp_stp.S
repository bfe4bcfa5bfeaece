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
#define src	x1	/* in: source */
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
	CP_NO_PAGES npages, 2f
	add	dstend, dst, npages, lsl CP_PAGE_SHIFT
1:	ldp	a_lo, a_hi, [src]
	ldp	b_lo, b_hi, [src, 16]
	ldp	c_lo, c_hi, [src, 32]
	ldp	d_lo, d_hi, [src, 48]
	add	src, src, 64
	stp	a_lo, a_hi, [dst]
	stp	b_lo, b_hi, [dst, 16]
	stp	c_lo, c_hi, [dst, 32]
	stp	d_lo, d_hi, [dst, 48]
	add	dst, dst, 64
	cmp	dst, dstend
	b.ne	1b
2:	ret
END cp_arm64_copy_ldp_stp
