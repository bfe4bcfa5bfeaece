/* SPDX-License-Identifier: MIT */
/*
 * calloc-check: mimalloc's own tests only zero-check blocks under 4 KiB on fresh memory, so
 * they cannot see the patched path. This dirties a block, frees it and callocs the same size
 * again (mimalloc hands the block back), then checks every byte: page-sized and odd sizes,
 * small/medium/large pages and a huge block (reused only from an arena: run it also with
 * MIMALLOC_RESERVE_OS_MEMORY set). Then the discard path (discard.patch): a large and a huge
 * block, dirty but mostly not resident, between two neighbours; the calloc that reuses it must
 * read zero in full and leave the neighbours' bytes alone. With --expect-discard, the dirty
 * pages inside it must also have left the resident set (the block was discarded, not stored).
 * Exit 1 on a non-zero byte, a changed neighbour, or when no block was ever reused (the check
 * would prove nothing).
 */
#define _DEFAULT_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <mimalloc.h>

static int all_are(const unsigned char *p, size_t n, unsigned char v)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != v)
			return 0;
	return 1;
}

#define SPARSE ((size_t)1 << 20)   /* one dirty page per MiB inside the discard block */

static int resident(const unsigned char *p)
{
	unsigned char vec = 0;
	long page = sysconf(_SC_PAGESIZE);
	void *at = (void *)((unsigned long)p & ~(unsigned long)(page - 1));
	return mincore(at, (size_t)page, &vec) == 0 && (vec & 1);
}

/* The block of n bytes at a, dirty but mostly not resident: filled, given back, then its
 * first and last 64 KiB and one page per MiB written again. */
static void dirty_sparse(unsigned char *a, size_t n)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned long s = ((unsigned long)a + page - 1) & ~(unsigned long)(page - 1);
	unsigned long e = ((unsigned long)a + n) & ~(unsigned long)(page - 1);
	memset(a, 0xa5, n);
	madvise((void *)s, e - s, MADV_DONTNEED);
	memset(a, 0xa5, 65536);
	memset(a + n - 65536, 0xa5, 65536);
	for (size_t off = SPARSE; off + 4096 <= n; off += SPARSE)
		memset(a + off, 0xa5, 4096);
}

/* 0 passed (or the block was not reused: *reused stays), 1 failed. */
static int check_discard(size_t n, int expect_discard, int *reused)
{
	unsigned char *before = mi_malloc(n), *a = mi_malloc(n), *after = mi_malloc(n);
	if (!before || !a || !after)
		return fprintf(stderr, "calloc-check: mi_malloc(%zu) failed\n", n), 1;
	size_t na = mi_usable_size(a), nb = mi_usable_size(before), nc = mi_usable_size(after);
	memset(before, 0x5c, nb);
	memset(after, 0x3c, nc);
	dirty_sparse(a, na);
	mi_free(a);
	unsigned char *q = mi_calloc(1, n);
	int bad = 0, gone = 0;
	if (!q)
		return fprintf(stderr, "calloc-check: mi_calloc(%zu) failed\n", n), 1;
	/* before any read: reading a page given back maps the zero page, which counts as resident */
	for (size_t off = SPARSE; q == a && off + 4096 <= na; off += SPARSE)
		gone += !resident(q + off);
	if (!all_are(q, mi_usable_size(q), 0))
		bad = fprintf(stderr, "calloc-check: discard %zu: non-zero bytes\n", n) > 0;
	if (!all_are(before, nb, 0x5c) || !all_are(after, nc, 0x3c))
		bad = fprintf(stderr, "calloc-check: discard %zu: a neighbour changed\n", n) > 0;
	if (q == a) {
		if (expect_discard && !gone)
			bad = fprintf(stderr, "calloc-check: discard %zu: every dirty page still "
				      "resident (stored, not discarded)\n", n) > 0;
		printf("calloc-check: discard %zu: reused, %d dirty pages given back\n", n, gone);
		++*reused;
	}
	mi_free(q);
	mi_free(before);
	mi_free(after);
	return bad;
}

/* clearpages discards only where /proc/self/maps is procfs (issue 38): under
 * qemu-user it is the emulator's own file, and every discard is stored. */
static int maps_on_procfs(void)
{
	struct statfs fs;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	int procfs = fd >= 0 && fstatfs(fd, &fs) == 0 && fs.f_type == 0x9fa0;  /* PROC_SUPER_MAGIC */
	if (fd >= 0)
		close(fd);
	return procfs;
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 4096, 4096 + 8, 12288, 65536, 100000, 1 << 20,
					(3 << 20) + 24, 8 << 20, 40 << 20 };
	int expect_discard = argc > 1 && !strcmp(argv[1], "--expect-discard");
	if (expect_discard && !maps_on_procfs()) {
		printf("calloc-check: /proc/self/maps is not procfs here (qemu-user): clearpages "
		       "stores instead of discarding, so --expect-discard is not checked\n");
		expect_discard = 0;
	}
	int bad = 0, reused = 0, dreused = 0;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (int rep = 0; rep < 3; rep++) {
			size_t n = sizes[i];
			unsigned char *p = mi_malloc(n);
			if (!p) { fprintf(stderr, "calloc-check: mi_malloc(%zu) failed\n", n); return 1; }
			memset(p, 0xa5, mi_usable_size(p));
			mi_free(p);
			unsigned char *q = mi_calloc(1, n);
			if (!q) { fprintf(stderr, "calloc-check: mi_calloc(%zu) failed\n", n); return 1; }
			reused += q == p;
			if (!all_are(q, mi_usable_size(q), 0)) {
				fprintf(stderr, "calloc-check: mi_calloc(%zu) left non-zero bytes\n", n);
				bad = 1;
			}
			mi_free(q);
		}
	}
	/* a large page (8M + 24: not page-aligned in length) and a huge block (from an arena) */
	bad |= check_discard((8 << 20) + 24, expect_discard, &dreused);
	bad |= check_discard(40 << 20, expect_discard, &dreused);
	if (!reused || !dreused) {
		fprintf(stderr, "calloc-check: no freed block came back; nothing was checked\n");
		return 1;
	}
	printf("calloc-check: %d of %zu callocs reused a dirtied block, %s\n",
	       reused, 3 * sizeof(sizes) / sizeof(sizes[0]), bad ? "FAILED (above)" : "all zero, neighbours kept");
	return bad;
}
