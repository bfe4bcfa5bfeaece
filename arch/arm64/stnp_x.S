/* SPDX-License-Identifier: MIT */
/*
 * cp_arm64_stnp_x - clear pages with `stnp xzr, xzr`, the non-temporal store
 * pair of general registers, 64 bytes per iteration
 *
 * The non-temporal path for callers that must not touch FP/SIMD state (what
 * CLEARPAGES_DISABLE=simd leaves where there is no MOPS): half the width of
 * stnp q0, the same hint.
 *
 * Assumptions:
 * ARMv8-a, AArch64; dst 4096-aligned; npages == 0 does nothing.
 */
#include "cp_arm64.h"

#define dst	x0	/* in: addr; ends at dstend */
#define npages	x1	/* in: npages */
#define dstend	x2

	.arch	armv8-a

/* void cp_arm64_stnp_x(void *addr, size_t npages) */
ENTRY cp_arm64_stnp_x
	CP_STORE_LOOP stnp, xzr, 16, add, dst, npages, dstend
	ret
END cp_arm64_stnp_x
