/* SPDX-License-Identifier: MIT */
/* Memory to measure on: anonymous mappings, 2 MiB aligned and faulted in, and
 * what /proc says of memory. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include "map.h"

#define HUGE_2M ((size_t)2 << 20)

void *bench_map(size_t bytes)
{
	size_t len = bytes + HUGE_2M;
	char *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "clearbench: mmap of %zu bytes failed: %s\n", len, strerror(errno));
		return NULL;
	}
	/* Keep the 2 MiB-aligned part only, so munmap needs no bookkeeping. */
	char *buf = (char *)(((uintptr_t)map + HUGE_2M - 1) & ~(uintptr_t)(HUGE_2M - 1));
	if (buf > map)
		munmap(map, (size_t)(buf - map));
	size_t tail = (size_t)(map + len - (buf + bytes));
	if (tail)
		munmap(buf + bytes, tail);
	/* Huge pages keep TLB misses out of the comparison; without THP it still runs. */
	madvise(buf, bytes, MADV_HUGEPAGE);
	memset(buf, 0x5a, bytes);
	return buf;
}

void bench_unmap(void *buf, size_t bytes)
{
	if (buf)
		munmap(buf, bytes);
}

size_t bench_mem_available(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	unsigned long long kib = 0;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return (size_t)kib << 10;
}

long bench_thp_kib(void)
{
	FILE *f = fopen("/proc/self/smaps_rollup", "r");
	char line[128];
	long kib = -1;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "AnonHugePages: %ld kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib;
}
