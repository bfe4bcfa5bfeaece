/* SPDX-License-Identifier: MIT */
/* Memory of every kind cp_zero's discard must tell apart, aligned to the
 * discard unit (the THP size here), and what the kernel says of it:
 * residency (mincore) and huge pages (/proc/self/smaps). For the Criterion
 * suites (tests/test_zero_discard.c). */
#ifndef CP_ZERO_MEM_H
#define CP_ZERO_MEM_H

#include "testutil.h"
#include "testhooks.h"
#include <errno.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include "discard.h"
#include "maps.h"

#define SECRET 0x5a     /* a file's contents: must never come back */

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

enum kind { PRIVATE_ANON, PRIVATE_THP, SHARED_ANON, MEMFD_SHARED, MEMFD_PRIVATE, FILE_PRIVATE };
static const char *const kind_names[] = { "private anonymous", "private anonymous THP",
	"MAP_SHARED anonymous", "memfd MAP_SHARED", "memfd MAP_PRIVATE", "private file" };

struct region {
	unsigned char *p;         /* unit-aligned, len bytes of the kind, filled with FILL */
	size_t len;
	unsigned char *map;       /* the reservation around it */
	size_t map_len;
};

/* A file (memfd or in /tmp) of len bytes of SECRET; its fd. */
static inline int secret_file(enum kind k, size_t len)
{
	char path[] = "/tmp/cp_zero_XXXXXX";
	int fd = k == FILE_PRIVATE ? mkstemp(path) : memfd_create("cp_zero", MFD_CLOEXEC);
	cr_assert(fd >= 0, "cannot create the file for %s", kind_names[k]);
	if (k == FILE_PRIVATE)
		unlink(path);
	cr_assert_eq(ftruncate(fd, (off_t)len), 0);
	unsigned char *w = mmap(NULL, len, PROT_WRITE, MAP_SHARED, fd, 0);
	cr_assert(w != MAP_FAILED);
	memset(w, SECRET, len);
	munmap(w, len);
	return fd;
}

/* units * the discard unit of memory of kind k at a unit-aligned address. */
static inline struct region region_map(enum kind k, size_t units)
{
	size_t unit = cp__discard_unit();
	struct region r = { .len = units * unit };
	r.map_len = r.len + 2 * unit;
	r.map = mmap(NULL, r.map_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	cr_assert(r.map != MAP_FAILED);
	r.p = (unsigned char *)(((uintptr_t)r.map + unit) & ~(uintptr_t)(unit - 1));
	int prot = PROT_READ | PROT_WRITE, fixed = MAP_FIXED, fd = -1, flags = MAP_PRIVATE;
	if (k == SHARED_ANON)
		flags = MAP_SHARED | MAP_ANONYMOUS;
	else if (k == PRIVATE_ANON || k == PRIVATE_THP)
		flags = MAP_PRIVATE | MAP_ANONYMOUS;
	else {
		fd = secret_file(k, r.len);
		flags = k == MEMFD_SHARED ? MAP_SHARED : MAP_PRIVATE;
	}
	cr_assert(mmap(r.p, r.len, prot, flags | fixed, fd, 0) == r.p, "mmap %s", kind_names[k]);
	if (fd >= 0)
		close(fd);
	if (k == PRIVATE_THP)
		madvise(r.p, r.len, MADV_HUGEPAGE);
	else if (k == PRIVATE_ANON)
		madvise(r.p, r.len, MADV_NOHUGEPAGE);
	memset(r.p, FILL, r.len);
	return r;
}

static inline void region_unmap(struct region *r)
{
	munmap(r->map, r->map_len);
}

/* Resident pages (mincore, system pages) of [p, p + len). */
static inline size_t resident_bytes(const unsigned char *p, size_t len)
{
	size_t sys = (size_t)sysconf(_SC_PAGESIZE), n = len / sys, res = 0;
	unsigned char vec[4096];
	for (size_t at = 0; at < n; at += sizeof(vec)) {
		size_t m = n - at < sizeof(vec) ? n - at : sizeof(vec);
		cr_assert_eq(mincore((void *)(p + at * sys), m * sys, vec), 0, "mincore");
		for (size_t i = 0; i < m; i++)
			res += vec[i] & 1;
	}
	return res * sys;
}

/* AnonHugePages (kB) of the mapping holding p, from /proc/self/smaps; -1 if unknown. */
static inline long anon_huge_kb(const void *p)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	if (!f)
		return -1;
	char line[512];
	int in = 0;
	long kb = -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long s, e;
		if (sscanf(line, "%lx-%lx ", &s, &e) == 2 && strchr(line, '-') < strchr(line, ' '))
			in = (uintptr_t)p >= s && (uintptr_t)p < e;
		else if (in && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

/* VmLck of /proc/self/status in kB, or -1. */
static inline long locked_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmLck: %ld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

/* 0 where this process may call openat2, else why not (ENOSYS: Linux before
 * 5.6, or valgrind 3.19, which does not know it; EPERM: a seccomp filter).
 * Without it the library trusts no /proc file (common/files.c): MAY_DISCARD
 * stores everything, RESIDENT checks nothing ahead. Asked of the system, not
 * of the library, so that a library that stops trusting /proc fails the
 * tests instead of skipping them. */
static inline int openat2_refused(void)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC };
	long fd = syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof(how));
	if (fd >= 0) {
		close((int)fd);
		return 0;
	}
	return errno == ENOSYS || errno == EPERM ? errno : 0;
}

/* Why the library trusts no /proc file here, or NULL: under qemu-user, which
 * answers opens of /proc/self/maps with a file of its own (a memfd or a /tmp
 * file), not procfs; where openat2 is refused. */
static inline const char *procfs_untrusted(void)
{
	if (test_under_qemu())
		return "qemu-user's /proc/self files are its own, not procfs";
	switch (openat2_refused()) {
	case ENOSYS:
		return "no openat2 here (ENOSYS: Linux before 5.6, or valgrind 3.19)";
	case EPERM:
		return "openat2 refused here (EPERM: a seccomp filter)";
	}
	return NULL;
}

/* A test that expects discards skips where the library trusts no /proc
 * file: MAY_DISCARD stores everything there. */
static inline void discards_expected(void)
{
	const char *why = procfs_untrusted();
	if (why)
		cr_skip_test("%s: MAY_DISCARD stores everything there", why);
}

/* Discard from one page on: the tests choose their extents themselves. */
static inline void discard_from_one_page(void)
{
	struct cp__policy p = cp__state()->defaults;
	p.discard_from_pages = 1;
	cr_assert_eq(cp__policy_publish(&p, "test"), 0);
}

#endif
