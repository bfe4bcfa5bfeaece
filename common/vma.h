/* SPDX-License-Identifier: MIT */
/*
 * What the maps query cannot tell of memory it calls private anonymous, asked
 * only of the parts cp_zero's discard would give back (common/vma.c): whether
 * something else fills it, holds it or faults on it. Hosted only;
 * async-signal-safe (this process's own smaps and pagemap through files.h,
 * read or ioctl; buffers on the stack); every descriptor is closed, with
 * signals blocked until then, before the functions return.
 */
#ifndef CP_VMA_H
#define CP_VMA_H

#include <stddef.h>
#include <stdint.h>

/* The most ranges one call vets (more are left ok 0: stored). */
#define CP__VMA_RANGES 16

/* A page-aligned range [start, end) that may be discarded while ok is 1. */
struct cp__range {
	uintptr_t start, end;
	int ok;
};

/* Clears ok of each range (ascending, disjoint; those with ok 0 are passed
 * over) that /proc/self/smaps shows is not plain memory of this process
 * alone: a mapping over it registered with userfaultfd (VmFlags um, uw, ui),
 * locked (lo), I/O or PFN-mapped (io, pf), kept from fork (dc: RDMA marks
 * its registered memory so), sealed (sl), or tagged with a protection key
 * other than 0 (ProtectionKey). Clears all of them when smaps cannot be read
 * (not this process's own on a procfs it can trust, refused) or does not
 * cover a range. */
void cp__vma_vet_flags(struct cp__range *r, size_t n);

/* Clears ok of each range holding a guard region (MADV_GUARD_INSTALL, Linux
 * 6.13+), found with PAGEMAP_SCAN's PAGE_IS_GUARD (6.14+). Where the kernel
 * has guard regions but cannot be asked (6.13; pagemap refused or not
 * trusted), clears all.
 * A kernel without them (madvise does not know MADV_GUARD_INSTALL) is asked
 * nothing. */
void cp__vma_vet_guards(struct cp__range *r, size_t n);

#endif
