/* SPDX-License-Identifier: MIT */
/*
 * cp_check's copy checks (included by cp_check.c after its own helpers):
 * cp_copy_kernels() well formed and as the model expects (--expect-copy);
 * every copy kernel copying exact extents from a read-only source between
 * guards into a destination against guards or inside a fill, and npages 0
 * touching nothing (tests/copy_pattern.h); cp_copy_pages and cp_copy_huge
 * once each, and their bad input.
 */
#ifndef CP_COPY_CHECKS_H
#define CP_COPY_CHECKS_H

#include "../copy_pattern.h"

static void check_copy_list(const char *expect)
{
	const struct cp_copy_kernel *const *list;
	size_t n = cp_copy_kernels(&list);
	char got[512] = "";
	const char *bad = n ? NULL : "empty";
	int seen_nt = 0;

	current_check = "copy kernel list";
	for (size_t i = 0; i < n; i++) {
		int nt = (list[i]->flags & CP_NONTEMPORAL) != 0;
		if (seen_nt && !nt)
			bad = "a temporal copy kernel after a non-temporal one";
		if (cp_copy_kernel_find(list[i]->name) != list[i])
			bad = "cp_copy_kernel_find() disagrees with cp_copy_kernels()";
		seen_nt |= nt;
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s",
			 i ? "," : "", list[i]->name);
	}
	printf("copy kernels: %s\n", got);
	if (bad)
		check_fail("copy kernel list well-formed", bad);
	else
		check_pass("copy kernel list well-formed");
	check_expected("copy kernel list of this CPU model", got, expect);
}

enum copy_kind { COPY_KERNEL, COPY_PAGES, COPY_HUGE };

/* One copy of n pages into a fresh pair (pad: see copy_pattern.h), verified;
 * a fault fails the check `what` and the run goes on. 0, or -1 (failed). */
static int copy_or_fail(const char *what, enum copy_kind kind, const struct cp_copy_kernel *k,
			size_t n, size_t pad)
{
	struct copy_pair c;
	char line[512];
	if (copy_pair_map(&c, n, pad, 0xc0b1u + 7 * n + pad)) {
		check_fail(what, strerror(errno));
		return -1;
	}
	int sig = sigsetjmp(fault_return, 1);
	if (sig == 0) {
		fault_armed = 1;
		int rc = 0;
		if (kind == COPY_KERNEL)
			k->copy(c.d, c.s, n);
		else if (kind == COPY_PAGES)
			rc = cp_copy_pages(c.d, c.s, n);
		else
			rc = cp_copy_huge(c.d, c.s, n, n / 3);
		fault_armed = 0;
		if (rc)
			snprintf(why, sizeof(why), "returned %d", rc);
		else if (!copy_pair_verify(&c, why, sizeof(why)))
			return copy_pair_unmap(&c), 0;
	} else {
		snprintf(why, sizeof(why), "%s", signal_name(sig));
	}
	copy_pair_unmap(&c);
	snprintf(line, sizeof(line), "%zu pages, destination %s: %s", n,
		 pad ? "inside a fill" : "between guards", why);
	check_fail(what, line);
	return -1;
}

/* Exact extents of 1-300 pages (quick: 1-64), against guards and in a fill. */
static int copy_sizes_or_fail(const char *what, enum copy_kind kind,
			      const struct cp_copy_kernel *k)
{
	static const size_t sizes[] = { 1, 2, 3, 17, 64, 7, 16, 300 };
	size_t nsizes = quick ? 5 : sizeof(sizes) / sizeof(sizes[0]);
	for (size_t i = 0; i < nsizes; i++)
		for (size_t pad = 0; pad <= 1; pad++)
			if (copy_or_fail(what, kind, k, sizes[i], pad))
				return -1;
	return 0;
}

static void check_copy_kernel(const struct cp_copy_kernel *k)
{
	char what[96];
	snprintf(what, sizeof(what), "copy kernel %s: exact copies between guards", k->name);
	current_check = what;
	if (!copy_sizes_or_fail(what, COPY_KERNEL, k))
		check_pass(what);

	struct copy_pair c;
	snprintf(what, sizeof(what), "copy kernel %s: npages == 0 touches nothing", k->name);
	current_check = what;
	if (copy_pair_map(&c, 2, 1, 2)) {
		check_fail(what, strerror(errno));
		return;
	}
	k->copy(c.d, c.s, 0);     /* a fault here: catch_fatal_signals names the check */
	k->copy(c.dst.mem + c.dst.len, c.src.mem + c.src.len, 0);
	if (copy_pair_untouched(&c, why, sizeof(why)))
		check_fail(what, why);
	else
		check_pass(what);
	copy_pair_unmap(&c);
}

static void check_copy_calls(void)
{
	current_check = "cp_copy_pages: exact copies";
	if (!copy_sizes_or_fail(current_check, COPY_PAGES, NULL))
		check_pass(current_check);
	current_check = "cp_copy_huge: exact copies";
	if (!copy_sizes_or_fail(current_check, COPY_HUGE, NULL))
		check_pass(current_check);

	struct copy_pair c;
	current_check = "cp_copy_pages / cp_copy_huge: bad input gives -EINVAL, writes nothing";
	if (copy_pair_map(&c, 4, 1, 4)) {
		check_fail(current_check, strerror(errno));
		return;
	}
	unsigned char *d = c.d, *s = c.s;
	if (cp_copy_pages(NULL, NULL, 0) || cp_copy_huge(d, d, 0, 9))
		check_fail(current_check, "npages 0 must return 0 before any check");
	else if (cp_copy_pages(NULL, s, 1) != -EINVAL || cp_copy_pages(d, NULL, 1) != -EINVAL ||
		 cp_copy_pages(d + 64, s, 1) != -EINVAL || cp_copy_pages(d, s + 2048, 1) != -EINVAL ||
		 cp_copy_pages(d, s, SIZE_MAX / PG + 1) != -EINVAL ||
		 cp_copy_huge(d, s, 4, 4) != -EINVAL)
		check_fail(current_check, "NULL, misaligned, too large or hot_idx >= npages accepted");
	else if (cp_copy_pages(d, d, 2) != -EINVAL || cp_copy_pages(d + PG, d, 2) != -EINVAL ||
		 cp_copy_pages(d, d + PG, 2) != -EINVAL || cp_copy_huge(d, d + PG, 2, 0) != -EINVAL)
		check_fail(current_check, "overlapping ranges accepted");
	else if (copy_pair_untouched(&c, why, sizeof(why)))
		check_fail(current_check, why);
	else
		check_pass(current_check);
	copy_pair_unmap(&c);
}

/* All of the above. */
static void check_copies(const char *expect)
{
	const struct cp_copy_kernel *const *list;
	size_t n = cp_copy_kernels(&list);
	check_copy_list(expect);
	for (size_t i = 0; i < n; i++)
		check_copy_kernel(list[i]);
	check_copy_calls();
}

#endif
