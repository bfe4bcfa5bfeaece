/* SPDX-License-Identifier: MIT */
/*
 * The residency estimate's counter (common/residency.h): the TSC.
 * cp__counter_start: mfence first, so the caller's own stores still draining
 * (misses a moment ago) are not timed as the chunk's; lfence: rdtsc waits
 * for that instead of running ahead. cp__counter_read, after the chunk:
 * lfence only. Waiting there for the chunk's stores too (mfence) added
 * 300-700 ticks to an LLC-resident 16 KiB chunk (1500-1860 became
 * 1900-2600 against a 2660-tick limit) and tipped hot targets to "uncached".
 */
#ifndef CP_COUNTER_H
#define CP_COUNTER_H
#include <stdint.h>

static inline uint64_t cp__counter_start(void)
{
	unsigned lo, hi;
	__asm__ volatile("mfence; lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t cp__counter_read(void)
{
	unsigned lo, hi;
	__asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

#endif
