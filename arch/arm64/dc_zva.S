/* SPDX-License-Identifier: MIT */
/*
 * cp_arm64_dc_zva - clear pages with `dc zva`, two DC ZVA blocks per iteration
 *
 * DC ZVA zeroes a whole block without reading it first (no read-for-ownership):
 * Linux's clear_page before MOPS, and glibc's memset for large zero fills.
 *
 * cp_arm64_dc_zva reads the block size from DCZID_EL0 itself, so its object is
 * usable alone. cp__arm64_dc_zva_step (internal, hidden) takes the step as an
 * argument, so the tests can run every step from 4 B up to the real block: a
 * step smaller than the block zeroes a block more than once, never skips one.
 *
 * Assumptions:
 * ARMv8-a, AArch64; DCZID_EL0.DZP == 0 (else DC ZVA traps: the caller checks);
 * dst 4096-aligned; npages == 0 does nothing; the block (and step) a power of
 * two from 4 B to 2 KiB, so a page is a whole number of step pairs and no
 * write leaves [dst, dst + npages * 4096).
 */
#include "cp_arm64.h"

#define dst	x0	/* in: addr; ends at dstend */
#define npages	x1	/* in: npages */
#define step	x2	/* in (_step): bytes per dc zva */
#define dstend	x3
#define step2	x4	/* two steps: bytes per iteration */
#define tmp	x5

	.arch	armv8-a

/* void cp_arm64_dc_zva(void *addr, size_t npages) */
ENTRY cp_arm64_dc_zva
	/* DCZID_EL0.BS (bits 3:0) is log2 of the block in 4-byte words. */
	mrs	tmp, dczid_el0
	and	tmp, tmp, 15
	mov	step, 4
	lsl	step, step, tmp
	b	cp__arm64_dc_zva_step
END cp_arm64_dc_zva

/* void cp__arm64_dc_zva_step(void *addr, size_t npages, size_t step) */
ENTRY_HIDDEN cp__arm64_dc_zva_step
	CP_NO_PAGES npages, 2f
	add	dstend, dst, npages, lsl CP_PAGE_SHIFT
	lsl	step2, step, 1
1:	add	tmp, dst, step
	dc	zva, dst
	dc	zva, tmp
	add	dst, dst, step2
	cmp	dst, dstend
	b.ne	1b
2:	ret
END cp__arm64_dc_zva_step
