/* SPDX-License-Identifier: MIT */
/*
 * Copy bands: which copy kernel cp_copy_pages and the copy walks use, by
 * extent (policy.h, struct cp__copy_bands). A built-in row's own copy rows
 * where it has them (measured with clearbench copy), else derived from the
 * clear's any bands: each band's kernel replaced by its copy counterpart, at
 * half its extent. Pure, as selection (select.c calls it last, before
 * CLEARPAGES_KERNEL, which names a clear kernel).
 */
#include "select.h"
#include "str.h"

/* Clear kernels whose copy counterpart has another name (copy_kernels.def). */
static const struct { const char *clear, *copy; } copy_for[] = {
#define CP_COPY_KERNEL(name, class, regs, needs, ranked_by, what)
#define CP_COPY_FOR(clear, copy) { #clear, #copy },
#include "copy_kernels.def"
#undef CP_COPY_FOR
#undef CP_COPY_KERNEL
};

/* The first usable copy kernel (the list is ranked) whose stores are of
 * this class (CP_NONTEMPORAL or 0), else the first of all. */
static const struct cp_copy_kernel *first_of_class(const struct cp__copy_kernel_list *usable,
						   unsigned nt)
{
	for (size_t i = 0; i < usable->n; i++)
		if ((usable->k[i]->flags & CP_NONTEMPORAL) == nt)
			return usable->k[i];
	return usable->k[0];
}

static const struct cp_copy_kernel *copy_counterpart(const struct cp__copy_kernel_list *usable,
						     const struct cp_kernel *k)
{
	const char *name = k->name;
	for (size_t i = 0; i < sizeof(copy_for) / sizeof(copy_for[0]); i++)
		if (cp__streq(copy_for[i].clear, k->name))
			name = copy_for[i].copy;
	const struct cp_copy_kernel *c = cp__copy_list_find(usable, name);
	return c ? c : first_of_class(usable, k->flags & CP_NONTEMPORAL);
}

/* Rows (ascending from 0) into copy bands: equal neighbours merged, a row
 * starting where the one before it does replacing it, unused slots filled. */
static void copy_bands_set(struct cp__copy_bands *b, const struct cp__copy_band *rows, unsigned n)
{
	unsigned used = 0;
	for (unsigned i = 0; i < n && used < CP__MAX_BANDS; i++) {
		if (used && rows[i].from_pages <= b->band[used - 1].from_pages)
			used--;                                   /* same start: the later */
		if (used && rows[i].kernel == b->band[used - 1].kernel)
			continue;
		b->band[used++] = rows[i];
	}
	for (unsigned i = used; i < CP__MAX_BANDS; i++)
		b->band[i] = (struct cp__copy_band){ CP__BAND_UNUSED, b->band[used - 1].kernel };
}

void cp__copy_bands_derive(const struct cp__copy_kernel_list *usable, struct cp__policy *p)
{
	struct cp__copy_band rows[CP__MAX_BANDS];
	unsigned n = cp__bands_count(&p->any);
	if (!usable || !usable->n)
		return;
	for (unsigned i = 0; i < n; i++)
		rows[i] = (struct cp__copy_band){ p->any.band[i].from_pages / 2,
						  copy_counterpart(usable, p->any.band[i].kernel) };
	copy_bands_set(&p->copy, rows, n);
}

/* A built-in row's copy bands (a kernel not usable here: the first usable
 * copy kernel of its class), unless CLEARPAGES_NT_THRESHOLD moved the clear's;
 * else the derived ones. */
void cp__copy_bands_select(const struct cp__select_in *in, const struct cp__builtin *b,
			   struct cp__policy *p)
{
	const struct cp__copy_kernel_list *usable = in->copy_usable;
	if (!usable || !usable->n)
		return;
	if (!b || !b->ncopy || in->has_nt_threshold) {
		cp__copy_bands_derive(usable, p);
		return;
	}
	struct cp__copy_band rows[4];
	for (unsigned i = 0; i < b->ncopy; i++) {
		const struct cp_copy_kernel *c = cp__copy_list_find(usable, b->copy[i].kernel);
		for (size_t k = 0; !c && k < cp__copy_kernel_table_len; k++)
			if (cp__streq(cp__copy_kernel_table[k].kernel.name, b->copy[i].kernel))
				c = first_of_class(usable,
						   cp__copy_kernel_table[k].kernel.flags & CP_NONTEMPORAL);
		rows[i] = (struct cp__copy_band){ b->copy[i].from_pages, c ? c : usable->k[0] };
	}
	copy_bands_set(&p->copy, rows, b->ncopy);
}
