/* SPDX-License-Identifier: MIT */
/*
 * cp_arm64_copy_sve - copy pages with VL-agnostic SVE `ld1b/st1b`, four
 * vectors per iteration and a predicated tail
 *
 * Wider than ldp/stp q where vectors exceed 128 bits (A64FX 512, Neoverse V1
 * 256); whilelo ends the tail exactly on any VL, even one that does not divide
 * 4096, and an inactive element is neither loaded nor stored, so the tail
 * reads and writes nothing past the two ranges.
 *
 * Assumptions:
 * ARMv8.2-a + SVE (HWCAP_SVE: the caller checks), AArch64; dst and src
 * 4096-aligned, not overlapping; npages == 0 does nothing. Any vector length
 * from 16 to 256 bytes, a power of two or not (48 bytes, say). Clobbers
 * z0-z3, p0, p1 (caller-saved in AAPCS64).
 */
#include "cp_arm64.h"

#define dst	x0	/* in: destination */
#define src	x1	/* in: source; advanced with dst */
#define npages	x2	/* in: pages to copy */
#define step	x3	/* 4 x VL bytes */
#define count	x4	/* bytes left; counted, not compared against an end
			   address, which would wrap for a range ending at 2^64 */
#define off	x5	/* tail: offset from dst and src */

	.arch	armv8.2-a+sve

/* void cp_arm64_copy_sve(void *dst, const void *src, size_t npages) */
ENTRY cp_arm64_copy_sve
	CP_NO_PAGES npages, 4f
	ptrue	p0.b
	lsl	count, npages, CP_PAGE_SHIFT
	cntb	step, all, mul #4
	cmp	count, step
	b.lo	2f
	/* Four whole vectors per iteration while they fit. */
1:	ld1b	z0.b, p0/z, [src, #0, mul vl]
	ld1b	z1.b, p0/z, [src, #1, mul vl]
	ld1b	z2.b, p0/z, [src, #2, mul vl]
	ld1b	z3.b, p0/z, [src, #3, mul vl]
	addvl	src, src, #4
	st1b	z0.b, p0, [dst, #0, mul vl]
	st1b	z1.b, p0, [dst, #1, mul vl]
	st1b	z2.b, p0, [dst, #2, mul vl]
	st1b	z3.b, p0, [dst, #3, mul vl]
	addvl	dst, dst, #4
	sub	count, count, step
	cmp	count, step
	b.hs	1b
	/* Tail (< 4 x VL; none when VL is a power of two): whilelo stops exactly
	   after count bytes. */
2:	mov	off, 0
	whilelo	p1.b, off, count
	b.none	4f
3:	ld1b	z0.b, p1/z, [src, off]
	st1b	z0.b, p1, [dst, off]
	incb	off
	whilelo	p1.b, off, count
	b.first	3b
4:	ret
END cp_arm64_copy_sve
