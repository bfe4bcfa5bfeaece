/* SPDX-License-Identifier: MIT */
/*
 * Copying pages: every kernel of cp_copy_kernels() (each property over every
 * usable copy kernel, each kernel's result recorded before the test fails:
 * every_kernel.h), the copy list, cp_copy_pages' checks and its choice by
 * extent. The huge walks: tests/test_copy_huge.c. Sources are read-only
 * pattern pages between guards, destinations sit in a fill or right against
 * guards (tests/copy_pattern.h): a stray read or write faults, a stray store
 * into the fill shows.
 */
#include "every_kernel.h"
#include "copy_pattern.h"
#include <errno.h>

/* One property of one copy kernel: 0, or -1 with why[]. */
typedef int copy_property(const struct cp_copy_kernel *k, char *why, size_t whylen);
struct copy_every { const struct cp_copy_kernel *const *list; copy_property *prop; };

static const char *copy_name(const void *ctx, size_t i)
{
	return ((const struct copy_every *)ctx)->list[i]->name;
}

static int copy_run(const void *ctx, size_t i, char *why, size_t whylen)
{
	const struct copy_every *c = ctx;
	return c->prop(c->list[i], why, whylen);
}

static void check_every_copy_kernel(const char *property, copy_property *prop)
{
	struct copy_every c = { .prop = prop };
	size_t n = cp_copy_kernels(&c.list);
	check_every(property, n, copy_name, copy_run, &c);
}

/* n pages with k between guards (pad 0) and inside a fill (pad 1). A copy
 * pair left mapped by a fault is not unmapped: the test fails anyway. */
static int copy_once(const struct cp_copy_kernel *k, size_t n, size_t pad, char *why, size_t whylen)
{
	struct copy_pair c;
	if (copy_pair_map(&c, n, pad, 0xc0de0000u + 64 * n + pad)) {
		snprintf(why, whylen, "mmap: %s", strerror(errno));
		return -1;
	}
	k->copy(c.d, c.s, n);
	int rc = copy_pair_verify(&c, why, whylen);
	copy_pair_unmap(&c);
	return rc;
}

static int exact_sizes(const struct cp_copy_kernel *k, char *why, size_t whylen)
{
	static const size_t sizes[] = { 1, 2, 3, 7, 16, 17, 64, 600 };
	size_t nsizes = sizeof(sizes) / sizeof(sizes[0]) - (test_quick() ? 1 : 0);
	for (size_t i = 0; i < nsizes; i++)
		for (size_t pad = 0; pad <= 1; pad++)
			if (copy_once(k, sizes[i], pad, why, whylen))
				return -1;
	return 0;
}

Test(copy_kernels, exact_copy_between_guards)
{
	check_every_copy_kernel("exact copy of 1-600 pages", exact_sizes);
}

/* npages == 0 touches nothing: once inside the mappings, once with both
 * pointers at the trailing guards (any access faults). */
static int no_pages(const struct cp_copy_kernel *k, char *why, size_t whylen)
{
	struct copy_pair c;
	if (copy_pair_map(&c, 2, 1, 0x2e70)) {
		snprintf(why, whylen, "mmap: %s", strerror(errno));
		return -1;
	}
	k->copy(c.d, c.s, 0);
	k->copy(c.dst.mem + c.dst.len, c.src.mem + c.src.len, 0);
	int rc = copy_pair_untouched(&c, why, whylen);
	copy_pair_unmap(&c);
	return rc;
}

Test(copy_kernels, zero_pages_touch_nothing)
{
	check_every_copy_kernel("npages == 0", no_pages);
}

/* Source and destination at page offsets of one mapping, every pair of a set
 * that does not overlap: adjacent both ways (source right before and right
 * after the destination), apart, flush with either guard. */
enum { ALIGN_PAGES = 24 };
static const size_t align_at[] = { 0, 1, 2, 3, 5, 8, 13, 19 }, align_n[] = { 1, 3, 5 };
#define NALIGN (sizeof(align_at) / sizeof(align_at[0]))

static int page_offsets(const struct cp_copy_kernel *k, char *why, size_t whylen)
{
	struct guarded g;
	char broke[200];
	if (guard_map(&g, ALIGN_PAGES)) {
		snprintf(why, whylen, "mmap: %s", strerror(errno));
		return -1;
	}
	for (size_t in = 0; in < 3; in++)
		for (size_t ia = 0; ia < NALIGN; ia++)
			for (size_t ib = 0; ib < NALIGN; ib++) {
				size_t n = align_n[in], a = align_at[ia], b = align_at[ib];
				uint64_t seed = 1000 * n + 100 * a + b;
				if (a + n > ALIGN_PAGES || b + n > ALIGN_PAGES ||
				    (a < b ? b - a < n : a - b < n))
					continue;
				memset(g.mem, FILL, g.len);
				pattern_fill(g.mem + a * PG, n, seed);
				k->copy(g.mem + b * PG, g.mem + a * PG, n);
				if (pattern_verify(g.mem, g.len, a * PG, b * PG, n * PG, seed, broke,
						   sizeof(broke))) {
					snprintf(why, whylen, "%zu pages from page %zu to page %zu: %s",
						 n, a, b, broke);
					guard_unmap(&g);
					return -1;
				}
			}
	guard_unmap(&g);
	return 0;
}

Test(copy_kernels, page_offsets_and_adjacent_ranges)
{
	check_every_copy_kernel("source and destination page offsets", page_offsets);
}

/* ---- the list ------------------------------------------------------------ */

Test(copy_kernels, list_order_and_lookup)
{
	const struct cp_copy_kernel *const *list;
	size_t n = cp_copy_kernels(&list);
	cr_assert_gt(n, 0, "no usable copy kernel");
	cr_assert_eq(cp_copy_kernels(NULL), n);
	int seen_nt = 0;
	for (size_t i = 0; i < n; i++) {
		const struct cp_copy_kernel *k = list[i];
		cr_assert(k->name && k->arch && k->copy, "copy kernel %zu incomplete", i);
		cr_assert_str_eq(k->arch, CP_ARCH_NAME, "%s", k->name);
		int nt = (k->flags & CP_NONTEMPORAL) != 0;
		cr_assert(!(seen_nt && !nt), "%s: temporal copy kernel after a non-temporal one",
			  k->name);
		seen_nt |= nt;
		cr_assert_eq(cp_copy_kernel_find(k->name), k, "cp_copy_kernel_find(%s)", k->name);
		for (size_t j = 0; j < i; j++)
			cr_assert_str_neq(list[j]->name, k->name, "duplicate %s", k->name);
	}
	cr_assert_not(list[0]->flags & CP_NONTEMPORAL, "no temporal copy kernel");
	cr_assert_null(cp_copy_kernel_find("no_such_kernel"));
	cr_assert_null(cp_copy_kernel_find(""));
	cr_assert_null(cp_copy_kernel_find(NULL));
	/* a copy kernel found by a name a clear kernel shares is the copy one */
	const struct cp_kernel *const *clears;
	size_t nc = cp_kernels(&clears);
	for (size_t i = 0; i < nc; i++) {
		const struct cp_copy_kernel *c = cp_copy_kernel_find(clears[i]->name);
		cr_assert(!c || (void *)c != (void *)clears[i], "%s", clears[i]->name);
	}
}

/* The arm64 matrix (tests/models/arm64.sh) says what each model must list. */
Test(copy_kernels, expected_list_for_this_cpu_model)
{
	const char *want = getenv("CP_EXPECT_COPY_KERNELS");
	if (!want || !*want)
		cr_skip_test("CP_EXPECT_COPY_KERNELS not set: no CPU model to check against");
	const struct cp_copy_kernel *const *list;
	size_t n = cp_copy_kernels(&list);
	char got[512] = "";
	for (size_t i = 0; i < n; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s", i ? "," : "",
			 list[i]->name);
	cr_assert_str_eq(got, want, "cp_copy_kernels() is %s, expected %s", got, want);
}

/* One test per row of copy_kernels.def: skipped, saying why, when the CPU (or
 * CLEARPAGES_DISABLE) rules it out; otherwise listed, and it copies. */
static size_t copy_table_index[CP__MAX_KERNELS];

ParameterizedTestParameters(copy_kernels, availability)
{
	for (size_t i = 0; i < cp__copy_kernel_table_len; i++)
		copy_table_index[i] = i;
	return cr_make_param_array(size_t, copy_table_index, cp__copy_kernel_table_len);
}

ParameterizedTest(size_t *idx, copy_kernels, availability)
{
	const struct cp__copy_kernel_desc *d = &cp__copy_kernel_table[*idx];
	const struct cp_copy_kernel *k = cp_copy_kernel_find(d->kernel.name);
	char why[256];
	if (!k) {
		every_needs(d->needs, why, sizeof(why));
		cr_skip_test("copy kernel %s not usable here: needs%s, which this CPU lacks "
			     "(or CLEARPAGES_DISABLE masks)", d->kernel.name, why);
	}
	cr_assert_eq(k, &d->kernel);
	cr_assert_eq(!!(k->flags & CP_SIMD), !!(d->needs & CP__F_SIMD), "%s", k->name);
	cr_assert(!copy_once(k, 3, 1, why, sizeof(why)), "%s: %s", k->name, why);
}

/* CLEARPAGES_DISABLE as the library decides it (cp__state_decide) for a CPU
 * with every feature: each token of this arch masked in turn, the copy
 * kernels needing it vanish, the others stay; simd takes every CP_SIMD one;
 * a temporal kernel is always left for cp_copy_pages. */
Test(copy_kernels, disable_masks_copy_kernels)
{
	static struct cp__state st;
	struct cp__cpu cpu;
	memset(&cpu, 0, sizeof(cpu));
	cpu.features = ~0u;
	cpu.l2_bytes = (size_t)1 << 20;
	cpu.llc_bytes = (size_t)32 << 20;
	cpu.dczva_block_bytes = 64;
	for (size_t t = 0; t < cp__feature_tokens_len; t++) {
		const struct cp__feature_token *tok = &cp__feature_tokens[t];
		if (!cp__feature_token_here(tok))
			continue;
		struct cp__decide_in in = { &cpu, tok->feature, 1, 0, 0, NULL };
		cr_assert_eq(cp__state_decide(&in, &st), 0);
		size_t listed = 0;
		for (size_t i = 0; i < cp__copy_kernel_table_len; i++) {
			const struct cp__copy_kernel_desc *d = &cp__copy_kernel_table[i];
			const struct cp_copy_kernel *k = cp__copy_list_find(&st.copy_kernels,
									    d->kernel.name);
			int want = !(d->needs & tok->feature);
			cr_assert_eq(k != NULL, want, "%s masked: copy kernel %s %s", tok->token,
				     d->kernel.name, want ? "missing" : "still listed");
			cr_assert(!k || k == &d->kernel);
			cr_assert(!(k && tok->feature == CP__F_SIMD && (k->flags & CP_SIMD)),
				  "simd masked: %s listed", d->kernel.name);
			listed += k != NULL;
		}
		cr_assert_eq(st.copy_kernels.n, listed, "%s masked", tok->token);
		for (unsigned b = 0; b < CP__MAX_BANDS; b++) {
			const struct cp_copy_kernel *k = st.policy.copy.band[b].kernel;
			cr_assert(k && cp__copy_list_find(&st.copy_kernels, k->name) == k,
				  "%s masked: copy band %u names a kernel not listed", tok->token, b);
		}
	}
}

/* ---- cp_copy_pages --------------------------------------------------------- */

/* The three checked copy calls, one signature. */
typedef int copy_call(void *dst, const void *src, size_t npages);
static int huge_default(void *d, const void *s, size_t n) { return cp_copy_huge(d, s, n, 0); }
static int huge_null_opts(void *d, const void *s, size_t n)
{
	return cp_copy_huge_opts(d, s, n, n ? n - 1 : 0, NULL, NULL);
}
static const struct { const char *name; copy_call *fn; } copy_calls[] = {
	{ "cp_copy_pages", cp_copy_pages },
	{ "cp_copy_huge", huge_default },
	{ "cp_copy_huge_opts(NULL, NULL)", huge_null_opts },
};
#define NCALLS (sizeof(copy_calls) / sizeof(copy_calls[0]))

Test(copy_api, zero_pages_returns_zero_before_checks)
{
	unsigned char *top = (unsigned char *)(UINTPTR_MAX & ~(uintptr_t)(PG - 1));
	for (size_t i = 0; i < NCALLS; i++) {
		copy_call *fn = copy_calls[i].fn;
		const char *who = copy_calls[i].name;
		cr_assert_eq(fn(NULL, NULL, 0), 0, "%s(NULL, NULL, 0)", who);
		cr_assert_eq(fn((void *)1, (void *)3, 0), 0, "%s(misaligned, 0)", who);
		cr_assert_eq(fn(top, top, 0), 0, "%s(same range, 0)", who);
	}
}

/* Every bad input: -EINVAL, the destination all fill, the source intact. */
Test(copy_api, bad_input_writes_nothing)
{
	unsigned char *top = (unsigned char *)(UINTPTR_MAX & ~(uintptr_t)(PG - 1));
	struct copy_pair c;
	char why[256];
	cr_assert_eq(copy_pair_map(&c, 4, 1, 77), 0);
	unsigned char *d = c.d, *s = c.s;
	const struct { const char *what; void *dst; const void *src; size_t n; } bad[] = {
		{ "NULL dst", NULL, s, 1 }, { "NULL src", d, NULL, 1 },
		{ "NULL both", NULL, NULL, 2 },
		{ "dst + 1", d + 1, s, 1 }, { "src + 1", d, s + 1, 1 },
		{ "dst + 64", d + 64, s, 2 }, { "src + 2048", d, s + 2048, 2 },
		{ "dst + 4095", d + 4095, s, 1 },
		{ "npages > SIZE_MAX / 4096", d, s, SIZE_MAX / PG + 1 },
		{ "npages SIZE_MAX", d, s, SIZE_MAX },
		{ "dst past the top", top, s, 2 }, { "src past the top", d, top, 2 },
		{ "dst top - 1 page, 3", top - PG, s, 3 }, { "src top - 1 page, 3", d, top - PG, 3 },
		{ "wraps", d, s, SIZE_MAX / PG },
	};
	for (size_t i = 0; i < NCALLS; i++)
		for (size_t b = 0; b < sizeof(bad) / sizeof(bad[0]); b++)
			cr_assert_eq(copy_calls[i].fn(bad[b].dst, bad[b].src, bad[b].n), -EINVAL,
				     "%s: %s", copy_calls[i].name, bad[b].what);
	cr_assert(!copy_pair_untouched(&c, why, sizeof(why)), "%s", why);
	copy_pair_unmap(&c);
}

/* Overlap in one mapping (3 pages): identical, by one page either way, by all
 * but one page either way: -EINVAL, nothing written. Adjacent ranges either
 * way are no overlap: copied exactly. */
Test(copy_api, overlap_rejected_adjacent_copied)
{
	struct guarded g = guarded_map(9);
	char why[256];
	const size_t n = 3;
	static const struct { size_t dst, src; } overlap[] = {
		{ 2, 2 }, { 3, 2 }, { 2, 3 }, { 4, 2 }, { 2, 4 }, { 0, 2 }, { 6, 4 },
	};
	for (size_t i = 0; i < NCALLS; i++) {
		const char *who = copy_calls[i].name;
		pattern_fill(g.mem, 9, 5);
		for (size_t o = 0; o < sizeof(overlap) / sizeof(overlap[0]); o++)
			cr_assert_eq(copy_calls[i].fn(g.mem + overlap[o].dst * PG,
						      g.mem + overlap[o].src * PG, n), -EINVAL,
				     "%s: dst page %zu, src page %zu, %zu pages", who,
				     overlap[o].dst, overlap[o].src, n);
		cr_assert(!pattern_verify(g.mem, g.len, 0, 0, g.len, 5, why, sizeof(why)),
			  "%s: overlap wrote: %s", who, why);
		for (size_t way = 0; way < 2; way++) {
			size_t a = way ? 5 : 2, b = way ? 2 : 5;     /* source a, destination b */
			memset(g.mem, FILL, g.len);
			pattern_fill(g.mem + a * PG, n, 9);
			cr_assert_eq(copy_calls[i].fn(g.mem + b * PG, g.mem + a * PG, n), 0,
				     "%s: adjacent, source %s", who, way ? "after" : "before");
			cr_assert(!pattern_verify(g.mem, g.len, a * PG, b * PG, n * PG, 9, why,
						  sizeof(why)), "%s: adjacent: %s", who, why);
		}
	}
	guard_unmap(&g);
}

Test(copy_api, copies_exactly)
{
	char why[256];
	for (size_t i = 0; i < NCALLS; i++)
		for (size_t n = 1; n <= 37; n += 4) {
			struct copy_pair c;
			cr_assert_eq(copy_pair_map(&c, n, n % 2, 1000 + n), 0);
			cr_assert_eq(copy_calls[i].fn(c.d, c.s, n), 0, "%s(%zu)", copy_calls[i].name, n);
			cr_assert(!copy_pair_verify(&c, why, sizeof(why)), "%s: %s",
				  copy_calls[i].name, why);
			copy_pair_unmap(&c);
		}
}

/* Recording copy kernels, one per band: each notes that it ran and how many
 * pages, then copies. */
#define NREC 5
static int rec_ran = -1;
static size_t rec_pages;
#define REC(i) \
	static void rec_copy_##i(void *dst, const void *src, size_t npages) \
	{ rec_ran = i; rec_pages = npages; memcpy(dst, src, npages * PG); }
REC(0) REC(1) REC(2) REC(3) REC(4)
static const struct cp_copy_kernel rec_kernels[NREC] = {
	{ "rec0", "test", 0, rec_copy_0 }, { "rec1", "test", 0, rec_copy_1 },
	{ "rec2", "test", CP_NONTEMPORAL, rec_copy_2 }, { "rec3", "test", 0, rec_copy_3 },
	{ "rec4", "test", CP_NONTEMPORAL, rec_copy_4 },
};

/* cp_copy_kernel_for(n) is the kernel cp_copy_pages(n) runs, and the one
 * the copy walks run on a range of n pages; 0 acts as 1. Seen by running
 * them: a published policy whose copy bands are recording kernels, bands
 * from 0, 2, 5, 16 and 33 pages, every extent from 0 to 40 pages copied. */
Test(copy_api, kernel_for_extent)
{
	static const size_t from[NREC] = { 0, 2, 5, 16, 33 };
	struct cp__policy p = cp__state()->policy;
	for (unsigned i = 0; i < CP__MAX_BANDS; i++)
		p.copy.band[i] = (struct cp__copy_band){ i < NREC ? from[i] : CP__BAND_UNUSED,
							 &rec_kernels[i < NREC ? i : NREC - 1] };
	p.copy_uncached = p.copy;      /* the bands alone: no copy estimated */
	cr_assert_eq(cp__policy_publish(&p, "test"), 0);
	cr_assert_eq(cp__state()->policy.copy_estimate_from_pages, CP__BAND_UNUSED);
	char why[256];
	for (size_t n = 0; n <= 40; n++) {
		struct copy_pair c;
		cr_assert_eq(copy_pair_map(&c, n ? n : 1, n % 2, 4000 + n), 0);
		rec_ran = -1;
		cr_assert_eq(cp_copy_pages(c.d, c.s, n), 0, "%zu pages", n);
		const struct cp_copy_kernel *named = cp_copy_kernel_for(n);
		if (n == 0) {   /* nothing runs; the kernel named is 1's (checked below) */
			cr_assert_eq(rec_ran, -1, "0 pages ran rec%d", rec_ran);
			copy_pair_unmap(&c);
			continue;
		}
		cr_assert_geq(rec_ran, 0, "%zu pages: no recorder ran", n);
		cr_assert_eq(rec_pages, n);
		cr_assert_eq(named, &rec_kernels[rec_ran], "%zu pages: cp_copy_kernel_for says %s, "
			     "cp_copy_pages ran %s", n, named->name, rec_kernels[rec_ran].name);
		cr_assert(!copy_pair_verify(&c, why, sizeof(why)), "%zu pages: %s", n, why);
		/* the walk: one range of n pages in one call */
		struct cp_huge_opts o = { CP_ORDER_SEQUENTIAL, 0, 0, NULL, NULL, NULL };
		rec_ran = -1;
		cr_assert_eq(cp_copy_huge_opts(c.d, c.s, n, 0, &o, NULL), 0);
		cr_assert(rec_ran >= 0 && named == &rec_kernels[rec_ran] && rec_pages == n,
			  "%zu pages: the walk ran rec%d on %zu pages, cp_copy_kernel_for says %s", n,
			  rec_ran, rec_pages, named->name);
		copy_pair_unmap(&c);
	}
	cr_assert_eq(cp_copy_kernel_for(0), cp_copy_kernel_for(1), "0 does not act as 1: %s, 1 %s",
		     cp_copy_kernel_for(0)->name, cp_copy_kernel_for(1)->name);
	/* each band was reached: the recorders did not all stand in for one */
	for (size_t i = 0; i < NREC; i++)
		cr_expect_eq(cp_copy_kernel_for(from[i] ? from[i] : 1), &rec_kernels[i], "band %zu", i);
	cr_expect_eq(cp_copy_kernel_for(SIZE_MAX / PG), &rec_kernels[NREC - 1]);
	cr_assert_eq(cp__policy_publish(&cp__state()->defaults, cp__state()->default_source), 0);
	/* the policy in force: every extent's kernel is a listed copy kernel */
	for (size_t n = 1; n && n <= SIZE_MAX / PG; n *= 2)
		cr_assert_eq(cp_copy_kernel_find(cp_copy_kernel_for(n)->name), cp_copy_kernel_for(n),
			     "%zu pages: %s is not listed", n, cp_copy_kernel_for(n)->name);
}
