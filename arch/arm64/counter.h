/* SPDX-License-Identifier: MIT */
/*
 * The residency estimate's counter (common/residency.h): CNTVCT_EL0, at
 * CNTFRQ_EL0. isb first: the read is not speculated ahead of the timed
 * chunk's stores.
 */
#ifndef CP_COUNTER_H
#define CP_COUNTER_H
#include <stdint.h>

static inline uint64_t cp__counter_read(void)
{
	uint64_t v;
	__asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
}

#endif
