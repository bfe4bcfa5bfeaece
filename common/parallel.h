/* SPDX-License-Identifier: MIT */
#ifndef CP_PARALLEL_H
#define CP_PARALLEL_H
#include <stddef.h>
/* cp_clear_pages_parallel with another smallest share (>= 1 page): clearbench
 * measures the threshold with it; the library uses the policy's. */
int cp__clear_pages_parallel_min(void *addr, size_t npages, unsigned nthreads,
				 size_t min_share_pages);
#endif
