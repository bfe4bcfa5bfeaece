/*
 * Kernel-level tests: each one loops over cp_kernels() (every usable kernel
 * here) and names the kernel that failed. Kernels this CPU cannot run show up
 * as skipped in the `availability` tests, with the reason.
 */
#include "testutil.h"
#include "testhooks.h"
#include <stdio.h>

#define FOR_EACH_KERNEL(k) \
	const struct cp_kernel *const *list_; \
	size_t n_ = cp_kernels(&list_); \
	cr_assert(n_ > 0, "no usable kernel"); \
	for (size_t i_ = 0; i_ < n_ && ((k) = list_[i_]); i_++)

Test(kernels, one_page_between_guards)
{
	const struct cp_kernel *k;
	struct guarded g = guarded_map(1);
	FOR_EACH_KERNEL(k) {
		memset(g.mem, FILL, g.len);
		k->clear(g.mem, 1);
		assert_cleared(k->name, g.mem, g.len, 0, g.len);
	}
	guard_unmap(&g);
}

/* Random extents of 1-600 pages at random page positions inside a fill. */
Test(kernels, random_extents_every_byte)
{
	const struct cp_kernel *k;
	const size_t max_pages = 600, slack = 64;
	struct guarded g = guarded_map(max_pages + slack);
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	int rounds = test_quick() ? 6 : 40;
	FOR_EACH_KERNEL(k) {
		for (int r = 0; r < rounds; r++) {
			size_t n = 1 + next_random(&seed) % max_pages;
			size_t pos = next_random(&seed) % (max_pages + slack - n + 1);
			if (r == 0) { n = max_pages; pos = slack; }   /* flush with the end guard */
			memset(g.mem, FILL, g.len);
			k->clear(g.mem + pos * CP_PAGE_SIZE, n);
			char who[96];
			snprintf(who, sizeof(who), "%s (%zu pages at page %zu)", k->name, n, pos);
			assert_cleared(who, g.mem, g.len, pos * CP_PAGE_SIZE, n * CP_PAGE_SIZE);
		}
	}
	guard_unmap(&g);
}

/* A kernel must leave memory it did not clear alone even when called twice
 * back to back on adjacent extents (no trailing over-store). */
Test(kernels, adjacent_extents)
{
	const struct cp_kernel *k;
	struct guarded g = guarded_map(9);
	FOR_EACH_KERNEL(k) {
		memset(g.mem, FILL, g.len);
		k->clear(g.mem + CP_PAGE_SIZE, 3);
		k->clear(g.mem + 4 * CP_PAGE_SIZE, 2);
		assert_cleared(k->name, g.mem, g.len, CP_PAGE_SIZE, 5 * CP_PAGE_SIZE);
	}
	guard_unmap(&g);
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
		char missing[64] = "";
		for (size_t i = 0; i < cp__feature_tokens_len; i++)
			if (d->needs & cp__feature_tokens[i].feature) {
				strcat(missing, " ");
				strcat(missing, cp__feature_tokens[i].token);
			}
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
