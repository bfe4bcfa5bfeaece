/* SPDX-License-Identifier: MIT */
/*
 * The residency estimate's counter (common/residency.h): CNTVCT_EL0, at
 * CNTFRQ_EL0. cp__counter_start: dsb first, so the caller's stores still
 * draining are not timed as the chunk's; isb: the read is not speculated
 * ahead of that. cp__counter_read, after the chunk: isb only (as x86: the
 * chunk's own stores left in flight are not waited for).
 */
#ifndef CP_COUNTER_H
#define CP_COUNTER_H
#include <stdint.h>

/* EL0 access to the virtual counter is the kernel's, for every thread alike. */
static inline int cp__counter_readable(void)
{
	return 1;
}

static inline uint64_t cp__counter_start(void)
{
	uint64_t v;
	__asm__ volatile("dsb ish; isb; mrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
}

static inline uint64_t cp__counter_read(void)
{
	uint64_t v;
	__asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
}

#endif
