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
/* Work that is not a page share on the pool (parallel.c, cp__parallel_jobs):
 * job(ctx, index, shares) for each index < shares, index 0 on the caller. */
typedef void (*cp__job_fn)(void *ctx, unsigned index, unsigned shares);
void cp__parallel_jobs(unsigned nthreads, cp__job_fn job, void *ctx);
/* The CPUs the calling thread may run on (at least 1). */
unsigned cp__caller_cpus(void);
#endif
