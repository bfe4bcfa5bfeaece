/*
 * cp_arm64_dc_zva: clear pages with `dc zva`, one DC ZVA block at a time.
 *
 * DC ZVA zeroes a whole naturally aligned block (DCZID_EL0.BS: 4 B .. 2 KiB;
 * 64 B on most cores, 256 B on A64FX) without reading it first: no
 * read-for-ownership, so it is what Linux's clear_page used before MOPS and
 * what glibc's memset uses for large zero fills. Temporal on most cores.
 * Needs DCZID_EL0.DZP == 0 (else the instruction traps): the caller checks.
 *
 * cp_arm64_dc_zva reads DCZID_EL0 itself, so its object is usable alone.
 * cp__arm64_dc_zva_step (internal, hidden) takes the step explicitly, so the
 * tests can run every step from 4 B up to the real block: a smaller step than
 * the block zeroes a block more than once and never skips one.
 *
 * Assumptions:
 * ARMv8-a, AArch64; dst 4096-aligned, count >= 1 (no checks); the block
 * (and step) a power of two from 4 B to 2 KiB, so a page is always a multiple
 * of two steps and no write leaves [dst, dst + count * 4096).
 */
#include "cp_arm64.h"

#define dst	x0	/* in: addr */
#define count	x1	/* in: npages */
#define step	x2	/* in (_step): bytes per dc zva */
#define dstend	x3
#define step2	x4
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
	add	dstend, dst, count, lsl CP_PAGE_SHIFT
	lsl	step2, step, 1
	/* Two blocks per iteration: 4096 is a multiple of 2 x 2 KiB, the largest
	   block, so the loop needs no tail. */
1:	add	tmp, dst, step
	dc	zva, dst
	dc	zva, tmp
	add	dst, dst, step2
	cmp	dst, dstend
	b.ne	1b
	ret
END cp__arm64_dc_zva_step
