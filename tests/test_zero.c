/* SPDX-License-Identifier: MIT */
/* cp_zero and cp_zero_ex as an entry point: every flag combination on
 * guarded private memory at unaligned heads and tails, bad flags and bad
 * addresses with nothing written, and the intents' kernels (recorded). */
#include "testutil.h"
#include "profile_files.h"
#include "testhooks.h"
#include <errno.h>

#define ALL_FLAGS (CP_ZERO_HOT | CP_ZERO_COLD | CP_ZERO_PARALLEL | CP_ZERO_MAY_DISCARD | \
		   CP_ZERO_RESIDENT | CP_ZERO_HUGE_PAGES)

/* HOT with COLD; RESIDENT with MAY_DISCARD (it never gives pages back);
 * HUGE_PAGES without RESIDENT (it advises before faulting in). */
static int contradictory(unsigned f)
{
	return (f & (CP_ZERO_HOT | CP_ZERO_COLD)) == (CP_ZERO_HOT | CP_ZERO_COLD) ||
	       ((f & CP_ZERO_RESIDENT) && (f & CP_ZERO_MAY_DISCARD)) ||
	       ((f & CP_ZERO_HUGE_PAGES) && !(f & CP_ZERO_RESIDENT));
}

Test(zero, every_flag_combination_clears_exactly)
{
	static const size_t heads[] = { 0, 1, 63, 4095 }, lens[] = { 1, 4095, 4096, 3 * 4096 + 5 };
	struct guarded g = guarded_map(8);
	for (unsigned f = 0; f <= ALL_FLAGS; f++) {
		if (contradictory(f))
			continue;
		for (size_t h = 0; h < 4; h++)
			for (size_t l = 0; l < 4; l++) {
				memset(g.mem, FILL, g.len);
				size_t discarded = 7;
				int r = cp_zero_ex(g.mem + heads[h], lens[l], f, &discarded);
				cr_assert_eq(r, 0, "flags %#x: %d", f, r);
				char who[64];
				snprintf(who, sizeof(who), "cp_zero_ex(flags %#x, +%zu, %zu)", f,
					 heads[h], lens[l]);
				assert_cleared(who, g.mem, g.len, heads[h], lens[l]);
				cr_assert_eq(discarded, 0, "%s discarded %zu bytes of a small range",
					     who, discarded);
				memset(g.mem, FILL, g.len);
				cr_assert_eq(cp_zero(g.mem + heads[h], lens[l], f), 0);
				assert_cleared(who, g.mem, g.len, heads[h], lens[l]);
			}
	}
	guard_unmap(&g);
}

Test(zero, bad_flags_write_nothing)
{
	struct guarded g = guarded_map(2);
	memset(g.mem, FILL, g.len);
	for (unsigned bit = 6; bit < 32; bit++) {
		unsigned f = 1u << bit;
		size_t discarded = 7;
		cr_assert_eq(cp_zero(g.mem, g.len, f), -EINVAL, "unknown flag %#x", f);
		cr_assert_eq(cp_zero_ex(g.mem, g.len, f | CP_ZERO_HOT, &discarded), -EINVAL);
		cr_assert_eq(discarded, 7, "an -EINVAL call wrote *discarded");
		cr_assert_eq(cp_zero(g.mem, 0, f), -EINVAL, "flags are checked before len == 0");
	}
	for (unsigned f = 0; f <= ALL_FLAGS; f++)
		if (contradictory(f)) {
			cr_assert_eq(cp_zero(g.mem, g.len, f), -EINVAL, "contradictory %#x", f);
			cr_assert_eq(cp_zero(NULL, 0, f), -EINVAL);
		}
	assert_cleared("bad flags", g.mem, g.len, 0, 0);
	guard_unmap(&g);
}

Test(zero, address_checks_are_cp_clears)
{
	for (unsigned f = 0; f <= ALL_FLAGS; f++) {
		if (contradictory(f))
			continue;
		cr_assert_eq(cp_zero(NULL, 0, f), 0);
		cr_assert_eq(cp_zero((void *)UINTPTR_MAX, 0, f), 0);
		cr_assert_eq(cp_zero(NULL, 1, f), -EINVAL);
		cr_assert_eq(cp_zero((void *)(UINTPTR_MAX - 10), 12, f), -EINVAL, "past the top");
		size_t d = 7;
		cr_assert_eq(cp_zero_ex(NULL, 0, f, &d), 0);
		cr_assert_eq(d, 0, "len 0 discards nothing");
	}
}

/* Recording kernels: which one each intent took. */
static unsigned calls_t, calls_nt, calls_hot;
static void rec_t(void *a, size_t n) { calls_t++; memset(a, 0, n * PG); }
static void rec_nt(void *a, size_t n) { calls_nt++; memset(a, 0, n * PG); }
static void rec_hot(void *a, size_t n) { calls_hot++; memset(a, 0, n * PG); }

Test(zero, intents_take_their_bands)
{
	static const struct cp_kernel t = { "rec_t", "test", 0, rec_t };
	static const struct cp_kernel nt = { "rec_nt", "test", CP_NONTEMPORAL, rec_nt };
	static const struct cp_kernel hot = { "rec_hot", "test", 0, rec_hot };
	struct cp__policy p = cp__state()->defaults;
	struct cp__band any = { 0, &t }, cold = { 0, &nt }, h = { 0, &hot };
	cp__bands_set(&p.any, &any, 1);
	cp__bands_set(&p.uncached, &any, 1);
	cp__bands_set(&p.hot, &h, 1);
	cp__bands_set(&p.cold, &cold, 1);
	p.cached_min_mbps = 0;             /* the bands alone, no estimate */
	cp__policy_finish(&p);
	cr_assert_eq(cp__policy_publish(&p, "test"), 0);
	struct guarded g = guarded_map(4);
	static const struct { unsigned flags; unsigned *counter; } want[] = {
		{ 0, &calls_t }, { CP_ZERO_HOT, &calls_hot }, { CP_ZERO_COLD, &calls_nt },
		{ CP_ZERO_PARALLEL, &calls_t }, { CP_ZERO_PARALLEL | CP_ZERO_HOT, &calls_hot },
		{ CP_ZERO_PARALLEL | CP_ZERO_COLD, &calls_nt },
		{ CP_ZERO_MAY_DISCARD | CP_ZERO_COLD, &calls_nt },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		calls_t = calls_nt = calls_hot = 0;
		cr_assert_eq(cp_zero(g.mem + 1, g.len - 1, want[i].flags), 0);
		cr_assert_eq(*want[i].counter, 1, "flags %#x: %u/%u/%u calls (any/cold/hot)",
			     want[i].flags, calls_t, calls_nt, calls_hot);
		cr_assert_eq(calls_t + calls_nt + calls_hot, 1, "flags %#x", want[i].flags);
	}
	calls_t = 0;
	cr_assert_eq(cp_clear(g.mem + 1, g.len - 1), 0);
	cr_assert_eq(calls_t, 1, "cp_clear is cp_zero with no flags");
	guard_unmap(&g);
}

/* Profile version 3's discard_from: a size, or none; 0 is refused. */
Test(zero, profile_discard_from)
{
	static const struct { const char *value; int ok; size_t pages; } cases[] = {
		{ "8M", 1, 2048 }, { "none", 1, CP__BAND_UNUSED }, { "4096", 1, 1 },
		{ "0", 0, 0 }, { "5000", 0, 0 }, { "8M 1", 0, 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[256];
		snprintf(text, sizeof(text), "version 3\ncpu %s\nband 0 %s\ndiscard_from %s\nend\n",
			 profile_this_cpu(), BASELINE, cases[i].value);
		struct cp__profile pr;
		struct cp__profile_error err;
		int r = cp__profile_parse(text, strlen(text), &cp__state()->kernels, &pr, &err);
		cr_assert_eq(r == 0, cases[i].ok, "discard_from %s: %d", cases[i].value, r);
		if (r == 0)
			cr_assert_eq(pr.discard_from_pages, cases[i].pages, "discard_from %s",
				     cases[i].value);
	}
	const char *v2 = "version 2\ncpu x 1 1\nband 0 " BASELINE "\ndiscard_from 8M\nend\n";
	struct cp__profile pr;
	struct cp__profile_error err;
	cr_assert_eq(cp__profile_parse(v2, strlen(v2), &cp__state()->kernels, &pr, &err), -EINVAL,
		     "discard_from is a version-3 key");
	char text[256];
	snprintf(text, sizeof(text), "version 3\ncpu %s\nband 0 %s\ndiscard_from 12M\nend\n",
		 profile_this_cpu(), BASELINE);
	cr_assert_eq(cp_set_profile(profile_file(text, strlen(text))), 0);
	cr_assert_eq(cp__state()->policy.discard_from_pages, 3072);
	cr_assert_eq(cp_set_profile(NULL), 0);
	profile_files_remove();
}
