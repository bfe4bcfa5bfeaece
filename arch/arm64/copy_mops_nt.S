/* SPDX-License-Identifier: MIT */
/*
 * cp_arm64_copy_mops_nt - copy pages with the non-temporal FEAT_MOPS
 * forward-only memcpy `cpyfpn/cpyfmn/cpyfen`
 *
 * The MOPS memcpy with the no-temporal-locality hint on both the reads and
 * the writes (the N form; not WN, writes only): the library picks a
 * non-temporal kernel for an extent beyond the cache, and it halves the copy's
 * threshold because a copy moves two extents through the cache. Keeping only
 * the destination out would still pull the whole source in; so, as
 * ldnp_stnp, both sides stream. CPYF, forward-only, as the temporal mops.
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

/* void cp_arm64_copy_mops_nt(void *dst, const void *src, size_t npages) */
ENTRY cp_arm64_copy_mops_nt
	CP_MOPS_CPY dst, src, npages, count, n
	ret
END cp_arm64_copy_mops_nt
