/* SPDX-License-Identifier: MIT */
/*
 * Kernel-level tests. Each property runs for every kernel of cp_kernels()
 * (every usable kernel here) and records each kernel's result, a fault
 * included, before failing: a broken kernel never hides the ones after it,
 * and the failure names every kernel that failed. Kernels this CPU cannot
 * run show up as skipped in the `availability` tests, with the reason.
 */
#include "every_kernel.h"
#include "testhooks.h"

/* One property of one kernel over guarded memory g: 0, or -1 with why[]. */
typedef int kernel_property(const struct cp_kernel *k, struct guarded *g,
			    char *why, size_t whylen);

/* Every usable clear kernel through check_every (every_kernel.h), over one
 * guarded mapping of `pages` pages shared by the runs. */
struct clear_every { const struct cp_kernel *const *list; kernel_property *prop; struct guarded g; };

static const char *clear_name(const void *ctx, size_t i)
{
	return ((const struct clear_every *)ctx)->list[i]->name;
}

static int clear_run(const void *ctx, size_t i, char *why, size_t whylen)
{
	const struct clear_every *c = ctx;
	struct guarded g = c->g;
	return c->prop(c->list[i], &g, why, whylen);
}

static void check_every_kernel(const char *property, kernel_property *prop, size_t pages)
{
	struct clear_every c = { .prop = prop, .g = guarded_map(pages) };
	size_t n = cp_kernels(&c.list);
	check_every(property, n, clear_name, clear_run, &c);
	guard_unmap(&c.g);
}

/* Each property: fill, clear, verify every byte of the mapping. */
static int one_page(const struct cp_kernel *k, struct guarded *g, char *why, size_t whylen)
{
	memset(g->mem, FILL, g->len);
	k->clear(g->mem, 1);
	return guard_verify(g->mem, g->len, 0, g->len, why, whylen);
}

Test(kernels, one_page_between_guards)
{
	check_every_kernel("one page between guards", one_page, 1);
}

/* npages == 0 does nothing: no store, no fault. The store loops once tested
 * their end only after a first pass, so they ran on to the guard. */
static int no_pages(const struct cp_kernel *k, struct guarded *g, char *why, size_t whylen)
{
	memset(g->mem, FILL, g->len);
	k->clear(g->mem + CP_PAGE_SIZE, 0);
	return guard_verify(g->mem, g->len, CP_PAGE_SIZE, 0, why, whylen);
}

Test(kernels, zero_pages_write_nothing)
{
	check_every_kernel("npages == 0", no_pages, 3);
}

/* Random extents of 1-600 pages at random page positions inside a fill. */
enum { EXTENT_MAX_PAGES = 600, EXTENT_SLACK = 64 };

static int random_extents(const struct cp_kernel *k, struct guarded *g, char *why, size_t whylen)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	int rounds = test_quick() ? 6 : 40;
	for (int r = 0; r < rounds; r++) {
		size_t n = 1 + next_random(&seed) % EXTENT_MAX_PAGES;
		size_t pos = next_random(&seed) % (EXTENT_MAX_PAGES + EXTENT_SLACK - n + 1);
		if (r == 0) {   /* flush with the end guard */
			n = EXTENT_MAX_PAGES;
			pos = EXTENT_SLACK;
		}
		memset(g->mem, FILL, g->len);
		k->clear(g->mem + pos * CP_PAGE_SIZE, n);
		char broke[200];
		if (guard_verify(g->mem, g->len, pos * CP_PAGE_SIZE, n * CP_PAGE_SIZE,
				 broke, sizeof(broke))) {
			snprintf(why, whylen, "%zu pages at page %zu: %s", n, pos, broke);
			return -1;
		}
	}
	return 0;
}

Test(kernels, random_extents_every_byte)
{
	check_every_kernel("random extents", random_extents, EXTENT_MAX_PAGES + EXTENT_SLACK);
}

/* A kernel must leave memory it did not clear alone even when called twice
 * back to back on adjacent extents (no trailing over-store). */
static int adjacent(const struct cp_kernel *k, struct guarded *g, char *why, size_t whylen)
{
	memset(g->mem, FILL, g->len);
	k->clear(g->mem + CP_PAGE_SIZE, 3);
	k->clear(g->mem + 4 * CP_PAGE_SIZE, 2);
	return guard_verify(g->mem, g->len, CP_PAGE_SIZE, 5 * CP_PAGE_SIZE, why, whylen);
}

Test(kernels, adjacent_extents)
{
	check_every_kernel("adjacent extents", adjacent, 9);
}

Test(kernels, list_order_and_lookup)
{
	const struct cp_kernel *const *list;
	size_t n = cp_kernels(&list);
	cr_assert_eq(cp_kernels(NULL), n);
	int seen_nt = 0;
	for (size_t i = 0; i < n; i++) {
		const struct cp_kernel *k = list[i];
		cr_assert(k->name && k->arch && k->clear, "kernel %zu incomplete", i);
#if defined(__x86_64__)
		cr_assert_str_eq(k->arch, "x86_64", "%s", k->name);
#else
		cr_assert_str_eq(k->arch, "arm64", "%s", k->name);
#endif
		int nt = (k->flags & CP_NONTEMPORAL) != 0;
		cr_assert(!(seen_nt && !nt), "%s: temporal kernel after a non-temporal one", k->name);
		seen_nt |= nt;
		cr_assert_eq(cp_kernel_find(k->name), k, "cp_kernel_find(%s)", k->name);
		for (size_t j = 0; j < i; j++)
			cr_assert_str_neq(list[j]->name, k->name, "duplicate %s", k->name);
	}
	cr_assert(seen_nt, "no non-temporal kernel");
	cr_assert_null(cp_kernel_find("no_such_kernel"));
	cr_assert_null(cp_kernel_find(""));
	cr_assert_null(cp_kernel_find(NULL));
}

/* The runners of the CPU-model matrices say what each model must list. */
Test(kernels, expected_list_for_this_cpu_model)
{
	const char *want = getenv("CP_EXPECT_KERNELS");
	if (!want || !*want)
		cr_skip_test("CP_EXPECT_KERNELS not set: no CPU model to check against");
	const struct cp_kernel *const *list;
	size_t n = cp_kernels(&list);
	char got[512] = "";
	for (size_t i = 0; i < n; i++) {
		if (i)
			strcat(got, ",");
		strcat(got, list[i]->name);
	}
	cr_assert_str_eq(got, want, "cp_kernels() is %s, expected %s", got, want);
}

/* One test per kernel of this arch's table: skipped, saying why, when the CPU
 * (or CLEARPAGES_DISABLE) rules it out; otherwise it must be listed and work. */
static size_t table_index[32];

ParameterizedTestParameters(kernels, availability)
{
	for (size_t i = 0; i < cp__kernel_table_len; i++)
		table_index[i] = i;
	return cr_make_param_array(size_t, table_index, cp__kernel_table_len);
}

ParameterizedTest(size_t *idx, kernels, availability)
{
	const struct cp__kernel_desc *d = &cp__kernel_table[*idx];
	const struct cp_kernel *k = cp_kernel_find(d->kernel.name);
	if (!k) {
		char missing[64];
		every_needs(d->needs, missing, sizeof(missing));
		cr_skip_test("kernel %s not usable here: needs%s, which this CPU lacks "
			     "(or CLEARPAGES_DISABLE masks)", d->kernel.name, missing);
	}
	cr_assert_eq(k, &d->kernel);
	struct guarded g = guarded_map(3);
	memset(g.mem, FILL, g.len);
	k->clear(g.mem + CP_PAGE_SIZE, 2);
	assert_cleared(k->name, g.mem, g.len, CP_PAGE_SIZE, 2 * CP_PAGE_SIZE);
	guard_unmap(&g);
}
