/* SPDX-License-Identifier: MIT */
/*
 * calloc-check: mimalloc's own tests only zero-check blocks under 4 KiB on fresh memory, so
 * they cannot see the patched path. This dirties a block, frees it and callocs the same size
 * again (mimalloc hands the block back), then checks every byte: page-sized and odd sizes,
 * small/medium/large pages and a huge block (reused only from an arena: run it also with
 * MIMALLOC_RESERVE_OS_MEMORY set). Exit 1 on a non-zero byte or when no block was
 * ever reused (the check would prove nothing).
 */
#include <stdio.h>
#include <string.h>
#include <mimalloc.h>

static int all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

int main(void)
{
	static const size_t sizes[] = { 4096, 4096 + 8, 12288, 65536, 100000, 1 << 20,
					(3 << 20) + 24, 8 << 20, 40 << 20 };
	int bad = 0, reused = 0;
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
			if (!all_zero(q, mi_usable_size(q))) {
				fprintf(stderr, "calloc-check: mi_calloc(%zu) left non-zero bytes\n", n);
				bad = 1;
			}
			mi_free(q);
		}
	}
	if (!reused) {
		fprintf(stderr, "calloc-check: no freed block came back; nothing was checked\n");
		return 1;
	}
	printf("calloc-check: %d of %zu callocs reused a dirtied block, %s\n",
	       reused, 3 * sizeof(sizes) / sizeof(sizes[0]), bad ? "NOT all zero" : "all zero");
	return bad;
}
