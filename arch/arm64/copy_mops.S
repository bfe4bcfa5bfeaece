/* SPDX-License-Identifier: MIT */
/*
 * cp_arm64_copy_mops - copy pages with the FEAT_MOPS forward-only memcpy
 * `cpyfp/cpyfm/cpyfe`
 *
 * The CPU copies the range the way best for its own microarchitecture,
 * temporal: what Arm recommends for memcpy where FEAT_MOPS exists. CPYF, not
 * CPY: the ranges never overlap, so the forward-only (memcpy) form is exact
 * and spares the direction choice of the memmove form (CP_MOPS_CPY).
 *
 * Assumptions:
 * ARMv8.8-a (FEAT_MOPS, HWCAP2_MOPS), AArch64; dst and src 4096-aligned, not
 * overlapping; npages == 0 does nothing.
 */
#include "cp_arm64.h"

#define dst	x0	/* in: destination; advanced by the CPY sequence */
#define src	x1	/* in: source; advanced by the CPY sequence */
#define npages	x2	/* in: pages to copy */
#define count	x2	/* then bytes left, counted down by the CPY sequence */

	.arch	armv8.8-a

/* void cp_arm64_copy_mops(void *dst, const void *src, size_t npages) */
ENTRY cp_arm64_copy_mops
	CP_MOPS_CPY dst, src, npages, count
	ret
END cp_arm64_copy_mops
