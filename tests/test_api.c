/* SPDX-License-Identifier: MIT */
/* The checked entry points: every bad input of the contract (nothing written),
 * cp_clear at every alignment, the extent policy's answers. */
#include "testutil.h"
#include "testhooks.h"
#include <errno.h>
#include <stdio.h>

typedef int (*page_call)(void *, size_t);
static const struct { const char *name; page_call fn; } page_calls[] = {
	{ "cp_clear_pages", cp_clear_pages },
	{ "cp_clear_pages_hot", cp_clear_pages_hot },
	{ "cp_clear_pages_cold", cp_clear_pages_cold },
};
#define NCALLS (sizeof(page_calls) / sizeof(page_calls[0]))

Test(api, version)
{
	char want[32];
	snprintf(want, sizeof(want), "%d.%d.%d", CP_VERSION_MAJOR, CP_VERSION_MINOR,
		 CP_VERSION_PATCH);
	cr_assert_str_eq(cp_version(), want);
}

Test(api, zero_pages_returns_zero_before_checks)
{
	for (size_t i = 0; i < NCALLS; i++) {
		cr_assert_eq(page_calls[i].fn(NULL, 0), 0, "%s", page_calls[i].name);
		cr_assert_eq(page_calls[i].fn((void *)1, 0), 0, "%s", page_calls[i].name);
	}
	cr_assert_eq(cp_clear(NULL, 0), 0);
	cr_assert_eq(cp_clear((void *)UINTPTR_MAX, 0), 0);
}

Test(api, bad_page_input_writes_nothing)
{
	struct guarded g = guarded_map(4);
	unsigned char *top = (unsigned char *)(UINTPTR_MAX & ~(uintptr_t)(CP_PAGE_SIZE - 1));
	for (size_t i = 0; i < NCALLS; i++) {
		const char *who = page_calls[i].name;
		page_call fn = page_calls[i].fn;
		memset(g.mem, FILL, g.len);
		cr_assert_eq(fn(NULL, 1), -EINVAL, "%s(NULL)", who);
		cr_assert_eq(fn(g.mem + 1, 1), -EINVAL, "%s(misaligned +1)", who);
		cr_assert_eq(fn(g.mem + 64, 2), -EINVAL, "%s(misaligned +64)", who);
		cr_assert_eq(fn(g.mem + 2048, 1), -EINVAL, "%s(misaligned +2048)", who);
		cr_assert_eq(fn(g.mem, SIZE_MAX / CP_PAGE_SIZE + 1), -EINVAL, "%s(overflow)", who);
		cr_assert_eq(fn(g.mem, SIZE_MAX), -EINVAL, "%s(SIZE_MAX)", who);
		/* past the top of the address space */
		cr_assert_eq(fn(top, 2), -EINVAL, "%s(top, 2)", who);
		cr_assert_eq(fn(top - CP_PAGE_SIZE, 3), -EINVAL, "%s(top - 1 page, 3)", who);
		cr_assert_eq(fn(g.mem, SIZE_MAX / CP_PAGE_SIZE), -EINVAL, "%s(wraps)", who);
		assert_cleared(who, g.mem, g.len, 0, 0);
	}
	guard_unmap(&g);
}

Test(api, bad_byte_input_writes_nothing)
{
	struct guarded g = guarded_map(2);
	memset(g.mem, FILL, g.len);
	cr_assert_eq(cp_clear(NULL, 1), -EINVAL);
	cr_assert_eq(cp_clear(NULL, 8192), -EINVAL);
	cr_assert_eq(cp_clear(g.mem, SIZE_MAX), -EINVAL);
	cr_assert_eq(cp_clear(g.mem + 5, (size_t)0 - (uintptr_t)(g.mem + 5) + 1), -EINVAL);
	cr_assert_eq(cp_clear((void *)(UINTPTR_MAX - 10), 12), -EINVAL);
	assert_cleared("cp_clear", g.mem, g.len, 0, 0);
	guard_unmap(&g);
}

Test(api, page_calls_clear_exactly)
{
	struct guarded g = guarded_map(40);
	for (size_t i = 0; i < NCALLS; i++)
		for (size_t n = 1; n <= 33; n += 4) {
			memset(g.mem, FILL, g.len);
			cr_assert_eq(page_calls[i].fn(g.mem + 3 * CP_PAGE_SIZE, n), 0);
			char who[64];
			snprintf(who, sizeof(who), "%s(%zu pages)", page_calls[i].name, n);
			assert_cleared(who, g.mem, g.len, 3 * CP_PAGE_SIZE, n * CP_PAGE_SIZE);
		}
	guard_unmap(&g);
}

/* Every start alignment 0-63 with every length 0-10000 (quick mode: a stride),
 * checking 64 bytes before and a page after the range besides the range. */
Test(api, clear_every_alignment_and_length)
{
	const size_t max_len = 10000, window = CP_PAGE_SIZE + 64;
	size_t pages = (64 + 64 + max_len + window) / CP_PAGE_SIZE + 1;
	struct guarded g = guarded_map(pages);
	memset(g.mem, FILL, g.len);
	size_t stride = test_quick() ? 37 : 1;
	for (size_t align = 0; align < 64; align++) {
		size_t off = 64 + align;       /* 64 bytes of fill before every range */
		for (size_t len = 0; len <= max_len; len += (len < 300 ? 1 : stride)) {
			unsigned char *p = g.mem + off;
			cr_assert_eq(cp_clear(p, len), 0);
			size_t bad = first_not(g.mem + align, 64, FILL);
			cr_assert(bad == 64, "cp_clear(align %zu, len %zu) wrote before", align, len);
			bad = first_not(p, len, 0);
			cr_assert(bad == len, "cp_clear(align %zu, len %zu): byte %zu not zero",
				  align, len, bad);
			bad = first_not(p + len, window, FILL);
			cr_assert(bad == window, "cp_clear(align %zu, len %zu) wrote byte %zu after",
				  align, len, bad);
			memset(p, FILL, len);
		}
	}
	guard_unmap(&g);
}

/* Random large ranges, including ones running flush into the end guard. */
Test(api, clear_random_large)
{
	const size_t pages = test_quick() ? 600 : 2100;   /* > 8 MiB natively */
	struct guarded g = guarded_map(pages);
	uint64_t seed = 12345;
	for (int r = 0; r < (test_quick() ? 4 : 12); r++) {
		size_t len = next_random(&seed) % g.len + 1;
		size_t off = next_random(&seed) % (g.len - len + 1);
		if (r == 0) { off = 1; len = g.len - 1; }     /* ends at the guard */
		memset(g.mem, FILL, g.len);
		cr_assert_eq(cp_clear(g.mem + off, len), 0);
		assert_cleared("cp_clear", g.mem, g.len, off, len);
	}
	guard_unmap(&g);
}

Test(api, extent_policy)
{
	const struct cp__state *s = cp__state();
	const struct cp_kernel *small = cp_kernel_for(1);
	cr_assert_eq(cp_kernel_for(0), small, "0 acts as 1");
	cr_assert_not(small->flags & CP_NONTEMPORAL, "one page must be temporal, got %s",
		      small->name);
	const struct cp_kernel *big = cp_kernel_for(SIZE_MAX);
	cr_assert(big->flags & CP_NONTEMPORAL, "a huge extent must be non-temporal, got %s",
		  big->name);
	size_t x = cp__policy_nt_from(&s->policy);
	cr_assert(x > 1, "crossover %zu pages", x);
	cr_assert_not(cp_kernel_for(x - 1)->flags & CP_NONTEMPORAL);
	cr_assert(cp_kernel_for(x)->flags & CP_NONTEMPORAL);
	cr_assert_not(cp__pick_hot(SIZE_MAX)->flags & CP_NONTEMPORAL, "hot stays temporal");
	cr_assert(cp__pick_cold(1)->flags & CP_NONTEMPORAL, "cold is non-temporal");
}
