/*
 * cp_arm64_mops: clear pages with FEAT_MOPS `setp/setm/sete` (memset in
 * hardware, temporal).
 *
 * The CPU picks the best way to fill the range for its own microarchitecture
 * (block size, cache policy, alignment) in three instructions: the way Arm
 * recommends for memset on cores that have it. Needs HWCAP2_MOPS (bit 43).
 *
 * The three instructions must stay consecutive and in this order, all on the
 * same registers: if the thread migrates between CPUs mid-sequence the kernel
 * may restart it from the prologue (Documentation/arch/arm64/mops.rst), which
 * only works when nothing else sits between them.
 *
 * Assumptions:
 * ARMv8.8-a (FEAT_MOPS), AArch64; dst 4096-aligned, count >= 1 (no checks).
 */
#include "cp_arm64.h"

#define dst	x0	/* in: addr; advanced by the SET sequence */
#define count	x1	/* in: npages; then bytes left, counted down by SET */

	.arch	armv8.8-a

/* void cp_arm64_mops(void *addr, size_t npages) */
ENTRY cp_arm64_mops
	lsl	count, count, CP_PAGE_SHIFT
	setp	[dst]!, count!, xzr
	setm	[dst]!, count!, xzr
	sete	[dst]!, count!, xzr
	ret
END cp_arm64_mops
