/* SPDX-License-Identifier: MIT */
/*
 * cp_arm64_mops_nt - clear pages with the non-temporal FEAT_MOPS memset
 * `setpn/setmn/seten`
 *
 * The MOPS memset with the no-temporal-locality hint, which Linux's arm64
 * clear_page uses: the CPU may stream the zeros past the cache.
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

/* void cp_arm64_mops_nt(void *addr, size_t npages) */
ENTRY cp_arm64_mops_nt
	CP_MOPS_SET dst, npages, count, n
	ret
END cp_arm64_mops_nt
