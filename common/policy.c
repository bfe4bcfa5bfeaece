/*
 * The extent policy: which kernel clears an extent of n pages.
 *
 *   n <  small_below_pages         small-extent temporal kernel
 *   n <  nt_from_pages             temporal kernel
 *   n >= nt_from_pages             non-temporal kernel
 *
 * Defaults, and why (figures from `make bench`, see kernels_x86_64.c/README):
 *  - small: the first temporal kernel of cp_kernels(), ahead or level at
 *    4 KiB (x86_64: avx2, 222 vs 186 GB/s for rep_stosb on Sapphire Rapids in
 *    three of five runs, both about 145 in the other two).
 *  - temporal: on Intel with ERMS/FSRM, rep_stosb from 2 pages on: level with
 *    avx2 at 8 KiB, ahead by 0-10 % from 16 KiB to 32 MiB (four sweeps).
 *    Elsewhere the small kernel all the way: AMD is not measured here, and
 *    the figures quoted from the AMD EPYC host have AVX2 stores well ahead of
 *    memset at 4 KiB.
 *  - crossover to non-temporal: the last-level cache one core sees (per CCX on
 *    AMD: seed 001 finds Zen's allocation elision from about LLC size on),
 *    capped at 64 MiB:
 *    Intel's leaf 4 reports the whole package's L3, and a VM may report the
 *    host's (480 MiB here). On this host one core's temporal stores hold
 *    28 GB/s through 32 MiB in every run, while at 64 MiB they ran at 26-28
 *    GB/s in some runs and 9-11 in others (the L3 is shared with other
 *    guests); non-temporal stores hold 22-24 GB/s throughout. Non-temporal
 *    from 64 MiB loses at most 15 % there and saves up to 55 %.
 *    Past the crossover the zeroes would evict the caller's working set and
 *    every temporal store pays a read-for-ownership for nothing.
 */
#include <string.h>
#include "internal.h"

#define NT_CROSSOVER_CAP_BYTES ((size_t)64 << 20)

static const struct cp_kernel *first_usable(const struct cp__state *s, int nontemporal)
{
	for (size_t i = 0; i < s->nkernels; i++)
		if (((s->kernels[i]->flags & CP_NONTEMPORAL) != 0) == nontemporal)
			return s->kernels[i];
	/* every arch has a baseline kernel of each class; keep a fallback anyway */
	return s->kernels[0];
}

/* The usable temporal kernel made fast by a feature this CPU has (rep_stosb
 * with ERMS/FSRM), or NULL. */
static const struct cp_kernel *fast_string_kernel(const struct cp__state *s)
{
	for (size_t i = 0; i < cp__kernel_table_len; i++) {
		const struct cp__kernel_desc *d = &cp__kernel_table[i];
		if (d->ranked_by && (d->ranked_by & s->features) &&
		    !(d->needs & ~s->features) && !(d->kernel.flags & CP_NONTEMPORAL))
			return &d->kernel;
	}
	return NULL;
}

void cp__policy_default(const struct cp__state *s, struct cp__policy *p)
{
	p->small = first_usable(s, 0);
	p->temporal = p->small;
	p->small_below_pages = 0;
	const struct cp_kernel *fast = fast_string_kernel(s);
	if (fast && fast != p->small && !strcmp(s->cpu.vendor, "GenuineIntel")) {
		p->temporal = fast;
		p->small_below_pages = 2;
	}
	p->nontemporal = first_usable(s, 1);
	size_t crossover = s->cpu.llc_bytes < NT_CROSSOVER_CAP_BYTES ?
			   s->cpu.llc_bytes : NT_CROSSOVER_CAP_BYTES;
	p->nt_from_pages = crossover / CP_PAGE_SIZE;
	if (p->nt_from_pages == 0)
		p->nt_from_pages = 1;
}
