/* SPDX-License-Identifier: MIT */
/*
 * clearpages from C, as another project would use it: clear page extents of
 * growing size through the dispatcher, verify every byte and the page after
 * each extent, and print the kernel the dispatcher picked per extent; then an
 * unaligned byte range with cp_zero(), and one raw drop-in kernel called
 * directly. Exit status 0 when every check held, 1 otherwise.
 *
 *   clear_extents [npages ...]      default: 1 8 64 512 4096 16384
 */
#define _POSIX_C_SOURCE 200112L     /* posix_memalign under -std=c99 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <clearpages.h>

#define FILL 0xa5

static int failures;

static void check(int ok, const char *what, size_t n)
{
	if (!ok) {
		fprintf(stderr, "clear_extents: FAILED: %s (%lu)\n", what, (unsigned long)n);
		failures++;
	}
}

/* Index of the first byte of p[0, len) that is not `byte`, or len. */
static size_t first_not(const unsigned char *p, size_t len, unsigned char byte)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != byte)
			break;
	return i;
}

/* Clear npages at buf (filled beforehand) and check the page after stays put. */
static void clear_extent(unsigned char *buf, size_t npages)
{
	size_t len = npages * CP_PAGE_SIZE;
	const struct cp_kernel *k = cp_kernel_for(npages);

	memset(buf, FILL, len + CP_PAGE_SIZE);
	check(cp_clear_pages(buf, npages) == 0, "cp_clear_pages returned an error", npages);
	check(first_not(buf, len, 0) == len, "extent not all zero", npages);
	check(first_not(buf + len, CP_PAGE_SIZE, FILL) == CP_PAGE_SIZE,
	      "page after the extent was written", npages);
	printf("%8lu pages %9lu KiB  %-10s %s\n", (unsigned long)npages,
	       (unsigned long)(len / 1024), k->name,
	       (k->flags & CP_NONTEMPORAL) ? "non-temporal" : "temporal");
}

int main(int argc, char **argv)
{
	static const size_t defaults[] = { 1, 8, 64, 512, 4096, 16384 };
	size_t n = argc > 1 ? (size_t)argc - 1 : sizeof(defaults) / sizeof(defaults[0]);
	size_t *extents = malloc(n * sizeof(*extents));
	size_t i, most = 1, len;
	unsigned char *buf;
	void *mem;

	if (!extents)
		return 1;
	for (i = 0; i < n; i++) {
		extents[i] = argc > 1 ? strtoul(argv[i + 1], NULL, 0) : defaults[i];
		if (extents[i] == 0) {
			fprintf(stderr, "clear_extents: bad extent '%s'\n", argv[i + 1]);
			return 2;
		}
		if (extents[i] > most)
			most = extents[i];
	}
	/* One page more than the largest extent: the canary page after it. */
	if (posix_memalign(&mem, CP_PAGE_SIZE, (most + 1) * CP_PAGE_SIZE) != 0) {
		fprintf(stderr, "clear_extents: cannot allocate %lu pages\n", (unsigned long)most + 1);
		return 1;
	}
	buf = mem;
	printf("clearpages %s (header %d.%d.%d)\n", cp_version(),
	       CP_VERSION_MAJOR, CP_VERSION_MINOR, CP_VERSION_PATCH);

	for (i = 0; i < n; i++)
		clear_extent(buf, extents[i]);

	/* Misaligned page calls are refused with nothing written. */
	memset(buf, FILL, 2 * CP_PAGE_SIZE);
	check(cp_clear_pages(buf + 1, 1) == -EINVAL, "misaligned address accepted", 1);
	check(first_not(buf, 2 * CP_PAGE_SIZE, FILL) == 2 * CP_PAGE_SIZE,
	      "refused call wrote memory", 1);

	/* Any address, any length: exactly [buf + 3, buf + 3 + len) turns to zero. */
	len = CP_PAGE_SIZE + 1000;
	check(cp_zero(buf + 3, len, 0) == 0, "cp_zero returned an error", len);
	check(first_not(buf, 3, FILL) == 3, "cp_zero wrote before its range", len);
	check(first_not(buf + 3, len, 0) == len, "cp_zero left bytes set", len);
	check(buf[3 + len] == FILL, "cp_zero wrote after its range", len);
	printf("cp_zero: %lu bytes at offset 3 cleared\n", (unsigned long)len);

	/* A raw kernel every CPU of the arch runs: no dispatcher, no checks. */
	memset(buf, FILL, 2 * CP_PAGE_SIZE);
#if defined(__x86_64__)
	cp_x86_64_rep_stosq(buf, 2);
	printf("raw cp_x86_64_rep_stosq: 2 pages cleared\n");
#elif defined(__aarch64__)
	cp_arm64_stp(buf, 2);
	printf("raw cp_arm64_stp: 2 pages cleared\n");
#else
	memset(buf, 0, 2 * CP_PAGE_SIZE);
#endif
	check(first_not(buf, 2 * CP_PAGE_SIZE, 0) == 2 * CP_PAGE_SIZE, "raw kernel left bytes set", 2);

	free(mem);
	free(extents);
	printf("%s\n", failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
