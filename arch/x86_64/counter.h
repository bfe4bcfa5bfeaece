/* SPDX-License-Identifier: MIT */
/*
 * The residency estimate's counter (common/residency.h): the TSC. lfence
 * first, so the read waits for the timed chunk's instructions to complete
 * rather than being hoisted above them; rdtsc itself is not ordered.
 */
#ifndef CP_COUNTER_H
#define CP_COUNTER_H
#include <stdint.h>

static inline uint64_t cp__counter_read(void)
{
	unsigned lo, hi;
	__asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
	return ((uint64_t)hi << 32) | lo;
}

#endif
