/* SPDX-License-Identifier: MIT */
/*
 * cp_arm64_mops - clear pages with the FEAT_MOPS memset `setp/setm/sete`
 *
 * The CPU fills the range the way best for its own microarchitecture,
 * temporal: what Arm recommends for memset where FEAT_MOPS exists.
 *
 * Assumptions:
 * ARMv8.8-a (FEAT_MOPS, HWCAP2_MOPS), AArch64; dst 4096-aligned; npages == 0
 * does nothing.
 */
#include "cp_arm64.h"

#define dst	x0	/* in: addr; advanced by the SET sequence */
#define npages	x1	/* in: npages */
#define count	x1	/* then bytes left, counted down by the SET sequence */

	.arch	armv8.8-a

/* void cp_arm64_mops(void *addr, size_t npages) */
ENTRY cp_arm64_mops
	CP_MOPS_SET dst, npages, count
	ret
END cp_arm64_mops
