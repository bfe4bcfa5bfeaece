/* SPDX-License-Identifier: MIT */
/*
 * What the maps query cannot tell (vma.h), asked only when cp_zero's discard
 * has parts it would give back, and only of those.
 *
 * MADV_DONTNEED zeroes what the process sees, not what others hold or fill:
 *  - userfaultfd (a MISSING-mode range whose handler supplies 0x5a pages
 *    read 0x5a after a discard, not 0). PROCMAP_QUERY reports read, write,
 *    exec and shared only; /proc/self/smaps' VmFlags shows the registration
 *    (um missing, uw write-protect, ui minor). The same line shows the other
 *    kinds stored here: lo (mlocked: madvise fails with EINVAL anyway), io
 *    and pf (device memory), dc (MADV_DONTFORK, which RDMA libraries set on
 *    registered memory regions), sl (sealed). ProtectionKey other than 0:
 *    the key may deny this thread writes, which MADV_DONTNEED ignores.
 *    smaps is generated mapping by mapping, with a page table walk each; it
 *    is read up to the last candidate only (a fixed line buffer, no
 *    allocation). Reading it costs more than the maps query: about 2.3 us
 *    per mapping before the range (docs/dispatch.md, "Zero by discard").
 *  - guard regions (MADV_GUARD_INSTALL, Linux 6.13+): markers in the page
 *    tables, no flag of the mapping; MADV_DONTNEED keeps them, so a discard
 *    would succeed and the caller's next touch fault. PAGEMAP_SCAN (6.7+)
 *    reports them as PAGE_IS_GUARD from 6.14. Debian 12's headers predate
 *    both: the UAPI's structure and constants are spelled out here.
 * Both files are this process's own, opened through files.h: from a procfs
 * it can trust (another process's smaps mounted over this one's would vouch
 * for a mapping it does not describe; such a file is not opened and every
 * range is stored), with signals blocked and no cancellation point until
 * they are closed again.
 * Pinned memory (io_uring registered buffers, RDMA without DONTFORK, vfio,
 * GPU host registration) shows nowhere: the caller's promise (clearpages.h).
 */
#include <errno.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include "files.h"
#include "maps.h"
#include "pagemap_scan.h"
#include "vma.h"

#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102
#endif


/* ---- smaps ---- */
#define SMAPS_LINE 256

struct smaps_walk {
	struct cp__range *r;
	size_t n;
	uintptr_t last;            /* the end of the last range asked about */
	uintptr_t vs, ve;          /* the mapping whose lines follow */
	int in, bad;               /* it overlaps a range; a line said no */
	uintptr_t seen[CP__VMA_RANGES];        /* per range: covered by plain mappings up to */
};

static int starts(const char *line, size_t len, const char *key, size_t *at)
{
	size_t i = 0;
	for (; key[i]; i++)
		if (i >= len || line[i] != key[i])
			return 0;
	*at = i;
	return 1;
}

/* A VmFlags token that keeps the mapping from being discarded. */
static int flag_refuses(char a, char b)
{
	static const char no[][2] = { { 'u', 'm' }, { 'u', 'w' }, { 'u', 'i' }, { 'l', 'o' },
				      { 'i', 'o' }, { 'p', 'f' }, { 'd', 'c' }, { 's', 'l' } };
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (no[i][0] == a && no[i][1] == b)
			return 1;
	return 0;
}

/* The mapping's verdict, on its VmFlags line (the last of its block). */
static void mapping_done(struct smaps_walk *w)
{
	for (size_t i = 0; i < w->n; i++) {
		struct cp__range *r = &w->r[i];
		if (!r->ok || w->ve <= r->start || w->vs >= r->end)
			continue;
		if (w->bad)
			r->ok = 0;
		else if (w->vs <= w->seen[i])
			w->seen[i] = w->ve < r->end ? w->ve : r->end;
	}
}

static int smaps_line(const char *line, size_t len, void *ctx)
{
	struct smaps_walk *w = ctx;
	uintptr_t s, e;
	int anon;
	size_t at;
	if (cp__maps_parse_line(line, len, &s, &e, &anon) == 0) {
		if (s >= w->last)
			return 1;
		w->vs = s, w->ve = e, w->bad = 0, w->in = 0;
		for (size_t i = 0; i < w->n; i++)
			w->in |= w->r[i].ok && e > w->r[i].start && s < w->r[i].end;
		return 0;
	}
	if (!w->in)
		return 0;
	if (starts(line, len, "ProtectionKey:", &at)) {
		for (; at < len; at++)
			if (line[at] >= '1' && line[at] <= '9')
				w->bad = 1;
	} else if (starts(line, len, "VmFlags:", &at)) {
		for (; at + 1 < len; at++)
			if (line[at] != ' ' && line[at + 1] != ' ' &&
			    (at + 2 >= len || line[at + 2] == ' ')) {
				w->bad |= flag_refuses(line[at], line[at + 1]);
				at += 2;
			}
		mapping_done(w);
		w->in = 0;
	}
	return 0;
}

void cp__vma_vet_flags(struct cp__range *r, size_t n)
{
	struct smaps_walk w = { .r = r, .n = n };
	size_t asked = 0;
	for (size_t i = 0; i < n; i++)
		if (r[i].ok) {
			asked++;
			w.last = r[i].end;
			if (i < CP__VMA_RANGES)
				w.seen[i] = r[i].start;
			else
				r[i].ok = 0;     /* more than one call's parts: stored */
		}
	if (!asked)
		return;
	struct cp__file f;
	int opened = cp__file_open_self(&f, "smaps") == 0;
	if (opened) {
		char line[SMAPS_LINE];
		cp__proc_lines(f.fd, line, sizeof(line), smaps_line, &w);
		cp__file_close(&f);
	}
	for (size_t i = 0; i < n && i < CP__VMA_RANGES; i++)
		if (!opened || w.seen[i] < r[i].end)
			r[i].ok = 0;
}

/* ---- guard regions ---- */
enum { GUARDS_UNKNOWN, GUARDS_SCAN, GUARDS_NONE, GUARDS_BLIND };
static int guards;

/* Whether this kernel has guard regions: madvise of no bytes checks the
 * advice and returns 0 (Linux 6.13+) or EINVAL. */
static int guards_decide(uintptr_t page)
{
	if (madvise((void *)page, 0, MADV_GUARD_INSTALL) != 0)
		return errno == EINVAL ? GUARDS_NONE : GUARDS_BLIND;
	return GUARDS_SCAN;
}

/* 1: guard pages in [s, e); 0: none; -1: the scan failed (errno). */
static int guard_in(int fd, uintptr_t s, uintptr_t e)
{
	struct page_region_uapi reg;
	struct pm_scan_arg_uapi a = { .size = sizeof(a), .start = s, .end = e,
				      .vec = (uintptr_t)&reg, .vec_len = 1,
				      .category_mask = PAGE_IS_GUARD, .return_mask = PAGE_IS_GUARD };
	long got = ioctl(fd, PAGEMAP_SCAN_REQ, &a);
	return got < 0 ? -1 : got > 0;
}

void cp__vma_vet_guards(struct cp__range *r, size_t n)
{
	size_t first = 0;
	while (first < n && !r[first].ok)
		first++;
	if (first == n)
		return;
	int g = __atomic_load_n(&guards, __ATOMIC_RELAXED);
	if (g == GUARDS_UNKNOWN) {
		g = guards_decide(r[first].start);
		__atomic_store_n(&guards, g, __ATOMIC_RELAXED);   /* racers decide the same */
	}
	if (g == GUARDS_NONE)
		return;
	struct cp__file f = { .fd = -1 };
	if (g != GUARDS_BLIND)
		cp__file_open_self(&f, "pagemap");
	for (size_t i = first; i < n; i++) {
		if (!r[i].ok)
			continue;
		int found = f.fd < 0 ? -1 : guard_in(f.fd, r[i].start, r[i].end);
		if (found < 0 && f.fd >= 0 && (errno == EINVAL || errno == ENOTTY))
			__atomic_store_n(&guards, GUARDS_BLIND, __ATOMIC_RELAXED);  /* 6.7-6.13 */
		if (found != 0)
			r[i].ok = 0;
	}
	if (f.fd >= 0)
		cp__file_close(&f);
}
