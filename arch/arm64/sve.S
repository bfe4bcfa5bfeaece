/*
 * cp_arm64_sve: clear pages with SVE stores of a zero vector, VL-agnostic.
 *
 * One `st1b` stores a whole vector (16 .. 256 bytes); four per iteration keep
 * the store pipes busy on A64FX (512-bit) and Neoverse V1 (256-bit), where a
 * vector store beats stp q. The vector length need not be a power of two
 * (SVE allows 48 bytes, say), so 4096 need not be a multiple of 4 x VL: the
 * tail runs under a whilelo predicate and never writes past the end. Temporal.
 * Needs HWCAP_SVE (the caller checks). Clobbers z0 and p0/p1 (caller-saved).
 *
 * Assumptions:
 * ARMv8.2-a + SVE, AArch64; dst 4096-aligned, count >= 1 (no checks).
 */
#include "cp_arm64.h"

#define dst	x0	/* in: addr */
#define count	x1	/* in: npages */
#define step	x2	/* 4 x VL bytes */
#define rem	x3	/* bytes left; counted, not compared against an end
			   address, which would wrap for a range ending at 2^64 */
#define off	x4

	.arch	armv8.2-a+sve

/* void cp_arm64_sve(void *addr, size_t npages) */
ENTRY cp_arm64_sve
	mov	z0.b, #0
	ptrue	p0.b
	lsl	rem, count, CP_PAGE_SHIFT
	cntb	step, all, mul #4
	cmp	rem, step
	b.lo	2f
	/* Four whole vectors per iteration while they fit. */
1:	st1b	z0.b, p0, [dst, #0, mul vl]
	st1b	z0.b, p0, [dst, #1, mul vl]
	st1b	z0.b, p0, [dst, #2, mul vl]
	st1b	z0.b, p0, [dst, #3, mul vl]
	addvl	dst, dst, #4
	sub	rem, rem, step
	cmp	rem, step
	b.hs	1b
	/* Tail (< 4 x VL; none when VL is a power of two): whilelo stops exactly
	   after rem bytes. */
2:	mov	off, 0
	whilelo	p1.b, off, rem
	b.none	4f
3:	st1b	z0.b, p1, [dst, off]
	incb	off
	whilelo	p1.b, off, rem
	b.first	3b
4:	ret
END cp_arm64_sve
