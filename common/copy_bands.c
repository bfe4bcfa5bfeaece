/* SPDX-License-Identifier: MIT */
/*
 * Copy bands: which copy kernel cp_copy_pages and the copy walks use, by
 * extent (policy.h, struct cp__copy_bands). A built-in row's own copy rows
 * where it has them (measured with clearbench copy), else derived from the
 * clear's any bands: each band's kernel replaced by its copy counterpart, at
 * the same extent; and the bands for memory not in the cache
 * (derive_uncached). Pure, as selection (select.c calls it last, before
 * CLEARPAGES_KERNEL, which names a clear kernel).
 *
 * The same extent, not half (a copy's footprint is two extents): on the
 * Zen 3 and Zen 4 copy tables the temporal copies kept up to the clear's
 * non-temporal threshold (16 MiB on both); at half of it, 8 MiB hot, the
 * non-temporal ones ran 0.62 of the fastest on Zen 4
 * (tests/data/amd-zen4-copy.csv).
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

/* The copy kernel that stands in for one a band cannot have, as select.c's
 * generic_pick does for clears: the first usable copy kernel of this class
 * (CP_NONTEMPORAL or 0; the list is ranked, a demoted kernel after the rest
 * of its class), skipping zmm kernels where the CPU prefers none (prefs
 * CP__P_NO_AVX512) unless nothing else of the class is left. The class is
 * kept: each arch has a general-register copy kernel of each class that
 * every CPU runs (tests/test_builtin_rows.c), so the last line is never
 * reached. */
const struct cp_copy_kernel *cp__copy_class_pick(const struct cp__copy_kernel_list *usable,
						 unsigned prefs, unsigned nt)
{
	const struct cp_copy_kernel *first = NULL;
	for (size_t i = 0; i < usable->n; i++) {
		const struct cp_copy_kernel *k = usable->k[i];
		if ((k->flags & CP_NONTEMPORAL) != nt)
			continue;
		if (!first)
			first = k;
		const struct cp__copy_kernel_desc *d = cp__copy_kernel_desc_of(k);
		if ((prefs & CP__P_NO_AVX512) && d && (d->needs & CP__F_AVX512))
			continue;
		return k;
	}
	return first ? first : usable->k[0];
}

static const struct cp_copy_kernel *copy_counterpart(const struct cp__copy_kernel_list *usable,
						     unsigned prefs, const struct cp_kernel *k)
{
	const char *name = k->name;
	for (size_t i = 0; i < sizeof(copy_for) / sizeof(copy_for[0]); i++)
		if (cp__streq(copy_for[i].clear, k->name))
			name = copy_for[i].copy;
	const struct cp_copy_kernel *c = cp__copy_list_find(usable, name);
	return c ? c : cp__copy_class_pick(usable, prefs, k->flags & CP_NONTEMPORAL);
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

/* The prefetching variant of a non-temporal copy kernel (NAME_pf), where
 * this CPU has one: on memory not in the cache the source misses too. */
static const struct cp_copy_kernel *prefetching(const struct cp__copy_kernel_list *usable,
						const struct cp_copy_kernel *k)
{
	char name[32];
	size_t n = 0;
	while (k->name[n] && n < sizeof(name) - 4) {
		name[n] = k->name[n];
		n++;
	}
	for (const char *suffix = "_pf"; *suffix; suffix++)
		name[n++] = *suffix;
	name[n] = 0;
	const struct cp_copy_kernel *pf = cp__copy_list_find(usable, name);
	return pf ? pf : k;
}

/* The copy bands for memory not in the cache (the thread's copy history
 * says which): the cached copy bands below where the clear's uncached bands
 * go non-temporal, never below CP__COPY_ESTIMATE_MIN_PAGES; from there each
 * uncached band's copy counterpart at the same extent (the destination
 * misses as a cleared one does; no halving: the source, read once, is not
 * kept), prefetching. From 64 KiB the copy bands' avx2 ran 0.57-0.63 of
 * the fastest copy onto cold memory on Zen 3, avx2_nt_pf the fastest at
 * nearly every extent (tests/data/amd-zen3-copy.csv); below 16 KiB a
 * temporal copy served both (policy.h, CP__COPY_ESTIMATE_MIN_PAGES). */
static void derive_uncached(const struct cp__copy_kernel_list *usable, unsigned prefs,
			    struct cp__policy *p)
{
	struct cp__copy_band rows[2 * CP__MAX_BANDS];
	unsigned n = 0, nu = cp__bands_count(&p->uncached), nc = 0;
	size_t nt_from = cp__bands_nt_from(&p->uncached);
	if (nt_from != CP__BAND_UNUSED && nt_from < CP__COPY_ESTIMATE_MIN_PAGES)
		nt_from = CP__COPY_ESTIMATE_MIN_PAGES;
	while (nc < CP__MAX_BANDS && p->copy.band[nc].from_pages < nt_from)
		rows[n++] = p->copy.band[nc++];
	for (unsigned i = 0; i < nu && nt_from != CP__BAND_UNUSED; i++) {
		size_t end = i + 1 < nu ? p->uncached.band[i + 1].from_pages : CP__BAND_UNUSED;
		if (end <= nt_from)
			continue;
		const struct cp_kernel *k = p->uncached.band[i].kernel;
		const struct cp_copy_kernel *c = copy_counterpart(usable, prefs, k);
		size_t from = p->uncached.band[i].from_pages;
		rows[n++] = (struct cp__copy_band){ from > nt_from ? from : nt_from,
						    c->flags & CP_NONTEMPORAL ? prefetching(usable, c)
									       : c };
	}
	copy_bands_set(&p->copy_uncached, rows, n);
}

static void derive(const struct cp__copy_kernel_list *usable, unsigned prefs, struct cp__policy *p)
{
	struct cp__copy_band rows[CP__MAX_BANDS];
	unsigned n = cp__bands_count(&p->any);
	if (!usable || !usable->n)
		return;
	for (unsigned i = 0; i < n; i++)
		rows[i] = (struct cp__copy_band){ p->any.band[i].from_pages,
						  copy_counterpart(usable, prefs, p->any.band[i].kernel) };
	copy_bands_set(&p->copy, rows, n);
	derive_uncached(usable, prefs, p);
}

/* A hand-made policy (cp__policy_publish): no CPU description, so no
 * preference bits. */
void cp__copy_bands_derive(const struct cp__copy_kernel_list *usable, struct cp__policy *p)
{
	derive(usable, 0, p);
}

/* A built-in row's copy kernel, as select.c's builtin_kernel treats a clear
 * row's: the kernel it names where it is usable here and not demoted (ranked
 * by features this CPU lacks or the caller masked: rep_movsb under
 * CLEARPAGES_DISABLE=erms,fsrm, since the row was measured with them); else
 * the stand-in of its class (cp__copy_class_pick): a temporal row stays temporal, a
 * non-temporal one non-temporal. A name the table does not know (a row of
 * another arch's names) takes the temporal stand-in. */
static const struct cp_copy_kernel *row_kernel(const struct cp__select_in *in, const char *name)
{
	const struct cp__copy_kernel_list *usable = in->copy_usable;
	const struct cp_copy_kernel *c = cp__copy_list_find(usable, name);
	const struct cp__copy_kernel_desc *d = c ? cp__copy_kernel_desc_of(c) : NULL;
	if (c && !(d && cp__copy_kernel_demoted(d, in->cpu->features)))
		return c;
	for (size_t k = 0; k < cp__copy_kernel_table_len; k++)
		if (cp__streq(cp__copy_kernel_table[k].kernel.name, name))
			return cp__copy_class_pick(usable, in->cpu->prefs,
					  cp__copy_kernel_table[k].kernel.flags & CP_NONTEMPORAL);
	return cp__copy_class_pick(usable, in->cpu->prefs, 0);
}

/* A built-in row's copy bands (row_kernel), unless CLEARPAGES_NT_THRESHOLD
 * moved the clear's; else the derived ones. */
void cp__copy_bands_select(const struct cp__select_in *in, const struct cp__builtin *b,
			   struct cp__policy *p)
{
	const struct cp__copy_kernel_list *usable = in->copy_usable;
	if (!usable || !usable->n)
		return;
	if (!b || !b->ncopy || in->has_nt_threshold) {
		derive(usable, in->cpu->prefs, p);
		return;
	}
	struct cp__copy_band rows[sizeof(b->copy) / sizeof(b->copy[0])];
	unsigned n = b->ncopy < sizeof(rows) / sizeof(rows[0]) ? b->ncopy
							      : sizeof(rows) / sizeof(rows[0]);
	for (unsigned i = 0; i < n; i++)
		rows[i] = (struct cp__copy_band){ b->copy[i].from_pages,
						  row_kernel(in, b->copy[i].kernel) };
	copy_bands_set(&p->copy, rows, n);
	derive_uncached(usable, in->cpu->prefs, p);
}
