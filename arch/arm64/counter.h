/* SPDX-License-Identifier: MIT */
/*
 * The residency estimate's counter (common/residency.h): CNTVCT_EL0, at
 * CNTFRQ_EL0. dsb first: the stores before the read have completed (the
 * caller's before the chunk, the chunk's after it); isb: the read is not
 * speculated ahead of them.
 */
#ifndef CP_COUNTER_H
#define CP_COUNTER_H
#include <stdint.h>

static inline uint64_t cp__counter_read(void)
{
	uint64_t v;
	__asm__ volatile("dsb ish; isb; mrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
}

#endif
