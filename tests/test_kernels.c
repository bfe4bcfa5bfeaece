/* SPDX-License-Identifier: MIT */
/*
 * Kernel-level tests. Each property runs for every kernel of cp_kernels()
 * (every usable kernel here) and records each kernel's result, a fault
 * included, before failing: a broken kernel never hides the ones after it,
 * and the failure names every kernel that failed. Kernels this CPU cannot
 * run show up as skipped in the `availability` tests, with the reason.
 */
#include "testutil.h"
#include "testhooks.h"
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>

/* One property of one kernel over guarded memory g: 0, or -1 with why[]. */
typedef int kernel_property(const struct cp_kernel *k, struct guarded *g,
			    char *why, size_t whylen);

/* A kernel that faults (a store past the guard, an instruction the CPU
 * lacks) fails its property; the loop goes on with the next kernel. */
static sigjmp_buf fault_return;
static volatile sig_atomic_t fault_signal;

static void on_fault(int sig)
{
	fault_signal = sig;
	siglongjmp(fault_return, 1);
}

static void check_every_kernel(const char *property, kernel_property *prop, size_t pages)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGILL };
	struct sigaction sa, old[3];
	const struct cp_kernel *const *list;
	size_t n = cp_kernels(&list), nfailed = 0;
	char results[4096] = "", failed[512] = "";
	struct guarded g = guarded_map(pages);

	cr_assert(n > 0, "no usable kernel");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fault;
	sa.sa_flags = SA_NODEFER;
	for (size_t s = 0; s < 3; s++)
		sigaction(sigs[s], &sa, &old[s]);
	for (size_t i = 0; i < n; i++) {
		const struct cp_kernel *volatile k = list[i];
		char why[256] = "";
		int rc;
		fault_signal = 0;
		if (sigsetjmp(fault_return, 1) == 0)
			rc = prop(k, &g, why, sizeof(why));
		else
			rc = -1, snprintf(why, sizeof(why), "killed by %s", strsignal(fault_signal));
		if (rc) {
			nfailed++;
			snprintf(failed + strlen(failed), sizeof(failed) - strlen(failed), "%s%s",
				 nfailed > 1 ? ", " : "", k->name);
		}
		snprintf(results + strlen(results), sizeof(results) - strlen(results),
			 "\n    %-10s %s%s%s", k->name, rc ? "FAIL" : "PASS", rc ? ": " : "", why);
	}
	for (size_t s = 0; s < 3; s++)
		sigaction(sigs[s], &old[s], NULL);
	guard_unmap(&g);
	cr_assert(nfailed == 0, "%s: %zu of %zu kernels failed (%s):%s",
		  property, nfailed, n, failed, results);
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
