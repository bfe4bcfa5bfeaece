/* SPDX-License-Identifier: MIT */
/*
 * The residency estimate's counter (common/residency.h): the TSC. mfence
 * first: before the chunk, the caller's own stores still draining (misses a
 * moment ago) are not timed as the chunk's; after it, the chunk's stores are
 * (a cold chunk's read-for-ownership misses, which retire before they
 * complete). lfence: rdtsc waits for that, instead of running ahead of it.
 */
#ifndef CP_COUNTER_H
#define CP_COUNTER_H
#include <stdint.h>

static inline uint64_t cp__counter_read(void)
{
	unsigned lo, hi;
	__asm__ volatile("mfence; lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

#endif
