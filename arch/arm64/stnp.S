/* SPDX-License-Identifier: MIT */
/*
 * cp_arm64_stnp - clear pages with `stnp q0, q0`, the non-temporal store pair,
 * 128 bytes per iteration
 *
 * The non-temporal hint lets the core stream zeros past the cache, sparing the
 * caller's working set; it needs no feature: the non-temporal fallback.
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

/* void cp_arm64_stnp(void *addr, size_t npages) */
ENTRY cp_arm64_stnp
	movi	v0.2d, #0
	CP_STORE_LOOP stnp, zero, 32, add, dst, npages, dstend
	ret
END cp_arm64_stnp
