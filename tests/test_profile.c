/* SPDX-License-Identifier: MIT */
/*
 * Tuned profiles: cp_set_profile loads, rejects (policy unchanged) and
 * restores; CLEARPAGES_PROFILE at initialisation, in a child process because
 * the library reads the environment once.
 */
#include "testutil.h"
#include "profile_files.h"
#include "testhooks.h"
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>

TestSuite(profile, .fini = profile_files_remove);

/* The first and last usable kernel of a class, in cp_kernels() order. */
static const struct cp_kernel *kernel_of(int nontemporal, int last)
{
	const struct cp_kernel *const *list, *found = NULL;
	size_t n = cp_kernels(&list);
	for (size_t i = 0; i < n; i++)
		if (((list[i]->flags & CP_NONTEMPORAL) != 0) == nontemporal && (!found || last))
			found = list[i];
	cr_assert(found);
	return found;
}

static struct cp__policy policy_now(void)
{
	return cp__state()->policy;
}

static void assert_policy_eq(struct cp__policy a, struct cp__policy b, const char *what)
{
	cr_assert(cp__policy_eq(&a, &b), "policy changed: %s", what);
}

/* A profile using every key, kernels different from the defaults where the CPU allows. */
static const char *full_profile(void)
{
	static char text[512];
	snprintf(text, sizeof(text),
		 "# tuned on a test\nversion 1\narch %s\n"
		 "small %s    # trailing comment\n\tsmall_below\t64k\n"
		 "temporal %s\nnt_from 8M\nnontemporal %s",    /* no final newline */
		 kernel_of(0, 0)->arch, kernel_of(0, 1)->name, kernel_of(0, 0)->name,
		 kernel_of(1, 1)->name);
	return profile_file(text, strlen(text));
}

Test(profile, load_sets_every_band_and_null_restores)
{
	struct cp__policy defaults = policy_now();
	const char *path = full_profile();
	cr_assert_eq(cp_set_profile(path), 0);
	cr_assert_eq(cp_kernel_for(15), kernel_of(0, 1), "below 64k: small");
	cr_assert_eq(cp_kernel_for(16), kernel_of(0, 0), "from 64k: temporal");
	cr_assert_eq(cp_kernel_for(2047), kernel_of(0, 0), "below 8M: temporal");
	cr_assert_eq(cp_kernel_for(2048), kernel_of(1, 1), "from 8M: non-temporal");
	cr_assert_eq(cp__bands_pick(&cp__state()->policy.hot, 15), kernel_of(0, 1), "hot below 64k");
	cr_assert_eq(cp__bands_pick(&cp__state()->policy.hot, 16), kernel_of(0, 0), "hot from 64k");
	cr_assert_eq(cp__bands_pick(&cp__state()->policy.hot, SIZE_MAX / PG), kernel_of(0, 0));
	cr_assert_eq(cp__policy_nt_from(&cp__state()->policy), 2048);
	struct guarded g = guarded_map(2100);
	memset(g.mem, FILL, g.len);
	cr_assert_eq(cp_clear_pages(g.mem + CP_PAGE_SIZE, 2049), 0);
	assert_cleared("cp_clear_pages with a profile", g.mem, g.len, CP_PAGE_SIZE,
		       2049 * CP_PAGE_SIZE);
	guard_unmap(&g);

	cr_assert_eq(cp_set_profile(NULL), 0);
	assert_policy_eq(policy_now(), defaults, "cp_set_profile(NULL) must restore the defaults");
}

Test(profile, keys_left_out_keep_their_defaults)
{
	struct cp__policy defaults = policy_now();
	const struct cp_kernel *nt = cp__bands_pick(&defaults.cold, SIZE_MAX / PG);
	cr_assert_eq(cp_set_profile(PROFILE("version 1\nnt_from 0\n")), 0);
	cr_assert_eq(cp_kernel_for(1), nt, "nt_from 0: always non-temporal");
	cr_assert_eq(cp__bands_count(&cp__state()->policy.any), 1, "nt_from 0: one band");
	cr_assert_eq(cp__bands_pick(&cp__state()->policy.hot, 1), cp__bands_pick(&defaults.hot, 1),
		     "the small band stays for hot clears");
	cr_assert_eq(cp_set_profile(PROFILE("\n  # sizes take k/M/G\nversion\t1 \nnt_from 3G\n\n")), 0);
	cr_assert_eq(cp__policy_nt_from(&cp__state()->policy), (size_t)3 << 18, "3G");
	cr_assert_eq(cp_kernel_for(1), cp__bands_pick(&defaults.any, 1), "small kernel kept");
	cr_assert_eq(cp_kernel_for(((size_t)3 << 18) - 1),
		     cp__bands_pick(&defaults.hot, SIZE_MAX / PG), "temporal kernel kept");
	cr_assert_eq(cp_kernel_for((size_t)3 << 18), nt, "non-temporal kernel kept");
}

static const struct { const char *why; const char *text; size_t len; } malformed[] = {
#define BAD(why, text) { why, text, sizeof(text) - 1 }
	BAD("empty file", ""),
	BAD("comments only", "# nothing\n\n"),
	BAD("no version", "nt_from 8M\n"),
	BAD("version not first", "nt_from 8M\nversion 1\n"),
	BAD("version 2 without its lines", "version 2\n"),
	BAD("unknown key", "version 1\nnt_threshold 8M\n"),
	BAD("key case", "version 1\nNT_FROM 8M\n"),
	BAD("duplicate key", "version 1\nnt_from 8M\nnt_from 16M\n"),
	BAD("key without value", "version 1\nnt_from\n"),
	BAD("two values", "version 1\nnt_from 8 M\n"),
	BAD("key=value", "version 1\nnt_from=8M\n"),
	BAD("bad suffix", "version 1\nnt_from 8MB\n"),
	BAD("fraction", "version 1\nnt_from 1.5M\n"),
	BAD("negative", "version 1\nnt_from -1\n"),
	BAD("hex", "version 1\nnt_from 0x1000\n"),
	BAD("overflow", "version 1\nnt_from 99999999999999999999\n"),
	BAD("suffix overflow", "version 1\nnt_from 18014398509481984k\n"),
	BAD("not whole pages", "version 1\nnt_from 5000\n"),
	BAD("unknown kernel", "version 1\ntemporal warp_drive\n"),
	BAD("kernel name case", "version 1\nsmall " BASELINE_UPPER "\n"),
	BAD("other arch", "version 1\narch sparc\n"),
	BAD("small_below > nt_from", "version 1\nsmall_below 2M\nnt_from 1M\n"),
	BAD("CRLF", "version 1\r\nnt_from 8M\r\n"),
	BAD("NUL byte", "version 1\nnt_from 8M\0\n"),
	BAD("CR in a comment", "version 1\n# tuned\r\n"),
	BAD("NUL in a comment", "version 1\n# tuned\0\n"),
	BAD("escape in a comment", "version 1\n# \033[1m\n"),
	BAD("line of 256 bytes", "version 1\n# "
	    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n"),
#undef BAD
};

Test(profile, malformed_rejected_policy_unchanged)
{
	/* start from a loaded profile: a rejected file must not fall back to the defaults */
	cr_assert_eq(cp_set_profile(PROFILE("version 1\nnt_from 12k\n")), 0);
	struct cp__policy loaded = policy_now();
	for (size_t i = 0; i < sizeof(malformed) / sizeof(malformed[0]); i++) {
		const char *path = profile_file(malformed[i].text, malformed[i].len);
		cr_assert_eq(cp_set_profile(path), -EINVAL, "%s: must be -EINVAL", malformed[i].why);
		assert_policy_eq(policy_now(), loaded, malformed[i].why);
	}
	/* 255 bytes is the longest line accepted */
	char line[300] = "version 1\n#";
	memset(line + 11, 'x', 254);
	strcpy(line + 11 + 254, "\nnt_from 8k\n");
	cr_assert_eq(cp_set_profile(profile_file(line, strlen(line))), 0, "a 255-byte line");
}

Test(profile, kernel_of_wrong_class_rejected)
{
	char text[128];
	snprintf(text, sizeof(text), "version 1\ntemporal %s\n", kernel_of(1, 0)->name);
	cr_assert_eq(cp_set_profile(profile_file(text, strlen(text))), -EINVAL, "%s", text);
	snprintf(text, sizeof(text), "version 1\nsmall %s\n", kernel_of(1, 0)->name);
	cr_assert_eq(cp_set_profile(profile_file(text, strlen(text))), -EINVAL, "%s", text);
	snprintf(text, sizeof(text), "version 1\nnontemporal %s\n", kernel_of(0, 0)->name);
	cr_assert_eq(cp_set_profile(profile_file(text, strlen(text))), -EINVAL, "%s", text);
}

Test(profile, missing_or_unreadable_is_enoent)
{
	struct cp__policy before = policy_now();
	cr_assert_eq(cp_set_profile("/nonexistent/cp.profile"), -ENOENT);
	cr_assert_eq(cp_set_profile("/tmp"), -ENOENT, "a directory cannot be read");
	cr_assert_eq(cp_set_profile(""), -ENOENT);
	assert_policy_eq(policy_now(), before, "missing file");
}

CHILD_BODY(baseline_profile_applied)
{
	const struct cp__policy *p = &cp__state()->policy;
	if (cp__policy_nt_from(p) != 2048 || strcmp(cp_kernel_for(2047)->name, BASELINE) ||
	    strcmp(cp_kernel_for(2048)->name, BASELINE_NT))
		_exit(2);
}

CHILD_BODY(policy_is_default)
{
	const struct cp__state *s = cp__state();
	if (!cp__policy_eq(&s->policy, &s->defaults))
		_exit(3);
}

Test(profile, env_profile_loaded_at_init)
{
	struct child_out co;
	/* the parent must not initialise the library before the children fork */
	const char *const ok[] = { "CLEARPAGES_PROFILE", PROFILE("version 1\ntemporal " BASELINE
		"\nnt_from 8M\nnontemporal " BASELINE_NT "\n"), NULL };
	co = in_child(ok, baseline_profile_applied);
	cr_assert_str_empty(co.err);

	const char *const missing[] = { "CLEARPAGES_PROFILE", "/nonexistent/x.profile", NULL };
	co = in_child(missing, policy_is_default);
	cr_assert_eq(count_lines(co.err), 1, "one message: %s", co.err);
	cr_assert(strstr(co.err, "CLEARPAGES_PROFILE") && strstr(co.err, "/nonexistent/x.profile"), "%s", co.err);

	const char *const bad[] = { "CLEARPAGES_PROFILE", PROFILE("version 1\nnt_from 8M\nbogus 1\n"),
				    NULL };
	co = in_child(bad, policy_is_default);
	cr_assert_eq(count_lines(co.err), 1, "one message: %s", co.err);
	cr_assert(strstr(co.err, "line 3") && strstr(co.err, "unknown key"), "%s", co.err);

	const char *const quiet[] = { "CLEARPAGES_PROFILE", "/nonexistent/x.profile",
				      "CLEARPAGES_QUIET", "1", NULL };
	co = in_child(quiet, policy_is_default);
	cr_assert_str_empty(co.err);
}

CHILD_BODY(disabled_kernel_rejected)
{
	int r = cp_set_profile(PROFILE("version 1\ntemporal avx2\n")) != -EINVAL ||
		cp_set_profile(PROFILE("version 1\ntemporal sve\n")) != -EINVAL;
	profile_files_remove();
	if (r)
		_exit(4);
}

Test(profile, disabled_kernel_rejected)
{
#if defined(__x86_64__)
	skip_unless_kernel("avx2", "a profile naming it would be rejected anyway");
#else
	skip_unless_kernel("sve", "a profile naming it would be rejected anyway");
#endif
	struct child_out co;
	const char *const e[] = { "CLEARPAGES_DISABLE", "avx2,sve", NULL };
	co = in_child(e, disabled_kernel_rejected);
	cr_assert_str_empty(co.err);
}

CHILD_BODY(forced_kernel_wins)
{
	int r = cp_set_profile(full_profile()) || strcmp(cp_kernel_for(1)->name, BASELINE) ||
		strcmp(cp_kernel_for(SIZE_MAX / CP_PAGE_SIZE)->name, BASELINE);
	profile_files_remove();
	if (r)
		_exit(5);
}

Test(profile, forced_kernel_wins_over_profile)
{
	struct child_out co;
	const char *const e[] = { "CLEARPAGES_KERNEL", BASELINE, NULL };
	co = in_child(e, forced_kernel_wins);
	cr_assert_str_empty(co.err);
}
