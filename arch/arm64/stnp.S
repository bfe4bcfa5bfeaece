/*
 * cp_arm64_stnp: clear pages with `stnp q0, q0`, the non-temporal store pair.
 *
 * STNP hints that the data will not be reused soon: cores that honour it
 * (Cortex-A57/A72 and later, Neoverse) stream the lines out with write
 * combining instead of filling the cache with zeros, which wins for extents
 * past the last-level cache and leaves the caller's working set in place.
 * Needs no feature, so it is also the non-temporal fallback when DC ZVA is
 * prohibited and MOPS absent. Clobbers v0 (caller-saved in AAPCS64).
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

/* void cp_arm64_stnp(void *addr, size_t npages) */
ENTRY cp_arm64_stnp
	movi	v0.2d, #0
	add	dstend, dst, count, lsl CP_PAGE_SHIFT
	/* STNP has no writeback form: offsets, then one add per 128 bytes. */
1:	stnp	zero, zero, [dst]
	stnp	zero, zero, [dst, 32]
	stnp	zero, zero, [dst, 64]
	stnp	zero, zero, [dst, 96]
	add	dst, dst, 128
	cmp	dst, dstend
	b.ne	1b
	ret
END cp_arm64_stnp
