/* SPDX-License-Identifier: MIT */
/*
 * cp_zero's CP_ZERO_RESIDENT, part by part (resident.h): the range reads
 * zero and every page is present and writable when the call returns 0.
 *
 * The kernel already zeroes a fresh private anonymous page at its first
 * write fault; a store loop over fresh memory pays that fault and then
 * writes the page again. MADV_POPULATE_WRITE (Linux 5.14+) pays the fault
 * only, in one system call for the whole run, and a 2 MiB THP fault is one
 * fault for 512 pages: 3.6 against 2.0 GB/s for memset (1 GiB of 4 KiB pages,
 * one thread; bench/results/amd-zen4/README.md). Populate keeps what a
 * page holds, so it makes memory resident, not zero: only runs that hold no
 * data are populated alone. Which do is asked of /proc/self/pagemap:
 * PAGEMAP_SCAN (6.7+) answers in runs of pages that share their kind; the
 * file (present bit 63, swapped bit 62) is read where the ioctl is missing.
 *  - no data (not present, not swapped; or the shared zero page): populate;
 *  - present: the store kernels, as cp_zero without RESIDENT;
 *  - swapped out: populate (brings the data back), then stores;
 *  - pagemap not readable: every page is populated, then stored.
 * Mappings that are not private anonymous (shared, memfd, file, hugetlb) are
 * populated, then stored: their pages hold what others see, the faults come
 * in one call, and a page the kernel cannot supply (no huge page left, a
 * file's end) is an error instead of a SIGBUS in the middle of the stores.
 * Mappings smaps marks as filled by someone else or special (userfaultfd,
 * I/O or PFN mapped, locked, kept from fork, sealed, a protection key) are
 * stored only, as the caller's own writes would be. Nothing is discarded.
 * The maps, smaps and pagemap are this process's own, from a procfs it can
 * trust (files.h): another process's pagemap mounted over this one's would
 * say "no data" of pages that hold some, and populate alone would leave it
 * there; such a file counts as unreadable (populate, then stores). Each is
 * closed, with signals blocked and no cancellation point until then, before
 * anything is populated or stored.
 */
#include <errno.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include "files.h"
#include "maps.h"
#include "pagemap_scan.h"
#include "resident.h"
#include "vma.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#define HUGE_BYTES ((uintptr_t)2 << 20)

#define SCAN_REGIONS 32
#define PAGEMAP_ENTRIES 512
#define RUNS (2 * SCAN_REGIONS + 2)

int cp__resident_blind;

/* ---- before anything is written ---- */

/* The pages of [start, end) that hold no data (neither present nor swapped),
 * asked of PAGEMAP_SCAN in one walk of the page tables: guard regions are
 * such pages too, marked PAGE_IS_GUARD (6.14+). 1 some hold none, 0 every
 * page holds data, -EINVAL a guard page, -1 the scan is not there. */
static int scan_no_data(uintptr_t start, uintptr_t end)
{
	struct cp__file f;
	int some = 0;
	if (cp__file_open_self(&f, "pagemap"))
		return -1;
	for (uintptr_t at = start; at < end;) {
		struct page_region_uapi reg[SCAN_REGIONS] = { { 0, 0, 0 } };   /* (valgrind: ioctl-written) */
		struct pm_scan_arg_uapi a = {
			.size = sizeof(a), .start = at, .end = end, .vec = (uintptr_t)reg,
			.vec_len = SCAN_REGIONS, .category_inverted = PAGE_IS_PRESENT | PAGE_IS_SWAPPED,
			.category_mask = PAGE_IS_PRESENT | PAGE_IS_SWAPPED, .return_mask = PAGE_IS_GUARD
		};
		long got = ioctl(f.fd, PAGEMAP_SCAN_REQ, &a);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0 || got > SCAN_REGIONS || a.walk_end <= at) {
			some = -1;
			break;
		}
		for (long i = 0; i < got; i++)
			some = reg[i].categories & PAGE_IS_GUARD ? -EINVAL : some < 0 ? some : 1;
		if (some == -EINVAL)
			break;
		at = (uintptr_t)a.walk_end;
	}
	cp__file_close(&f);
	return some;
}

int cp__resident_check(uintptr_t start, uintptr_t end, int *all_data)
{
	int saved = errno, r = 0;
	uintptr_t at = start;
	*all_data = 0;
	while (at < end && r == 0) {
		struct cp__maps_part parts[CP__RESIDENT_PARTS];
		size_t n;
		if (cp__maps_parts(at, end, parts, CP__RESIDENT_PARTS, &n)) {
			errno = saved;
			return 0;    /* no procfs maps: nothing to check against (resident.h) */
		}
		for (size_t i = 0; i < n && r == 0; i++)
			if (!parts[i].mapped || !parts[i].writable)
				r = -EINVAL;
		at = parts[n - 1].end;
	}
	int scan = r ? 0 : scan_no_data(start, end);
	if (scan == -EINVAL)
		r = -EINVAL;
	else if (scan == 0)
		*all_data = 1;       /* nothing to populate: the stores alone are the fill */
	/* scan < 0: no PAGEMAP_SCAN to ask for guards either; a guard page then
	 * ends the fill with -EFAULT where populate reaches it */
	errno = saved;
	return r;
}

size_t cp__resident_parts(uintptr_t start, uintptr_t end, struct cp__resident_part *out)
{
	struct cp__maps_part parts[CP__RESIDENT_PARTS];
	size_t n;
	if (cp__maps_parts(start, end, parts, CP__RESIDENT_PARTS, &n)) {
		out[0] = (struct cp__resident_part){ start, end, CP__FILL_POPULATE_STORE, 0 };
		return 1;
	}
	struct cp__range vet[CP__RESIDENT_PARTS];
	for (size_t i = 0; i < n; i++)
		vet[i] = (struct cp__range){ parts[i].start, parts[i].end, 1 };
	cp__vma_vet_flags(vet, n);
	for (size_t i = 0; i < n; i++) {
		enum cp__fill how = CP__FILL_STORE;
		if (vet[i].ok)
			how = parts[i].private_anon ? CP__FILL_ANON : CP__FILL_POPULATE_STORE;
		int hugetlb = parts[i].page_size > (size_t)getauxval(AT_PAGESZ);
		out[i] = (struct cp__resident_part){ parts[i].start, parts[i].end, how, hugetlb };
	}
	return n;
}

void cp__resident_advise_huge(const struct cp__resident_part *p, size_t n)
{
	int saved = errno;
	for (size_t i = 0; i < n; i++) {
		uintptr_t a = (p[i].start + HUGE_BYTES - 1) & ~(HUGE_BYTES - 1);
		uintptr_t b = p[i].end & ~(HUGE_BYTES - 1);
		if (p[i].how == CP__FILL_ANON && a > p[i].start - 1 && a < b)
			madvise((void *)a, b - a, MADV_HUGEPAGE);   /* EINVAL without THP: fine */
	}
	errno = saved;
}

/* ---- the fill ---- */

/* MADV_POPULATE_WRITE of [s, e): 0, -ENOMEM, -EFAULT, or 1 where the kernel
 * has no populate (before 5.14: EINVAL) and stores must fault the pages. */
static int populate(uintptr_t s, uintptr_t e)
{
	if (s >= e)
		return 0;
	for (;;) {
		if (madvise((void *)s, e - s, MADV_POPULATE_WRITE) == 0)
			return 0;
		if (errno == EINTR || errno == EAGAIN)
			continue;       /* (a signal, or a lock dropped: ask again) */
		if (errno == ENOMEM)
			return -ENOMEM;
		if (errno == EFAULT || errno == EHWPOISON)
			return -EFAULT;
		return 1;
	}
}

/* One zero byte per page: the kernel zero-fills each page at its fault. */
static void touch(uintptr_t s, uintptr_t e)
{
	for (; s < e; s += 4096)
		*(volatile char *)s = 0;
}


/* Runs of one kind, in address order: what a look at the pagemap found. */
struct runs {
	struct { uintptr_t s, e; enum cp__page_kind kind; } r[RUNS];
	size_t n;
	uintptr_t end;             /* how far the look got */
};

static void add_run(struct runs *rs, uintptr_t s, uintptr_t e, enum cp__page_kind kind)
{
	if (s >= e)
		return;
	if (rs->n && rs->r[rs->n - 1].kind == kind && rs->r[rs->n - 1].e == s)
		rs->r[rs->n - 1].e = e;
	else
		rs->r[rs->n].s = s, rs->r[rs->n].e = e, rs->r[rs->n].kind = kind, rs->n++;
	rs->end = e;
}

/* The system page: pagemap's unit (64 KiB on some arm64 kernels). */
static uintptr_t system_page(void)
{
	uintptr_t sys = (uintptr_t)getauxval(AT_PAGESZ);
	return sys >= 4096 && !(sys & (sys - 1)) ? sys : 4096;
}

/* [s, e) clamped to [at, end), as a run of kind k. */
static void add_clamped(struct runs *rs, uintptr_t s, uintptr_t e, uintptr_t at, uintptr_t end,
			enum cp__page_kind k)
{
	add_run(rs, s > at ? s : at, e < end ? e : end, k);
}

/* PAGEMAP_SCAN: the regions holding data come back, the gaps between hold
 * none (asked over whole system pages). 0, or -1 where the ioctl is missing
 * (before 6.7) or refused. */
static int look_scan(int fd, uintptr_t at, uintptr_t end, struct runs *rs)
{
	uintptr_t sys = system_page();
	struct page_region_uapi reg[SCAN_REGIONS] = { { 0, 0, 0 } };   /* (valgrind: ioctl-written) */
	struct pm_scan_arg_uapi a = {
		.size = sizeof(a), .start = at & ~(sys - 1), .end = (end + sys - 1) & ~(sys - 1),
		.vec = (uintptr_t)reg, .vec_len = SCAN_REGIONS,
		.category_anyof_mask = PAGE_IS_PRESENT | PAGE_IS_SWAPPED,
		.return_mask = PAGE_IS_PRESENT | PAGE_IS_SWAPPED | PAGE_IS_PFNZERO
	};
	long got;
	do
		got = ioctl(fd, PAGEMAP_SCAN_REQ, &a);
	while (got < 0 && errno == EINTR);
	if (got < 0 || got > SCAN_REGIONS || (got == 0 && a.walk_end <= at))
		return -1;
	for (long i = 0; i < got; i++) {
		enum cp__page_kind k = CP__PAGE_PRESENT;
		if (reg[i].categories & PAGE_IS_SWAPPED)
			k = CP__PAGE_SWAPPED;
		else if (reg[i].categories & PAGE_IS_PFNZERO)
			k = CP__PAGE_NO_DATA;    /* the shared zero page: reads zero already */
		add_clamped(rs, rs->end, (uintptr_t)reg[i].start, at, end, CP__PAGE_NO_DATA);
		add_clamped(rs, (uintptr_t)reg[i].start, (uintptr_t)reg[i].end, at, end, k);
	}
	/* the walk stops early when reg[] fills up: the gap up to it holds nothing */
	add_clamped(rs, rs->end, got == SCAN_REGIONS ? rs->end : (uintptr_t)a.walk_end, at, end,
		    CP__PAGE_NO_DATA);
	return rs->end > at ? 0 : -1;
}

/* The pagemap file, 8 bytes a system page. 0, or -1 when it cannot be read. */
static int look_read(int fd, uintptr_t at, uintptr_t end, struct runs *rs)
{
	uintptr_t sys = system_page(), first = at / sys;
	uint64_t e[PAGEMAP_ENTRIES];
	size_t pages = (end - first * sys + sys - 1) / sys;
	if (pages > PAGEMAP_ENTRIES)
		pages = PAGEMAP_ENTRIES;
	ssize_t got = cp__file_pread(fd, e, pages * 8, (uint64_t)first * 8);
	if (got < 8)
		return -1;
	for (size_t i = 0; i < (size_t)got / 8 && rs->n < RUNS - 1; i++) {
		enum cp__page_kind k = (e[i] >> 62 & 1) ? CP__PAGE_SWAPPED :
				       (e[i] >> 63 & 1) ? CP__PAGE_PRESENT : CP__PAGE_NO_DATA;
		add_clamped(rs, (first + i) * sys, (first + i + 1) * sys, at, end, k);
	}
	return rs->end > at ? 0 : -1;
}

/* One look from at: the pagemap is opened, asked and closed again before
 * anything is stored (a store that faults and is left by a handler's
 * longjmp leaves no descriptor behind). 0, or -1: no pagemap to ask. */
static int look(uintptr_t at, uintptr_t end, struct runs *rs)
{
	rs->n = 0;
	rs->end = at;
	struct cp__file f;
	if (cp__resident_blind == 1 || cp__file_open_self(&f, "pagemap"))
		return -1;
	int r = cp__resident_blind == 2 ? -1 : look_scan(f.fd, at, end, rs);
	if (r) {
		rs->n = 0;
		r = look_read(f.fd, at, end, rs);
	}
	cp__file_close(&f);
	return r;
}

/* A run [s, e) of one kind: 0, -ENOMEM or -EFAULT. */
static int fill_run(uintptr_t s, uintptr_t e, enum cp__page_kind kind, cp__store_fn store,
		    void *ctx)
{
	int r = kind == CP__PAGE_PRESENT ? 0 : populate(s, e);
	if (r < 0)
		return r;
	if (kind == CP__PAGE_NO_DATA && r == 1)
		touch(s, e);
	else if (kind != CP__PAGE_NO_DATA)
		store((void *)s, (e - s) / 4096, ctx);
	return 0;
}

int cp__resident_fill(const struct cp__resident_part *p, uintptr_t s, uintptr_t e,
		      cp__store_fn store, void *ctx)
{
	int saved = errno, r = 0;
	if (p->how == CP__FILL_STORE)
		store((void *)s, (e - s) / 4096, ctx);
	else if (p->how == CP__FILL_POPULATE_STORE)
		r = fill_run(s, e, CP__PAGE_SWAPPED, store, ctx);    /* populate, then stores */
	if (r == -EFAULT && p->hugetlb)
		r = -ENOMEM;      /* hugetlb's SIGBUS: no huge page left to fault in */
	while (p->how == CP__FILL_ANON && s < e && r == 0) {
		struct runs rs;
		if (look(s, e, &rs) || rs.end <= s) {
			r = fill_run(s, e, CP__PAGE_SWAPPED, store, ctx);   /* unknown: all of it */
			break;
		}
		for (size_t i = 0; i < rs.n && r == 0; i++)
			r = fill_run(rs.r[i].s, rs.r[i].e, rs.r[i].kind, store, ctx);
		s = rs.end;
	}
	errno = saved;
	return r;
}
