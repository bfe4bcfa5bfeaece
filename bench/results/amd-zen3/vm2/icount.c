/* SPDX-License-Identifier: MIT */
/* Instructions a page call runs beside the kernel, counted, not timed: this VM's
 * timings cannot resolve a few cycles at 4 KiB, callgrind's counts are exact.
 * Mode 0 calls the avx2 kernel directly, 1 cp_clear_pages, 2 cp_clear_pages_hot,
 * 3 cp_clear_pages_cold, 100000 times on one buffer; (Ir(mode) - Ir(0)) / 100000
 * is the dispatch. Only where the policy under valgrind runs avx2 at that
 * extent (one page here: valgrind's CPUID is not this VM's, and from two pages
 * its policy may pick rep stosb, which callgrind counts per byte). Build and run:
 *   gcc -O2 -Iinclude -o icount icount.c build/x86_64/libclearpages.a -lpthread
 *   valgrind --tool=callgrind --callgrind-out-file=/dev/null ./icount MODE PAGES */
#define _GNU_SOURCE
#include <stdlib.h>
#include "clearpages.h"

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	int mode = atoi(argv[1]);
	size_t pages = strtoul(argv[2], 0, 0), calls = 100000;
	char *buf = aligned_alloc(4096, pages * 4096);
	const struct cp_kernel *k = cp_kernel_find("avx2");
	if (!buf || !k)
		return 1;
	cp_clear_pages(buf, pages);
	for (size_t i = 0; i < calls; i++) {
		if (mode == 0)
			k->clear(buf, pages);
		else if (mode == 1)
			cp_clear_pages(buf, pages);
		else if (mode == 2)
			cp_clear_pages_hot(buf, pages);
		else
			cp_clear_pages_cold(buf, pages);
	}
	return 0;
}
