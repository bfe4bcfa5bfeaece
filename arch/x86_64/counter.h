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
#ifndef CLEARPAGES_FREESTANDING
#include <errno.h>
#include <sys/prctl.h>
#endif

/* Whether this thread may execute rdtsc now. PR_SET_TSC is per thread and
 * can come at any time (sandboxes, record/replay debuggers): a read it makes
 * fault kills the caller, so every timing asks first (one system call,
 * ~250 ns on the Zen 4 VM, before a timing of at least a 1 MiB plan or one
 * small call in 64). The vDSO's clock reads the TSC too. A kernel that
 * cannot say (no prctl) is taken at its word that rdtsc works. */
static inline int cp__counter_readable(void)
{
#ifndef CLEARPAGES_FREESTANDING
	int saved = errno, mode = PR_TSC_ENABLE;
	int r = prctl(PR_GET_TSC, &mode, 0, 0, 0);
	errno = saved;
	return r != 0 || mode == PR_TSC_ENABLE;
#else
	return 1;
#endif
}

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
