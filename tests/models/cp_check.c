/* SPDX-License-Identifier: MIT */
/*
 * cp_check: the kernel-level, checked-API and huge-order checks as one plain
 * program, so that it runs whole under `qemu-x86_64 -cpu M` (Criterion would
 * re-exec its workers natively and escape the emulator). Every clear happens
 * between guard pages and every byte of the region is verified; a fault or an
 * illegal instruction is reported as a failure of the check that ran.
 *
 *   cp_check [--expect k1,k2,...] [--expect-copy k1,k2,...] [--features t1,t2,...]
 *            [--uarch NAME] [--signature FAMILY/MODEL/STEPPING] [--quick]
 *
 * --expect: cp_kernels() names, in order, that this CPU (model) must list;
 * --expect-copy: the same for cp_copy_kernels() (copies: copy_checks.h).
 * --features: the CLEARPAGES_DISABLE tokens of this arch that detection must
 * find, no more, no fewer ("" for none; ?token: either way); --uarch: the microarchitecture name
 * it must give ("" for unknown); --signature: display family/model/stepping.
 * Last line: "N passed, N failed[, N skipped]"; exit status 1 on a failure.
 */
#include "plain.h"
#include "cpu_identity.h"
#include "../nosimd.h"
#include <stdlib.h>

#define PG ((size_t)CP_PAGE_SIZE)

static int quick;
static char why[256];

/* A list (comma-separated names) against the one the runner expects (NULL:
 * none given, skipped). */
static void check_expected(const char *what, const char *got, const char *expect)
{
	if (!expect) {
		check_skip(what, "not given");
	} else if (strcmp(got, expect)) {
		snprintf(why, sizeof(why), "got %s, expected %s", got, expect);
		check_fail(what, why);
	} else {
		check_pass(what);
	}
}

static void check_kernel_list(const char *expect)
{
	const struct cp_kernel *const *list;
	size_t n = cp_kernels(&list);
	char got[512] = "";
	const char *order_bad = NULL;
	int seen_nt = 0;

	current_check = "kernel list";
	for (size_t i = 0; i < n; i++) {
		int nt = (list[i]->flags & CP_NONTEMPORAL) != 0;
		if (seen_nt && !nt)
			order_bad = "a temporal kernel after a non-temporal one";
		if (cp_kernel_find(list[i]->name) != list[i])
			order_bad = "cp_kernel_find() disagrees with cp_kernels()";
		seen_nt |= nt;
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s",
			 i ? "," : "", list[i]->name);
	}
	printf("kernels: %s\n", got);
	if (!n || !seen_nt)
		check_fail("kernel list well-formed", "no temporal or no non-temporal kernel");
	else if (order_bad)
		check_fail("kernel list well-formed", order_bad);
	else
		check_pass("kernel list well-formed");
	check_expected("kernel list of this CPU model", got, expect);
}

/* CLEARPAGES_DISABLE=simd (the matrix's nosimd rows): no vector kernel
 * listed, found or picked (tests/nosimd.h). */
static void check_no_simd(void)
{
	current_check = "CLEARPAGES_DISABLE=simd";
	if (!nosimd_requested())
		check_skip("no vector kernel when simd is disabled", "simd not disabled here");
	else if (nosimd_check(why, sizeof(why)))
		check_fail("no vector kernel when simd is disabled", why);
	else
		check_pass("no vector kernel when simd is disabled");
}

/* Run op on r; when it fails (a fault included), fail the check `what` saying what was called
 * and what broke, and return -1. */
static int clear_or_fail(struct guarded *r, const struct clear_op *op, const char *what)
{
	char line[512];
	int sig = sigsetjmp(fault_return, 1);
	if (sig == 0) {
		/* a fault in the op fails this check only: the next one still runs */
		fault_armed = 1;
		int rc = check_clear_op(r, op, why, sizeof(why));
		fault_armed = 0;
		if (rc == 0)
			return 0;
	} else {
		snprintf(why, sizeof(why), "%s", signal_name(sig));
	}
	describe_op(op, line, sizeof(line));
	snprintf(line + strlen(line), sizeof(line) - strlen(line), ": %s", why);
	check_fail(what, line);
	return -1;
}

/* The end of a check over region r: unmap it, and pass unless it failed. */
static void unmap_and_pass(struct guarded *r, int failed, const char *what)
{
	guard_unmap(r);
	if (!failed)
		check_pass(what);
}

/* Random extents at random page positions, one of them flush with the end guard. */
static void check_kernel_extents(const struct cp_kernel *k)
{
	const size_t max_pages = quick ? 160 : 600, slack = 24;
	int rounds = quick ? 10 : 40;
	uint64_t seed = 0x5eed0000u + strlen(k->name);
	struct clear_op op = { .kind = OP_KERNEL, .kernel = k };
	char what[96];
	struct guarded r;

	snprintf(what, sizeof(what), "kernel %s: random extents between guards", k->name);
	current_check = what;
	if (region_map(&r, max_pages + slack)) {
		check_fail(what, strerror(errno));
		return;
	}
	int failed = 0;
	for (int round = 0; round < rounds && !failed; round++) {
		size_t n = 1 + random_below(&seed, max_pages);
		size_t pos = random_below(&seed, max_pages + slack - n + 1);
		if (round == 0) {
			n = max_pages;
			pos = slack;
		}
		op.start = pos * PG;
		op.len = n * PG;
		failed = clear_or_fail(&r, &op, what);
	}
	unmap_and_pass(&r, failed, what);
}

/* npages == 0 between guards: nothing written, no fault. */
static void check_kernel_no_pages(const struct cp_kernel *k)
{
	struct clear_op op = { .kind = OP_KERNEL, .kernel = k, .start = PG, .len = 0 };
	char what[96];
	struct guarded r;

	snprintf(what, sizeof(what), "kernel %s: npages == 0 writes nothing", k->name);
	current_check = what;
	if (region_map(&r, 3)) {
		check_fail(what, strerror(errno));
		return;
	}
	unmap_and_pass(&r, clear_or_fail(&r, &op, what), what);
}

static int huge_default(void *addr, size_t npages)
{
	return cp_clear_huge(addr, npages, 0);
}

static const struct {
	const char *name;
	int (*fn)(void *, size_t);
} page_calls[] = {
	{ "cp_clear_pages", cp_clear_pages },
	{ "cp_clear_pages_hot", cp_clear_pages_hot },
	{ "cp_clear_pages_cold", cp_clear_pages_cold },
	{ "cp_clear_huge", huge_default },
};
#define NPAGE_CALLS (sizeof(page_calls) / sizeof(page_calls[0]))

/* Every bad input of the contract: -EINVAL and not one byte written. */
static void check_bad_inputs(void)
{
	unsigned char *top = (unsigned char *)(UINTPTR_MAX & ~(uintptr_t)(PG - 1));
	struct guarded r;

	current_check = "bad input";
	if (region_map(&r, 4)) {
		check_fail("bad input", strerror(errno));
		return;
	}
	for (size_t i = 0; i < NPAGE_CALLS; i++) {
		int (*fn)(void *, size_t) = page_calls[i].fn;
		const char *bad = NULL;
		current_check = page_calls[i].name;
		if (fn(NULL, 0) || fn(r.mem + 1, 0))
			bad = "npages 0 must return 0 before any check";
		else if (fn(NULL, 1) != -EINVAL)
			bad = "NULL";
		else if (fn(r.mem + 1, 1) != -EINVAL || fn(r.mem + 64, 2) != -EINVAL ||
			 fn(r.mem + 2048, 1) != -EINVAL)
			bad = "misaligned address";
		else if (fn(r.mem, SIZE_MAX / PG + 1) != -EINVAL || fn(r.mem, SIZE_MAX) != -EINVAL)
			bad = "npages * 4096 overflows";
		else if (fn(top, 2) != -EINVAL || fn(top - PG, 3) != -EINVAL ||
			 fn(r.mem, SIZE_MAX / PG) != -EINVAL)
			bad = "range past the top of the address space";
		char what[64];
		snprintf(what, sizeof(what), "%s: bad input gives -EINVAL", page_calls[i].name);
		if (bad)
			check_fail(what, bad);
		else if (region_verify(&r, 0, 0, why, sizeof(why)))
			check_fail(what, why);
		else
			check_pass(what);
	}

	current_check = "cp_clear: bad input";
	static const struct cp_kernel no_clear = { "no_clear", "test", 0, NULL };
	struct cp_huge_opts bad_order = CP_HUGE_OPTS_INIT, bad_kernel = CP_HUGE_OPTS_INIT;
	bad_order.order = (enum cp_order)(CP_ORDER_HOT_RANGE_LAST + 1);
	bad_kernel.kernel = &no_clear;
	if (cp_clear(NULL, 1) != -EINVAL || cp_clear(NULL, 8192) != -EINVAL ||
	    cp_clear(r.mem, SIZE_MAX) != -EINVAL ||
	    cp_clear((void *)(UINTPTR_MAX - 10), 12) != -EINVAL)
		check_fail("cp_clear: bad input gives -EINVAL", "accepted");
	else if (cp_clear_huge(r.mem, 4, 4) != -EINVAL ||
		 cp_clear_huge_opts(r.mem, 4, 0, &bad_order) != -EINVAL ||
		 cp_clear_huge_opts(r.mem, 4, 0, &bad_kernel) != -EINVAL)
		check_fail("cp_clear_huge_opts: bad hot/order/kernel gives -EINVAL", "accepted");
	else if (region_verify(&r, 0, 0, why, sizeof(why)))
		check_fail("cp_clear / cp_clear_huge_opts: bad input writes nothing", why);
	else
		check_pass("cp_clear / cp_clear_huge_opts: bad input gives -EINVAL, writes nothing");
	guard_unmap(&r);
}

/* Each page entry point (huge with its defaults) clears exactly its pages. */
static void check_page_calls(void)
{
	struct guarded r;
	if (region_map(&r, 40)) {
		check_fail("page calls", strerror(errno));
		return;
	}
	for (int kind = OP_PAGES; kind <= OP_HUGE; kind++) {
		struct clear_op op = { .kind = (enum clear_kind)kind, .radius = 2 };
		char what[64];
		int failed = 0;
		snprintf(what, sizeof(what), "%s: clears exactly its pages", clear_kind_name[kind]);
		current_check = what;
		for (size_t n = 1; n <= 37 && !failed; n += 4) {
			op.start = n % 3 * PG;   /* flush with the leading guard sometimes */
			op.len = n * PG;
			op.hot = n / 2;
			failed = clear_or_fail(&r, &op, what);
		}
		if (!failed)
			check_pass(what);
	}
	guard_unmap(&r);
}

/* Start alignments 0-63 with lengths 0-10000, each checked in a window: 64 bytes
 * before and a page after the range (a view of the region). */
static void check_clear_alignments(void)
{
	const size_t max_len = 10000, before = 64, after = PG + 64;
	size_t stride = quick ? 97 : 13;
	struct guarded r;

	current_check = "cp_clear at every alignment";
	if (region_map(&r, (2 * before + max_len + after) / PG + 1)) {
		check_fail(current_check, strerror(errno));
		return;
	}
	int failed = 0;
	for (size_t align = 0; align < 64 && !failed; align++)
		for (size_t len = 0; len <= max_len && !failed; len += len < 300 ? 1 : stride) {
			struct guarded view = r;
			struct clear_op op = { .kind = OP_CLEAR, .start = before, .len = len };
			view.mem = r.mem + align;
			view.len = before + len + after;
			char what[64];
			snprintf(what, sizeof(what), "cp_clear at address %% 64 = %zu", align);
			failed = clear_or_fail(&view, &op, what);
		}
	unmap_and_pass(&r, failed, "cp_clear at alignments 0-63, lengths 0-10000");
}

/* Every order with a few shapes, for the library's choice and every kernel. */
static void check_huge_order(enum cp_order order)
{
	static const struct { size_t n, hot, radius, batch; } shapes[] = {
		{ 1, 0, 0, 0 }, { 2, 1, 2, 0 }, { 8, 5, 1, 3 }, { 17, 0, 2, 4 },
		{ 33, 32, SIZE_MAX, 0 }, { 64, 20, 7, 5 }, { 512, 300, 2, 16 },
	};
	static const char *const names[] = { "NEIGHBOURHOOD_LAST", "SEQUENTIAL",
		"PAGE_AT_A_TIME", "CONVERGE", "HOT_RANGE_LAST" };
	const struct cp_kernel *const *list;
	size_t nk = cp_kernels(&list), slack = 3;
	size_t nshapes = sizeof(shapes) / sizeof(shapes[0]) - (quick ? 1 : 0);
	char what[160];
	struct guarded r;

	snprintf(what, sizeof(what), "cp_clear_huge_opts %s", names[order]);
	current_check = what;
	if (region_map(&r, 512 + slack)) {
		check_fail(what, strerror(errno));
		return;
	}
	int failed = 0;
	for (size_t s = 0; s < nshapes && !failed; s++)
		for (size_t ki = 0; ki <= nk && !failed; ki++) {
			struct clear_op op = {
				.kind = OP_HUGE, .order = order, .hot = shapes[s].hot,
				.radius = shapes[s].radius, .batch = shapes[s].batch,
				.kernel = ki < nk ? list[ki] : NULL, .len = shapes[s].n * PG,
			};
			/* alternately flush with the leading and the trailing guard */
			op.start = s % 2 ? 0 : r.len - op.len;
			failed = clear_or_fail(&r, &op, what);
		}
	unmap_and_pass(&r, failed, what);
}

#include "copy_checks.h"

int main(int argc, char **argv)
{
	const char *expect_copy = NULL;
	const char *expect = NULL, *features = NULL, *uarch = NULL, *signature = NULL;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--expect") && i + 1 < argc) {
			expect = argv[++i];
		} else if (!strcmp(argv[i], "--expect-copy") && i + 1 < argc) {
			expect_copy = argv[++i];
		} else if (!strcmp(argv[i], "--features") && i + 1 < argc) {
			features = argv[++i];
		} else if (!strcmp(argv[i], "--uarch") && i + 1 < argc) {
			uarch = argv[++i];
		} else if (!strcmp(argv[i], "--signature") && i + 1 < argc) {
			signature = argv[++i];
		} else if (!strcmp(argv[i], "--quick")) {
			quick = 1;
		} else {
			fprintf(stderr, "usage: %s [--expect k1,k2,...] [--expect-copy k1,...] "
				"[--features t1,t2,...] "
				"[--uarch NAME] [--signature F/M/S] [--quick]\n", argv[0]);
			return 2;
		}
	}
	catch_fatal_signals();

	check_cpu_identity(features, uarch, signature);
	check_described_cpus();
	check_kernel_list(expect);
	check_no_simd();
	const struct cp_kernel *const *list;
	size_t n = cp_kernels(&list);
	for (size_t i = 0; i < n; i++) {
		check_kernel_extents(list[i]);
		check_kernel_no_pages(list[i]);
	}
	check_bad_inputs();
	check_page_calls();
	check_clear_alignments();
	for (int order = CP_ORDER_NEIGHBOURHOOD_LAST; order <= CP_ORDER_HOT_RANGE_LAST; order++)
		check_huge_order((enum cp_order)order);
	check_copies(expect_copy);
	return finish_tally();
}
