/* SPDX-License-Identifier: MIT */
#ifndef CP_PARALLEL_H
#define CP_PARALLEL_H
#include <stddef.h>
/* cp_clear_pages_parallel with another smallest share (>= 1 page): clearbench
 * measures the threshold with it; the library uses the policy's. */
int cp__clear_pages_parallel_min(void *addr, size_t npages, unsigned nthreads,
				 size_t min_share_pages);
/* The same past the checks, every share running `plan` (made for the whole
 * extent: cp_zero's intents, common/zero.c). npages >= 1. */
struct cp__plan;
void cp__clear_parallel_plan(void *addr, size_t npages, unsigned nthreads,
			     size_t min_share_pages, const struct cp__plan *plan);
#endif
