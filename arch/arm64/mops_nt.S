/*
 * cp_arm64_mops_nt: clear pages with FEAT_MOPS `setpn/setmn/seten`, the
 * non-temporal SET sequence — what Linux's arm64 clear_page uses when the CPU
 * has MOPS.
 *
 * Same as cp_arm64_mops with the "no temporal locality" hint: the CPU may
 * stream the zeros past the cache, which wins for extents past the last-level
 * cache and keeps the caller's working set. Needs HWCAP2_MOPS (bit 43).
 *
 * The three instructions must stay consecutive and in this order, all on the
 * same registers: if the thread migrates between CPUs mid-sequence the kernel
 * may restart it from the prologue (Documentation/arch/arm64/mops.rst).
 *
 * Assumptions:
 * ARMv8.8-a (FEAT_MOPS), AArch64; dst 4096-aligned, count >= 1 (no checks).
 */
#include "cp_arm64.h"

#define dst	x0	/* in: addr; advanced by the SET sequence */
#define count	x1	/* in: npages; then bytes left, counted down by SET */

	.arch	armv8.8-a

/* void cp_arm64_mops_nt(void *addr, size_t npages) */
ENTRY cp_arm64_mops_nt
	lsl	count, count, CP_PAGE_SHIFT
	setpn	[dst]!, count!, xzr
	setmn	[dst]!, count!, xzr
	seten	[dst]!, count!, xzr
	ret
END cp_arm64_mops_nt
