/*
 * The extent policy: which kernel clears an extent of n pages.
 *
 *   n <  small_below_pages         small-extent temporal kernel
 *   n <  nt_from_pages             temporal kernel
 *   n >= nt_from_pages             non-temporal kernel
 *
 * The crossover to non-temporal stores is the last-level cache one core sees
 * (per CCX on AMD): below it the zeroes still fit in cache for the caller to
 * use, above it they evict everything and a temporal store pays a
 * read-for-ownership per line for nothing. Bands and kernels were chosen by
 * `clearbench sweep` on the hosts named in the README.
 */
#include "internal.h"

static const struct cp_kernel *first_usable(const struct cp__state *s, int nontemporal)
{
	for (size_t i = 0; i < s->nkernels; i++)
		if (((s->kernels[i]->flags & CP_NONTEMPORAL) != 0) == nontemporal)
			return s->kernels[i];
	/* every arch has a baseline kernel of each class; keep a fallback anyway */
	return s->kernels[0];
}

void cp__policy_default(const struct cp__state *s, struct cp__policy *p)
{
	p->small = first_usable(s, 0);
	p->temporal = p->small;
	p->nontemporal = first_usable(s, 1);
	p->small_below_pages = 0;
	p->nt_from_pages = s->cpu.llc_bytes / CP_PAGE_SIZE;
	if (p->nt_from_pages == 0)
		p->nt_from_pages = 1;
}

const struct cp_kernel *cp__pick(size_t npages)
{
	const struct cp__state *s = cp__state();
	const struct cp__policy *p = &s->policy;
	if (npages >= __atomic_load_n(&p->nt_from_pages, __ATOMIC_RELAXED))
		return __atomic_load_n(&p->nontemporal, __ATOMIC_RELAXED);
	if (npages < __atomic_load_n(&p->small_below_pages, __ATOMIC_RELAXED))
		return __atomic_load_n(&p->small, __ATOMIC_RELAXED);
	return __atomic_load_n(&p->temporal, __ATOMIC_RELAXED);
}

const struct cp_kernel *cp__pick_hot(size_t npages)
{
	const struct cp__state *s = cp__state();
	const struct cp__policy *p = &s->policy;
	if (npages < __atomic_load_n(&p->small_below_pages, __ATOMIC_RELAXED))
		return __atomic_load_n(&p->small, __ATOMIC_RELAXED);
	return __atomic_load_n(&p->temporal, __ATOMIC_RELAXED);
}

const struct cp_kernel *cp__pick_cold(size_t npages)
{
	(void)npages;
	return __atomic_load_n(&cp__state()->policy.nontemporal, __ATOMIC_RELAXED);
}
