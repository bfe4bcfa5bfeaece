/* SPDX-License-Identifier: MIT */
/*
 * cp_zero's CP_ZERO_RESIDENT, part by part (common/resident.c: the strategy).
 * Hosted only; async-signal-safe (this process's own maps, smaps and pagemap
 * through files.h, read, ioctl, madvise; buffers on the stack); every
 * descriptor is closed, with signals blocked until then, before anything is
 * populated or stored.
 */
#ifndef CP_RESIDENT_H
#define CP_RESIDENT_H

#include <stddef.h>
#include <stdint.h>
#include "discard.h"      /* cp__store_fn */

/* The most parts one look at the maps returns (resident_parts). */
#define CP__RESIDENT_PARTS 16

/* How a part is made zero and resident. */
enum cp__fill {
	CP__FILL_ANON,             /* private anonymous: populate what holds no data, store the rest */
	CP__FILL_POPULATE_STORE,   /* shared, file, hugetlb, or unknown: populate, then store */
	CP__FILL_STORE             /* userfaultfd, I/O, locked, ...: stores only */
};
enum cp__page_kind { CP__PAGE_NO_DATA, CP__PAGE_PRESENT, CP__PAGE_SWAPPED };

struct cp__resident_part {
	uintptr_t start, end;
	enum cp__fill how;
	int hugetlb;               /* a page it cannot fault in means no huge page left */
};

/* Before anything is written, over the pages [start, end): -EINVAL when a
 * byte is unmapped or in a mapping that is not writable (PROT_NONE
 * included), or a page is a guard region; else 0 (also when the maps cannot
 * be read, or are not this process's own on a procfs it can trust: then
 * nothing is known and the fill populates and stores).
 * *all_data: 1 when the one walk of the page tables this takes found every
 * page present or swapped out, so stores alone make the range zero and
 * resident (faulting swapped pages back in); else 0. */
int cp__resident_check(uintptr_t start, uintptr_t end, int *all_data);

/* The parts of [start, end) from start, each with its way to fill: at most
 * CP__RESIDENT_PARTS, ending at end or earlier (ask again from the last
 * one's end). At least one. */
size_t cp__resident_parts(uintptr_t start, uintptr_t end, struct cp__resident_part *out);

/* MADV_HUGEPAGE on the 2 MiB-aligned pages of the private anonymous parts
 * (CP_ZERO_HUGE_PAGES). Keeps errno. */
void cp__resident_advise_huge(const struct cp__resident_part *p, size_t n);

/* Pages [s, e) of part p (page-aligned, inside it) zero and resident; the
 * stores through store(addr, npages, ctx). 0, -ENOMEM or -EFAULT (pages up
 * to the failure are done; the rest hold zero or what they held). Keeps
 * errno. */
int cp__resident_fill(const struct cp__resident_part *p, uintptr_t s, uintptr_t e,
		      cp__store_fn store, void *ctx);

/* Tests: 1 makes the fill ask no pagemap (every private anonymous page is
 * then populated and stored, as where pagemap cannot be read); 2 makes it
 * read the pagemap file, as before PAGEMAP_SCAN (Linux 6.7). */
extern int cp__resident_blind;

#endif
