/* SPDX-License-Identifier: MIT */
/*
 * cp_zero's CP_ZERO_RESIDENT and cp_zero_progress: every kind of mapping
 * reads zero and is present and writable without a fault afterwards (the
 * thread's minor-fault count does not move while every page is written);
 * the bytes around the range keep FILL; bad input is refused before
 * anything is written; progress is a growing prefix and stopping keeps it.
 */
#include "zero_mem.h"
#include "resident.h"
#include <errno.h>
#include <sys/resource.h>

#define MIB ((size_t)1 << 20)

/* Writes a zero into every page of [p, p + len) and returns the minor
 * faults the thread took meanwhile: 0 when every page was present and
 * writable. */
static long faults_writing(unsigned char *p, size_t len)
{
	struct rusage a, b;
	getrusage(RUSAGE_THREAD, &a);
	for (size_t at = 0; at < len; at += CP_PAGE_SIZE)
		((volatile unsigned char *)p)[at] = 0;
	getrusage(RUSAGE_THREAD, &b);
	return b.ru_minflt - a.ru_minflt + b.ru_majflt - a.ru_majflt;
}

static size_t first_nonzero(const unsigned char *p, size_t len)
{
	return first_not(p, len, 0);
}

static void assert_zero_resident(unsigned char *p, size_t len, const char *what)
{
	size_t bad = first_nonzero(p, len);
	cr_assert_eq(bad, len, "%s: byte %zu of %zu is 0x%02x", what, bad, len, bad < len ? p[bad] : 0);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uintptr_t s = (uintptr_t)p & ~(uintptr_t)(page - 1);
	size_t span = ((uintptr_t)p + len + page - 1) / page * page - s;
	cr_assert_eq(resident_bytes((unsigned char *)s, span), span, "%s: not all resident", what);
	if (!test_under_qemu() && !test_under_valgrind())   /* (their own faults would count) */
		cr_assert_eq(faults_writing(p, len), 0, "%s: writing it faulted", what);
}

/* Where the library trusts no /proc file (procfs_untrusted: qemu-user, no
 * openat2), RESIDENT checks nothing ahead and populates and stores every
 * part. */
static void checks_expected(void)
{
	const char *why = procfs_untrusted();
	if (why)
		cr_skip_test("%s: RESIDENT checks nothing there and fills every part", why);
}

/* Fresh private anonymous memory between two pages of FILL (one mapping):
 * the range is [m + 4096, m + 4096 + len). */
static unsigned char *fresh_between_fill(size_t len, int thp)
{
	size_t total = len + 2 * CP_PAGE_SIZE + 2 * MIB * 2;
	unsigned char *m = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				-1, 0);
	cr_assert(m != MAP_FAILED);
	m = (unsigned char *)(((uintptr_t)m + 2 * MIB - 1) & ~(2 * MIB - 1));
	madvise(m, len + 2 * CP_PAGE_SIZE, thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	memset(m, FILL, CP_PAGE_SIZE);
	memset(m + CP_PAGE_SIZE + len, FILL, CP_PAGE_SIZE);
	return m;
}

static void assert_fill_around(const unsigned char *m, size_t len)
{
	cr_assert_eq(first_not(m, CP_PAGE_SIZE, FILL), CP_PAGE_SIZE, "the page before was written");
	cr_assert_eq(first_not(m + CP_PAGE_SIZE + len, CP_PAGE_SIZE, FILL), CP_PAGE_SIZE,
		     "the page after was written");
}

Test(zero_resident, fresh_private_memory)
{
	const unsigned flag_sets[] = { CP_ZERO_RESIDENT, CP_ZERO_RESIDENT | CP_ZERO_PARALLEL,
				       CP_ZERO_RESIDENT | CP_ZERO_COLD };
	for (unsigned f = 0; f < 3; f++) {
		size_t len = 70 * MIB + 3 * CP_PAGE_SIZE;      /* three chunks and a bit */
		unsigned char *m = fresh_between_fill(len, 0);
		cr_assert_eq(cp_zero(m + CP_PAGE_SIZE, len, flag_sets[f]), 0);
		assert_zero_resident(m + CP_PAGE_SIZE, len, "fresh");
		assert_fill_around(m, len);
	}
}

/* Half resident and full of FILL, half fresh; a page of each in between. */
Test(zero_resident, half_resident_memory)
{
	for (int parallel = 0; parallel < 2; parallel++) {
		size_t len = 66 * MIB;
		unsigned char *m = fresh_between_fill(len, parallel);
		unsigned char *p = m + CP_PAGE_SIZE;
		memset(p, FILL, len / 2);
		for (size_t at = len / 2; at < len; at += 64 * CP_PAGE_SIZE)
			p[at + 100] = FILL;
		unsigned flags = CP_ZERO_RESIDENT | (parallel ? CP_ZERO_PARALLEL : 0);
		cr_assert_eq(cp_zero(p, len, flags), 0);
		assert_zero_resident(p, len, "half resident");
		assert_fill_around(m, len);
	}
}

/* Any address, any length: the head and tail bytes, not their pages. */
Test(zero_resident, unaligned_edges)
{
	size_t len = 5 * MIB;
	unsigned char *m = fresh_between_fill(len, 0);
	memset(m + CP_PAGE_SIZE, FILL, len);
	unsigned char *p = m + CP_PAGE_SIZE + 17;
	size_t n = len - 17 - 29;
	cr_assert_eq(cp_zero(p, n, CP_ZERO_RESIDENT), 0);
	assert_zero_resident(p, n, "unaligned");
	cr_assert_eq(first_not(p - 17, 17, FILL), 17, "the head's bytes before the range");
	cr_assert_eq(first_not(p + n, 29, FILL), 29, "the tail's bytes after the range");
}

/* Whether the mapping holding p carries VmFlags hg (MADV_HUGEPAGE). */
static int advised_huge(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	cr_assert(f);
	char line[512];
	int in = 0, hg = -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long s, e;
		if (sscanf(line, "%lx-%lx ", &s, &e) == 2 && strchr(line, '-') < strchr(line, ' '))
			in = (uintptr_t)p >= s && (uintptr_t)p < e;
		else if (in && !strncmp(line, "VmFlags:", 8)) {
			hg = strstr(line, " hg") != NULL;
			break;
		}
	}
	fclose(f);
	return hg;
}

Test(zero_resident, huge_pages_only_when_asked)
{
	checks_expected();
	size_t len = 8 * MIB;
	for (int ask = 0; ask < 2; ask++) {
		unsigned char *m = mmap(NULL, len + 2 * MIB, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		cr_assert(m != MAP_FAILED);
		unsigned char *p = (unsigned char *)(((uintptr_t)m + 2 * MIB - 1) & ~(2 * MIB - 1));
		unsigned flags = CP_ZERO_RESIDENT | (ask ? CP_ZERO_HUGE_PAGES : 0);
		cr_assert_eq(cp_zero(p, len, flags), 0);
		assert_zero_resident(p, len, "huge pages");
		cr_assert_eq(advised_huge(p), ask, "MADV_HUGEPAGE %s", ask ? "not given" : "given unasked");
		munmap(m, len + 2 * MIB);
	}
	cr_assert_eq(cp_zero(fresh_between_fill(len, 0), len, CP_ZERO_HUGE_PAGES), -EINVAL,
		     "HUGE_PAGES without RESIDENT");
}

/* Every kind zero_mem.h makes, untouched since mapped (file kinds hold
 * SECRET in the file) or written with FILL: zero, resident, and the file
 * behind a private mapping unchanged. */
Test(zero_resident, every_kind_of_mapping)
{
	for (int k = PRIVATE_ANON; k <= FILE_PRIVATE; k++)
		for (int written = 0; written < 2; written++) {
			size_t len = 4 * MIB;
			unsigned char *map = mmap(NULL, len + 2 * MIB, PROT_NONE,
						  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
			cr_assert(map != MAP_FAILED);
			unsigned char *p = (unsigned char *)(((uintptr_t)map + MIB) & ~(MIB - 1));
			int fd = -1, flags = MAP_PRIVATE | MAP_ANONYMOUS;
			if (k == SHARED_ANON)
				flags = MAP_SHARED | MAP_ANONYMOUS;
			else if (k >= MEMFD_SHARED) {
				fd = secret_file(k, len);
				flags = k == MEMFD_SHARED ? MAP_SHARED : MAP_PRIVATE;
			}
			cr_assert(mmap(p, len, PROT_READ | PROT_WRITE, flags | MAP_FIXED, fd, 0) == p);
			if (written)
				memset(p, FILL, len / 2);
			cr_assert_eq(cp_zero(p, len, CP_ZERO_RESIDENT), 0, "%s", kind_names[k]);
			assert_zero_resident(p, len, kind_names[k]);
			if (fd >= 0) {
				unsigned char *f = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
				cr_assert(f != MAP_FAILED);
				unsigned char want = k == MEMFD_SHARED ? 0 : SECRET;
				cr_assert_eq(first_not(f, len, want), len, "%s: the file holds %s",
					     kind_names[k], want ? "other bytes than before" : "old data");
				munmap(f, len);
				close(fd);
			}
			munmap(map, len + 2 * MIB);
		}
}

/* The same checks when the maps are read as text (no page sizes), when the
 * pagemap cannot be asked (populate, then stores) and when only its file can
 * (before PAGEMAP_SCAN). A third of the range written, the rest fresh. */
Test(zero_resident, without_pagemap_or_the_maps_query)
{
	for (int blind = 0; blind < 3; blind++) {
		size_t len = 6 * MIB;
		unsigned char *m = fresh_between_fill(len, 0);
		memset(m + CP_PAGE_SIZE + len / 3, FILL, len / 3);
		cp__resident_blind = blind;
		cp__maps_text_only = blind == 0;
		int r = cp_zero(m + CP_PAGE_SIZE, len, CP_ZERO_RESIDENT);
		cp__resident_blind = 0;
		cp__maps_text_only = 0;
		cr_assert_eq(r, 0);
		static const char *const how[] = { "maps text", "no pagemap", "the pagemap file" };
		assert_zero_resident(m + CP_PAGE_SIZE, len, how[blind]);
		assert_fill_around(m, len);
	}
}

/* ---- bad input: -EINVAL, nothing written ---- */

static void assert_refused(unsigned char *p, size_t len, unsigned flags, const char *what)
{
	size_t done = 7;
	cr_assert_eq(cp_zero_progress(p, len, flags, NULL, NULL, &done), -EINVAL, "%s", what);
	cr_assert_eq(done, 0, "%s: done", what);
}

Test(zero_resident, bad_input_writes_nothing)
{
	checks_expected();
	size_t len = 4 * MIB;
	unsigned char *m = fresh_between_fill(len, 0), *p = m + CP_PAGE_SIZE;
	memset(p, FILL, len);
	assert_refused(p, len, CP_ZERO_RESIDENT | CP_ZERO_MAY_DISCARD, "with MAY_DISCARD");
	assert_refused(p, len, CP_ZERO_RESIDENT | 64u, "an unknown flag");
	assert_refused(NULL, len, CP_ZERO_RESIDENT, "NULL");
	assert_refused((unsigned char *)UINTPTR_MAX - 100, 4096, CP_ZERO_RESIDENT, "past the top");
	cr_assert_eq(mprotect(p + len / 2, CP_PAGE_SIZE, PROT_READ), 0);
	assert_refused(p, len, CP_ZERO_RESIDENT, "a read-only page");
	cr_assert_eq(mprotect(p + len / 2, CP_PAGE_SIZE, PROT_NONE), 0);
	assert_refused(p, len, CP_ZERO_RESIDENT, "a PROT_NONE page");
	assert_refused(p + len / 2 - 10, 20, CP_ZERO_RESIDENT, "bytes of a PROT_NONE page");
	cr_assert_eq(mprotect(p + len / 2, CP_PAGE_SIZE, PROT_READ | PROT_WRITE), 0);
	cr_assert_eq(munmap(p + len - 2 * CP_PAGE_SIZE, CP_PAGE_SIZE), 0);
	assert_refused(p, len, CP_ZERO_RESIDENT | CP_ZERO_PARALLEL, "a hole");
	cr_assert_eq(first_not(p, len / 2, FILL), len / 2, "written before the refusal");
	cr_assert_eq(first_not(p + len / 2, len / 2 - 2 * CP_PAGE_SIZE, FILL),
		     len / 2 - 2 * CP_PAGE_SIZE, "written before the refusal");
}

#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102
#endif
Test(zero_resident, guard_regions_are_refused)
{
	checks_expected();
	size_t len = 2 * MIB;
	unsigned char *m = fresh_between_fill(len, 0), *p = m + CP_PAGE_SIZE;
	memset(p, FILL, len / 2);
	if (madvise(p + len - CP_PAGE_SIZE, CP_PAGE_SIZE, MADV_GUARD_INSTALL))
		cr_skip_test("MADV_GUARD_INSTALL: %s (Linux 6.13+)", strerror(errno));
	int r = cp_zero(p, len, CP_ZERO_RESIDENT);
	if (r == 0)
		cr_assert_fail("a guard page was accepted");
	cr_assert(r == -EINVAL || r == -EFAULT, "r %d", r);
	if (r == -EINVAL)
		cr_assert_eq(first_not(p, len / 2, FILL), len / 2, "written before the refusal");
}

/* ---- limits ---- */

static long meminfo_kb(const char *key)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	long v = -1;
	size_t n = strlen(key);
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':')
			v = strtol(line + n + 1, NULL, 10);
	if (f)
		fclose(f);
	return v;
}

/* A hugetlb mapping without reserve asks for more huge pages than are free:
 * -ENOMEM (the SIGBUS stores would take), done at most where they ran out,
 * and the bytes before the range untouched. */
Test(zero_resident, huge_pages_running_out_is_enomem)
{
	checks_expected();
	long free_pages = meminfo_kb("HugePages_Free"), size_kb = meminfo_kb("Hugepagesize");
	if (free_pages < 0 || size_kb <= 0)
		cr_skip_test("no hugetlb here");
	size_t huge = (size_t)size_kb * 1024, len = (size_t)(free_pages + 2) * huge;
	unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		cr_skip_test("MAP_HUGETLB | MAP_NORESERVE refused: %s", strerror(errno));
	size_t done = 0;
	cr_assert_eq(cp_zero_progress(p, len, CP_ZERO_RESIDENT, NULL, NULL, &done), -ENOMEM);
	cr_assert_leq(done, (size_t)free_pages * huge, "done %zu past the free huge pages", done);
	assert_zero_resident(p, done, "hugetlb prefix");
	munmap(p, len);
}

/* ---- progress ---- */

struct seen {
	size_t calls, last, len, stop_after;
	int grew_wrong;
};

static int watch(size_t done, size_t len, void *ctx)
{
	struct seen *s = ctx;
	if (done < s->last || len != s->len)
		s->grew_wrong = 1;
	s->last = done;
	return ++s->calls == s->stop_after;
}

Test(zero_resident, progress_grows_to_the_length)
{
	const unsigned flag_sets[] = { 0, CP_ZERO_RESIDENT, CP_ZERO_RESIDENT | CP_ZERO_PARALLEL,
				       CP_ZERO_PARALLEL };
	for (unsigned f = 0; f < 4; f++) {
		size_t len = 200 * MIB + 5;
		unsigned char *m = fresh_between_fill(len, 0);
		struct seen s = { .len = len };
		size_t done = 0;
		cr_assert_eq(cp_zero_progress(m + CP_PAGE_SIZE, len, flag_sets[f], watch, &s, &done), 0);
		cr_assert_eq(done, len);
		/* between the calling thread's chunks: with PARALLEL the workers may
		 * claim every one of the seven (qemu: none left to the caller) */
		size_t want = flag_sets[f] & CP_ZERO_PARALLEL ? 0 : 3;
		cr_assert_geq(s.calls, want, "flags %u: %zu progress calls", flag_sets[f], s.calls);
		cr_assert(!s.grew_wrong, "flags %u: done shrank or len changed", flag_sets[f]);
		cr_assert_eq(first_nonzero(m + CP_PAGE_SIZE, len), len);
		munmap(m, len + 2 * CP_PAGE_SIZE);
	}
}

Test(zero_resident, a_stopped_fill_keeps_its_prefix)
{
	const unsigned flag_sets[] = { 0, CP_ZERO_RESIDENT, CP_ZERO_RESIDENT | CP_ZERO_PARALLEL };
	for (unsigned f = 0; f < 3; f++) {
		size_t len = 256 * MIB;
		unsigned char *m = fresh_between_fill(len, 0), *p = m + CP_PAGE_SIZE;
		for (size_t at = 0; at < len; at += CP_PAGE_SIZE)
			p[at] = FILL;
		struct seen s = { .len = len, .stop_after = 2 };
		size_t done = 0;
		cr_assert_eq(cp_zero_progress(p, len, flag_sets[f], watch, &s, &done), -ECANCELED,
			     "flags %u", flag_sets[f]);
		cr_assert_eq(s.calls, 2, "progress called after it said stop");
		cr_assert(done > 0 && done < len, "flags %u: done %zu", flag_sets[f], done);
		if (flag_sets[f] & CP_ZERO_RESIDENT)
			assert_zero_resident(p, done, "the stopped prefix");
		else
			cr_assert_eq(first_nonzero(p, done), done);
		for (size_t at = done; at < len; at += CP_PAGE_SIZE)
			cr_assert(p[at] == FILL || first_nonzero(p + at, CP_PAGE_SIZE) == CP_PAGE_SIZE,
				  "page at %zu neither its old bytes nor zero", at);
		assert_fill_around(m, len);
		munmap(m, len + 2 * CP_PAGE_SIZE);
	}
}
