/* SPDX-License-Identifier: MIT */
/* Throwaway measurement program (bench/results/amd-zen4/NOTES.md): ticks of one
 * temporal chunk, the library's avx2 kernel between the library's own counter
 * reads, 401 tries each, on a buffer just cleared by avx2 ("hot") or by avx2_nt,
 * and on random slots of a 4 GiB pool written three times first ("cold"); for
 * each, how many tries a limit at 52000 .. 12000 MB/s would call uncached.
 *   gcc -O2 -Iarch/x86_64 -o chunk bench/results/amd-zen4/residency/chunk.c \
 *       build/x86_64/libclearpages.a
 *   ./chunk small   4 and 16 KiB chunks, buffers of 4 KiB to 16 MiB
 *   ./chunk large   16 to 64 KiB chunks, buffers of 256 KiB to 32 MiB
 * TSC_GHZ (default 2.596, this VM's) converts the limits to ticks. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include "counter.h"
void cp_x86_64_avx2(void *, size_t);
void cp_x86_64_avx2_nt(void *, size_t);
#define N 401
static double ghz = 2.596;
static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}
static uint64_t chunk(char *p, size_t pages)
{
	uint64_t t0 = cp__counter_start();
	cp_x86_64_avx2(p, pages);
	return cp__counter_read() - t0;
}
static void pr(const char *what, size_t bytes, size_t pages, uint64_t *a)
{
	static const unsigned mbps[] = { 52000, 30000, 20000, 16000, 12000 };
	char o[200];
	int n = 0;
	for (int t = 0; t < 5; t++) {
		uint64_t lim = (uint64_t)(pages * 4096.0 / (mbps[t] * 1e6) * ghz * 1e9);
		int over = 0;
		for (int i = 0; i < N; i++)
			over += a[i] > lim;
		n += sprintf(o + n, " %u:%lu:%d", mbps[t], (unsigned long)lim, over);
	}
	qsort(a, N, 8, cmp);
	printf("%-14s S=%7zuK c=%2zuK p10 %6lu p50 %6lu p90 %6lu  over(mbps:limit:n/%d)%s\n", what,
	       bytes >> 10, pages * 4, (unsigned long)a[N / 10], (unsigned long)a[N / 2],
	       (unsigned long)a[9 * N / 10], N, o);
}
int main(int argc, char **argv)
{
	static const size_t small_sizes[] = { 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20,
					      4 << 20, 16 << 20, 0 };
	static const size_t large_sizes[] = { 256 << 10, 1 << 20, 2 << 20, 4 << 20, 8 << 20,
					      16 << 20, 32 << 20, 0 };
	static const size_t small_chunks[] = { 1, 4, 0 }, large_chunks[] = { 4, 8, 16, 0 };
	int large = argc > 1 && !strcmp(argv[1], "large");
	if (argc < 2 || (!large && strcmp(argv[1], "small")))
		return fprintf(stderr, "usage: chunk small|large\n"), 2;
	if (getenv("TSC_GHZ"))
		ghz = atof(getenv("TSC_GHZ"));
	const size_t *sizes = large ? large_sizes : small_sizes;
	const size_t *chunks = large ? large_chunks : small_chunks;
	size_t pool = 4ul << 30;
	char *P = mmap(0, pool + (2 << 20), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	P = (char *)(((uintptr_t)P + (2 << 20) - 1) & ~((uintptr_t)(2 << 20) - 1));
	madvise(P, pool, MADV_HUGEPAGE);
	for (int r = 0; r < 3; r++)
		memset(P, r + 1, pool);
	for (const size_t *c = chunks; *c; c++) {
		for (const size_t *s = sizes; *s; s++) {
			size_t S = *s;
			uint64_t a[N];
			if (S < *c * 4096)
				continue;
			char *H = mmap(0, S, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
			madvise(H, S, MADV_HUGEPAGE);
			memset(H, 1, S);
			for (int i = 0; i < N; i++) {
				cp_x86_64_avx2(H, S / 4096);
				a[i] = chunk(H, *c);
			}
			pr("hot, avx2", S, *c, a);
			for (int i = 0; i < N; i++) {
				cp_x86_64_avx2_nt(H, S / 4096);
				a[i] = chunk(H, *c);
			}
			pr("hot, nt before", S, *c, a);
			munmap(H, S);
		}
		uint64_t r[N];
		for (int i = 0; i < N; i++) {
			size_t off = ((size_t)random() * 4096) % (pool - (1 << 20)) & ~4095ul;
			r[i] = chunk(P + off, *c);
		}
		pr("cold pool", pool, *c, r);
	}
	return 0;
}
