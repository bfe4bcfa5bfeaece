/* SPDX-License-Identifier: MIT */
#ifndef CP_HUGE_H
#define CP_HUGE_H
#include "state.h"
/* The huge-extent walk behind cp_clear_huge_opts, with the two pick functions
 * as parameters so tests can record the kernel choices. */
int cp__huge_clear(void *base, size_t npages, size_t hot_idx,
		   const struct cp_huge_opts *opts, cp__pick_fn pick, cp__pick_fn pick_hot);
/* cp_copy_huge_opts past nothing: every check is here. */
int cp__huge_copy(void *dst, const void *src, size_t npages, size_t hot_idx,
		  const struct cp_huge_opts *opts, const struct cp_copy_kernel *kernel);
#endif
