/* SPDX-License-Identifier: MIT */
/*
 * cp_arm64_copy_ldnp_stnp - copy pages with ldnp/stnp of q register pairs,
 * the non-temporal load and store pairs, 128 bytes per iteration
 *
 * The non-temporal hint on both sides lets the core stream the source and the
 * destination past the cache, sparing the caller's working set for an extent
 * larger than it; it needs no feature: the non-temporal fallback.
 *
 * Assumptions:
 * ARMv8-a, AArch64, AdvSIMD; dst and src 4096-aligned, not overlapping;
 * npages == 0 does nothing. Clobbers v0-v7 (caller-saved in AAPCS64).
 */
#include "cp_arm64.h"

#define dst	x0	/* in: destination; ends at dstend */
#define src	x1	/* in: source; advanced with dst */
#define npages	x2	/* in: pages to copy */
#define dstend	x3
#define a_lo	q0
#define a_hi	q1
#define b_lo	q2
#define b_hi	q3
#define c_lo	q4
#define c_hi	q5
#define d_lo	q6
#define d_hi	q7

	.arch	armv8-a

/* void cp_arm64_copy_ldnp_stnp(void *dst, const void *src, size_t npages) */
ENTRY cp_arm64_copy_ldnp_stnp
	CP_COPY_PAIR_LOOP ldnp, stnp, 32, add, dst, src, npages, dstend, \
		a_lo, a_hi, b_lo, b_hi, c_lo, c_hi, d_lo, d_hi
	ret
END cp_arm64_copy_ldnp_stnp
