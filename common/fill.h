/* SPDX-License-Identifier: MIT */
/*
 * The chunked fill of cp_zero's CP_ZERO_RESIDENT (common/fill.c): chunks in
 * address order on the calling thread, or on the pool's workers with a
 * measured thread count (CP_ZERO_PARALLEL), progress between chunks.
 */
#ifndef CP_FILL_H
#define CP_FILL_H

#include <stddef.h>
#include <stdint.h>
#include "clearpages.h"
#include "discard.h"      /* cp__store_fn */

/* The call around the pages: progress(done_before + finished, len, ctx). */
struct cp__fill_call {
	size_t len, done_before;
	cp_progress_fn progress;
	void *progress_ctx;
};

/* Whole pages [start, end) zero and resident (resident.h), the present ones
 * cleared by store(addr, npages, ctx). 0, -ECANCELED (progress said stop),
 * -ENOMEM or -EFAULT; *done: the bytes from start that are finished. The
 * range was checked (cp__resident_check). */
int cp__fill_resident(uintptr_t start, uintptr_t end, unsigned flags, cp__store_fn store,
		      void *ctx, const struct cp__fill_call *call, size_t *done);

/* The measured thread count (fill.c's top comment): after a phase at cur
 * threads ran at rate, the count to try next, or 0 with r->keep the count
 * to keep. Pure; start with r zeroed and cur = min(2, most). */
struct cp__ramp {
	double best_rate;
	unsigned best_threads, keep;
};
unsigned cp__ramp_next(struct cp__ramp *r, unsigned cur, double rate, unsigned most);

#endif
