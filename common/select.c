/* SPDX-License-Identifier: MIT */
/*
 * Selection: CPU description + usable kernels + profile + overrides -> policy.
 * Pure (no globals, no I/O). First match wins for the bands: a profile given
 * by the caller (already checked to be this CPU's), the built-in profile of
 * the CPU's microarchitecture, the generic rule.
 *
 * The generic rule, for CPUs no profile was measured on, built from what
 * detection states (features, preference bits, cache sizes) and scored
 * against every recorded host with that host's own row withheld
 * (docs/generic-rule.md, tests/test_generic_rule.c):
 *  - from one page, the first temporal kernel of cp_kernels() (the widest
 *    stores; zmm kernels skipped where 512-bit stores are split, CP__P_NO_AVX512);
 *  - from 16 KiB, rep stosb where it is level with vector stores from
 *    there up (CP__P_STRING_MID: Intel's fast-string microcode);
 *  - from half the last-level cache one core sees, at most 64 MiB, the first
 *    non-temporal kernel (clzero where the CPU has it). Past that the zeroes
 *    evict the caller's working set and each temporal store pays a
 *    read-for-ownership for nothing. The cap: Intel VMs report the whole
 *    package's L3, while one core's temporal stores of a cached buffer lose
 *    from 64 MiB (Emerald Rapids: 0.46 of non-temporal ones there,
 *    bench/results/intel-emerald-rapids/README.md). A target past the LLC
 *    below the cap times slow chunks and takes the uncached band.
 *  - shares of 8 MiB for parallel clears: no measured host lost there.
 * For memory that is not in the caches (the uncached bands, every source
 * that names none): the same rows, but non-temporal from 16 KiB. A caller
 * may clear such memory and leave it (cold: non-temporal stores win from a
 * few KiB) or clear it and write it at once (temporal stores win up to about
 * the L2 size), and cp_clear_pages cannot tell the two apart: each band is
 * held to the best any one kernel does for both at once, less 0.05 (the
 * larger of the two shortfalls), on every recorded host
 * (tests/test_generic_rule.c). From 16 KiB any's first non-temporal kernel
 * meets it (rep stosb there: 0.27 of the best for both on Zen 4,
 * bench/results/amd-zen4/README.md). Below 16 KiB rep stosb, where the CPU
 * ranks it (ERMS, FSRS): 4 KiB 0.93 of the best for both on the Zen 5 VM
 * (bench/results/amd-zen5/README.md). Not where the CPU allocates every
 * line a short clear stores (CP__P_SHORT_UNCACHED_NT): there the first
 * vector non-temporal kernel (rep stosb 0.39 of the best for both at 4 KiB
 * on Zen 4, bench/results/amd-zen4/README.md; clzero, written at once,
 * trailed the vector kernel on every AMD host). On cached memory vector
 * stores lead (1.6-1.8x rep stosb at 4-16 KiB on Zen 5,
 * bench/results/amd-zen5/README.md), so the thread's history tells the two
 * apart from one page on; elsewhere any's rows stay below 16 KiB.
 * Every source derives them so; a version 3 profile may name its own.
 * The residency threshold (cached_min_mbps): 16000 MB/s, where the built-in
 * profile gives none: near the geometric mean of a 16 KiB temporal chunk's
 * rate on an LLC-resident target and on a cold one, on the Intel VM
 * (bench/results/intel-family6-model167/README.md).
 * Discard (cp_zero's CP_ZERO_MAY_DISCARD, discard_from): from 4 MiB, where
 * the builtin profile gives none: the smallest extent where madvise beat
 * stores on both THP and 4 KiB pages on the Intel VM (same record).
 * Then, for every source: cp_clear_pages_hot keeps the temporal rows (a
 * non-temporal band takes the temporal kernel before it), _cold the
 * non-temporal ones (a temporal band takes the non-temporal kernel after it);
 * CLEARPAGES_NT_THRESHOLD splits hot from cold at its size, and
 * CLEARPAGES_KERNEL replaces every kernel.
 */
#include <string.h>
#include "select.h"
#include "str.h"

#define GENERIC_NT_CAP_PAGES    ((size_t)64 << 20 >> 12)
#define GENERIC_SHARE_PAGES     ((size_t)8 << 20 >> 12)
#define GENERIC_CACHED_MIN_MBPS 16000
#define GENERIC_STRING_FROM_PAGES 4        /* 16 KiB */
#define GENERIC_DISCARD_PAGES   ((size_t)4 << 20 >> 12)
#define GENERIC_UNCACHED_NT_FROM_PAGES 4   /* 16 KiB */

static int is_nt(const struct cp_kernel *k)
{
	return (k->flags & CP_NONTEMPORAL) != 0;
}

/* A zmm kernel on a CPU that prefers none (CP__P_NO_AVX512). */
static int zmm_unwanted(const struct cp__select_in *in, const struct cp_kernel *k)
{
	const struct cp__kernel_desc *d = cp__kernel_desc_of(k);
	return (in->cpu->prefs & CP__P_NO_AVX512) && d && (d->needs & CP__F_AVX512);
}

/* The generic choice of a class: the first usable kernel of it, skipping
 * zmm kernels where the CPU prefers none. Every arch has a baseline kernel
 * of each class, so the list always holds one. */
static const struct cp_kernel *generic_pick(const struct cp__select_in *in, int nt)
{
	const struct cp_kernel *first = NULL;
	for (size_t i = 0; i < in->usable->n; i++) {
		const struct cp_kernel *k = in->usable->k[i];
		if (is_nt(k) != nt)
			continue;
		if (!first)
			first = k;
		if (!zmm_unwanted(in, k))
			return k;
	}
	return first ? first : in->usable->k[0];
}

/* The first usable vector non-temporal kernel (zmm skipped as above), else
 * the generic non-temporal one (CLEARPAGES_DISABLE=simd). */
static const struct cp_kernel *vector_nt_pick(const struct cp__select_in *in)
{
	for (size_t i = 0; i < in->usable->n; i++) {
		const struct cp_kernel *k = in->usable->k[i];
		if (is_nt(k) && (k->flags & CP_SIMD) && !zmm_unwanted(in, k))
			return k;
	}
	return generic_pick(in, 1);
}

/* A usable temporal kernel ranked by a feature this CPU has (rep_stosb with
 * ERMS/FSRS), or NULL. */
static const struct cp_kernel *fast_string_kernel(const struct cp__select_in *in)
{
	for (size_t i = 0; i < in->usable->n; i++) {
		const struct cp__kernel_desc *d = cp__kernel_desc_of(in->usable->k[i]);
		if (d && d->ranked_by && (d->ranked_by & in->cpu->features) && !is_nt(&d->kernel))
			return &d->kernel;
	}
	return NULL;
}

/* Rows (ascending, first from 0) into a band list: adjacent rows with the
 * same kernel merged, rows past CP__MAX_BANDS dropped into the last one,
 * unused slots filled with the last kernel. */
void cp__bands_set(struct cp__bands *b, const struct cp__band *rows, unsigned n)
{
	unsigned used = 0;
	if (n == 0)
		return;         /* no kernel to fill the list with: left as it was */
	for (unsigned i = 0; i < n; i++) {
		if (used && rows[i].kernel == b->band[used - 1].kernel)
			continue;
		if (used && rows[i].from_pages <= b->band[used - 1].from_pages) {
			b->band[used - 1].kernel = rows[i].kernel;   /* empty band before it */
			continue;
		}
		if (used == CP__MAX_BANDS)
			break;
		b->band[used++] = rows[i];
	}
	b->band[0].from_pages = 0;
	for (unsigned i = used; i < CP__MAX_BANDS; i++) {
		b->band[i].from_pages = CP__BAND_UNUSED;
		b->band[i].kernel = b->band[used - 1].kernel;
	}
}

static unsigned bands_rows(const struct cp__bands *b, struct cp__band *rows)
{
	unsigned n = cp__bands_count(b);
	for (unsigned i = 0; i < n; i++)
		rows[i] = b->band[i];
	return n;
}

/* hot and cold from any, as the header comment says. */
static void derive_hot_cold(const struct cp__select_in *in, struct cp__policy *p)
{
	struct cp__band rows[CP__MAX_BANDS], hot[CP__MAX_BANDS], cold[CP__MAX_BANDS];
	unsigned n = bands_rows(&p->any, rows);
	const struct cp_kernel *t = generic_pick(in, 0);
	for (unsigned i = 0; i < n; i++) {
		if (!is_nt(rows[i].kernel))
			t = rows[i].kernel;
		hot[i].from_pages = rows[i].from_pages;
		hot[i].kernel = t;
	}
	const struct cp_kernel *c = generic_pick(in, 1);
	for (unsigned i = n; i-- > 0;) {
		if (is_nt(rows[i].kernel))
			c = rows[i].kernel;
		cold[i].from_pages = rows[i].from_pages;
		cold[i].kernel = c;
	}
	cp__bands_set(&p->hot, hot, n);
	cp__bands_set(&p->cold, cold, n);
}

/* The uncached bands from any (header comment): below 16 KiB the vector
 * non-temporal kernel where short clears allocate, else rep stosb where the
 * CPU ranks it, else any's rows; then any's first non-temporal kernel (or
 * the generic one) from there, then any's non-temporal rows after it. */
static void derive_uncached(const struct cp__select_in *in, struct cp__policy *p)
{
	struct cp__band rows[CP__MAX_BANDS], out[CP__MAX_BANDS + 1];
	unsigned n = bands_rows(&p->any, rows), m = 0;
	const size_t nt_from = GENERIC_UNCACHED_NT_FROM_PAGES;
	const struct cp_kernel *nt = NULL, *string = fast_string_kernel(in);
	for (unsigned i = 0; i < n && !nt; i++)
		if (is_nt(rows[i].kernel))
			nt = rows[i].kernel;
	if (!nt)
		nt = generic_pick(in, 1);
	if (in->cpu->prefs & CP__P_SHORT_UNCACHED_NT)
		out[m++] = (struct cp__band){ 0, vector_nt_pick(in) };
	else if (string)
		out[m++] = (struct cp__band){ 0, string };
	else
		for (unsigned i = 0; i < n && rows[i].from_pages < nt_from; i++)
			out[m++] = rows[i];
	if (!m || out[m - 1].kernel != nt)
		out[m++] = (struct cp__band){ nt_from, nt };
	for (unsigned i = 0; i < n; i++)
		if (rows[i].from_pages > nt_from && is_nt(rows[i].kernel) && m < CP__MAX_BANDS)
			out[m++] = rows[i];
	cp__bands_set(&p->uncached, out, m < CP__MAX_BANDS ? m : CP__MAX_BANDS);
}

/* The smallest extent from which two band lists pick differently: band 0,
 * else the smallest start of either list where their picks differ. One walk
 * for the clear and the copy band lists (two types). */
#define FIRST_DIFFERENCE(name, bands_type, pick)                                          \
	static size_t name(const bands_type *a, const bands_type *b)                      \
	{                                                                                 \
		size_t best = CP__BAND_UNUSED;                                            \
		if (a->band[0].kernel != b->band[0].kernel)                               \
			return 0;                                                         \
		for (unsigned i = 1; i < CP__MAX_BANDS; i++) {                            \
			size_t fa = a->band[i].from_pages, fb = b->band[i].from_pages;    \
			if (fa != CP__BAND_UNUSED && fa < best && pick(a, fa) != pick(b, fa)) \
				best = fa;                                                \
			if (fb != CP__BAND_UNUSED && fb < best && pick(a, fb) != pick(b, fb)) \
				best = fb;                                                \
		}                                                                         \
		return best;                                                              \
	}
FIRST_DIFFERENCE(first_difference, struct cp__bands, cp__bands_pick)
FIRST_DIFFERENCE(copy_first_difference, struct cp__copy_bands, cp__copy_bands_pick)
#undef FIRST_DIFFERENCE

void cp__policy_finish(struct cp__policy *p)
{
	p->estimate_from_pages = CP__BAND_UNUSED;
	p->cold_estimate_below_pages = 0;
	p->copy_estimate_from_pages = CP__BAND_UNUSED;
	if (!p->cached_min_mbps)
		return;
	if (p->copy_uncached.band[0].kernel) {
		size_t from = copy_first_difference(&p->copy, &p->copy_uncached);
		if (from != CP__BAND_UNUSED)
			p->copy_estimate_from_pages = from > CP__COPY_ESTIMATE_MIN_PAGES ? from
							 : CP__COPY_ESTIMATE_MIN_PAGES;
	}
	p->estimate_from_pages = first_difference(&p->any, &p->uncached);
	p->cold_estimate_below_pages = cp__policy_nt_from(p);
	if (p->cold_estimate_below_pages == CP__BAND_UNUSED)
		p->cold_estimate_below_pages = CP__BAND_UNUSED - 1;   /* any never goes NT */
}

/* A built-in row's kernel, or the generic choice of its class where that
 * kernel is unknown here, disabled, or ranked by features this CPU lacks or
 * the caller masked (a rep_stosb row under CLEARPAGES_DISABLE=erms,fsrm): the
 * row was measured with those features. */
static const struct cp_kernel *builtin_kernel(const struct cp__select_in *in, const char *name)
{
	const struct cp_kernel *k = cp__list_find(in->usable, name);
	const struct cp__kernel_desc *d = k ? cp__kernel_desc_of(k) : NULL;
	if (k && !(d && cp__kernel_demoted(d, in->cpu->features)))
		return k;
	for (size_t i = 0; i < cp__kernel_table_len; i++)
		if (cp__streq(cp__kernel_table[i].kernel.name, name))
			return generic_pick(in, is_nt(&cp__kernel_table[i].kernel));
	return generic_pick(in, 0);
}

/* A built-in's rows, by name, into a band list. */
static void builtin_bands(const struct cp__select_in *in, const struct cp__builtin_band *src,
			  unsigned nsrc, struct cp__bands *out)
{
	struct cp__band rows[CP__MAX_BANDS];
	unsigned n = nsrc <= CP__MAX_BANDS ? nsrc : CP__MAX_BANDS;
	for (unsigned i = 0; i < n; i++) {
		rows[i].from_pages = src[i].from_pages;
		rows[i].kernel = builtin_kernel(in, src[i].kernel);
	}
	cp__bands_set(out, rows, n);
}

static void defaults_builtin(const struct cp__select_in *in, const struct cp__builtin *b,
			     struct cp__policy *p)
{
	builtin_bands(in, b->bands, b->nbands, &p->any);
	p->parallel_min_share_pages = b->parallel_min_share_pages;
	p->cached_min_mbps = b->cached_min_mbps ? b->cached_min_mbps : GENERIC_CACHED_MIN_MBPS;
	p->discard_from_pages = b->discard_from_pages ? b->discard_from_pages : GENERIC_DISCARD_PAGES;
}

static void defaults_generic(const struct cp__select_in *in, struct cp__policy *p)
{
	struct cp__band rows[3];
	unsigned n = 0;
	rows[n++] = (struct cp__band){ 0, generic_pick(in, 0) };
	const struct cp_kernel *fast = fast_string_kernel(in);
	if ((in->cpu->prefs & CP__P_STRING_MID) && fast)
		rows[n++] = (struct cp__band){ GENERIC_STRING_FROM_PAGES, fast };
	size_t nt_from = in->cpu->llc_bytes / 2 / CP_PAGE_SIZE;
	if (nt_from > GENERIC_NT_CAP_PAGES)
		nt_from = GENERIC_NT_CAP_PAGES;
	if (nt_from < GENERIC_STRING_FROM_PAGES + 1)
		nt_from = GENERIC_STRING_FROM_PAGES + 1;    /* after the bands above */
	rows[n++] = (struct cp__band){ nt_from, generic_pick(in, 1) };
	cp__bands_set(&p->any, rows, n);
	p->parallel_min_share_pages = GENERIC_SHARE_PAGES;
	p->cached_min_mbps = GENERIC_CACHED_MIN_MBPS;
	p->discard_from_pages = GENERIC_DISCARD_PAGES;
}

/* The three-band view a version-1 profile edits: its keys replace these. */
static void apply_v1(const struct cp__profile *pr,
		     struct cp__policy *p)
{
	size_t small_below = 0, nt_from = cp__policy_nt_from(p);
	unsigned nhot = cp__bands_count(&p->hot);
	const struct cp_kernel *small = p->hot.band[0].kernel;
	const struct cp_kernel *temporal = p->hot.band[nhot - 1].kernel;
	const struct cp_kernel *nontemporal = p->cold.band[cp__bands_count(&p->cold) - 1].kernel;
	if (nhot > 1)
		small_below = p->hot.band[1].from_pages;
#define GIVEN(key) (pr->v1_given & (1u << CP__V1_##key))
	if (GIVEN(SMALL))       small = pr->small;
	if (GIVEN(TEMPORAL))    temporal = pr->temporal;
	if (GIVEN(NONTEMPORAL)) nontemporal = pr->nontemporal;
	if (GIVEN(SMALL_BELOW)) small_below = pr->small_below_pages;
	if (GIVEN(NT_FROM))     nt_from = pr->nt_from_pages;
#undef GIVEN
	/* nt_from alone may undercut the default small band: cp_clear_pages
	 * then goes non-temporal first, while the hot bands keep it. */
	struct cp__band hot[2] = { { 0, small }, { small_below, temporal } };
	struct cp__band any[3] = { { 0, small },
				   { small_below < nt_from ? small_below : nt_from, temporal },
				   { nt_from, nontemporal } };
	struct cp__band cold = { 0, nontemporal };
	cp__bands_set(&p->any, any, nt_from == CP__BAND_UNUSED ? 2 : 3);
	cp__bands_set(&p->hot, hot, 2);
	cp__bands_set(&p->cold, &cold, 1);
}

/* CLEARPAGES_NT_THRESHOLD: below it the hot bands, from it the cold ones. */
static void apply_nt_threshold(size_t from, struct cp__policy *p)
{
	struct cp__band hot[CP__MAX_BANDS], cold[CP__MAX_BANDS], rows[2 * CP__MAX_BANDS];
	unsigned nh = bands_rows(&p->hot, hot), nc = bands_rows(&p->cold, cold), n = 0;
	for (unsigned i = 0; i < nh && hot[i].from_pages < from; i++)
		rows[n++] = hot[i];
	rows[n++] = (struct cp__band){ from, cp__bands_pick(&p->cold, from) };
	for (unsigned i = 0; i < nc; i++)
		if (cold[i].from_pages > from)
			rows[n++] = cold[i];
	cp__bands_set(&p->any, rows, n);
}

const struct cp__builtin *cp__builtin_find(const char *uarch)
{
	if (!uarch || !uarch[0])
		return NULL;
	for (size_t i = 0; i < cp__builtins_len; i++)
		if (cp__streq(cp__builtins[i].uarch, uarch))
			return &cp__builtins[i];
	return NULL;
}

const struct cp__builtin *cp__select(const struct cp__select_in *in, struct cp__policy *out)
{
	/* padding too: publish finds a kept state by memcmp of whole policies
	 * (init.c), and a hole after cached_min_mbps held stack garbage */
	memset(out, 0, sizeof(*out));
	const struct cp__builtin *b = cp__builtin_find(in->cpu->uarch);
	if (b)
		defaults_builtin(in, b, out);
	else
		defaults_generic(in, out);
	derive_hot_cold(in, out);
	derive_uncached(in, out);
	if (in->has_nt_threshold) {
		/* the caller said where non-temporal stores begin: whatever the memory */
		apply_nt_threshold(in->nt_threshold_pages, out);
		out->uncached = out->any;
	}

	const struct cp__profile *pr = in->profile;
	if (pr && pr->version >= 2) {
		cp__bands_set(&out->any, pr->bands, pr->nbands);
		derive_hot_cold(in, out);
		derive_uncached(in, out);
		cp__bands_set(&out->uncached, pr->uncached, pr->nuncached);   /* v3, when given */
	} else if (pr) {
		apply_v1(pr, out);
		derive_uncached(in, out);
	}
	if (pr && pr->has_parallel)
		out->parallel_min_share_pages = pr->parallel_min_share_pages;
	if (pr && pr->has_cached_min_mbps)
		out->cached_min_mbps = pr->cached_min_mbps;
	if (pr && pr->has_discard_from)
		out->discard_from_pages = pr->discard_from_pages;

	cp__copy_bands_select(in, b, out);      /* CLEARPAGES_KERNEL names a clear kernel */
	if (in->forced) {
		struct cp__band f = { 0, in->forced };
		cp__bands_set(&out->any, &f, 1);
		cp__bands_set(&out->hot, &f, 1);
		cp__bands_set(&out->cold, &f, 1);
		cp__bands_set(&out->uncached, &f, 1);
	}
	if (!(in->cpu->features & CP__F_COUNTER))
		out->cached_min_mbps = 0;        /* nothing to time with: extent alone */
	cp__policy_finish(out);
	return b;
}
