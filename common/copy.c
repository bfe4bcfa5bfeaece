/* SPDX-License-Identifier: MIT */
/*
 * Copying pages: cp_copy_pages, cp_copy_huge_opts (the walk is huge.c's)
 * with its deprecated alias cp_copy_huge, and the copy registry's public
 * face. Checks first, nothing written when one fails; then the kernel
 * chosen by extent from the published state (state.h: cp__copy_pick; the
 * bands: select.c, copy_bands), in calls of 4080 KiB at most as clears
 * (residency.h).
 */
#include "huge.h"
#include "residency.h"
#include "state.h"

int cp_copy_pages(void *dst, const void *src, size_t npages)
{
	const struct cp__state *s = cp__state();    /* first, whatever the arguments */
	if (npages == 0)
		return 0;
	if (cp__check_copy(dst, src, npages))
		return -EINVAL;
	if (__builtin_expect(npages < s->policy.copy_estimate_from_pages, 1))
		cp__copy_by(cp__copy_pick(s, npages), dst, src, npages);   /* 4080 KiB calls at most */
	else
		cp__copy_estimated(s, dst, src, npages);   /* where the memory is: residency.h */
	return 0;
}

int cp_copy_huge_opts(void *dst, const void *src, size_t npages, size_t hot_idx,
		      const struct cp_huge_opts *opts, const struct cp_copy_kernel *kernel)
{
	return cp__huge_copy(dst, src, npages, hot_idx, opts, kernel);
}

int cp_copy_huge(void *dst, const void *src, size_t npages, size_t hot_idx)
{
	return cp__huge_copy(dst, src, npages, hot_idx, NULL, NULL);
}

size_t cp_copy_kernels(const struct cp_copy_kernel *const **list)
{
	const struct cp__state *s = cp__state();
	if (list)
		*list = s->copy_kernels.k;
	return s->copy_kernels.n;
}

const struct cp_copy_kernel *cp_copy_kernel_find(const char *name)
{
	return cp__copy_list_find(&cp__state()->copy_kernels, name);
}

const struct cp_copy_kernel *cp_copy_kernel_for(size_t npages)
{
	return cp__copy_pick(cp__state(), npages ? npages : 1);
}
