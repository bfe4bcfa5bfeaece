/* SPDX-License-Identifier: MIT */
/*
 * Profile format 2 (cpu line, bands, parallel split, end line), format 3's
 * residency keys (uncached_band, cached_min_mbps) loaded from a file, and
 * where the policy comes from at initialisation: CLEARPAGES_PROFILE, then the
 * machine-wide profile, then the built-in profile or the generic rule.
 */
#include "testutil.h"
#include "profile_files.h"
#include "testhooks.h"
#include <errno.h>
#include <sys/stat.h>

TestSuite(profile2, .fini = profile_files_remove);

/* This CPU's cpu line. */
static const char *cpu_line(void)
{
	static char line[160];
	snprintf(line, sizeof(line), "cpu %s\n", profile_this_cpu());
	return line;
}

/* A version-2 profile for this CPU: BASELINE below 64 KiB, the first
 * temporal kernel to 8 MiB, BASELINE_NT from there; never split. */
static const char *v2_text(void)
{
	static char text[512];
	const struct cp_kernel *const *list;
	cp_kernels(&list);
	snprintf(text, sizeof(text),
		 "# clearpages profile\nversion 2\narch %s\n%sband 0 %s\nband 64k %s\n"
		 "band 8M %s\nparallel none\nend\n",
		 list[0]->arch, cpu_line(), BASELINE, list[0]->name, BASELINE_NT);
	return text;
}

Test(profile2, bands_applied_and_source_named)
{
	const char *text = v2_text(), *path = profile_file(text, strlen(text));
	const struct cp_kernel *const *list;
	cp_kernels(&list);
	cr_assert_eq(cp_set_profile(path), 0);
	cr_assert_str_eq(cp_kernel_for(15)->name, BASELINE);
	cr_assert_eq(cp_kernel_for(16), list[0]);
	cr_assert_eq(cp_kernel_for(2047), list[0]);
	cr_assert_str_eq(cp_kernel_for(2048)->name, BASELINE_NT);
	cr_assert_eq(cp__state()->policy.parallel_min_share_pages, 0, "parallel none");
	char want[64];
	snprintf(want, sizeof(want), "env:%s", path);
	cr_assert_str_eq(cp_policy_source(), want);
	cr_assert_eq(cp_set_profile(NULL), 0);
	cr_assert_str_eq(cp_policy_source(), cp__state()->default_source);
}

/* Version 3 adds the uncached bands and the residency threshold; its other
 * keys are version 2's. */
Test(profile2, version_3_file_sets_uncached_bands_and_threshold)
{
	char text[512];
	snprintf(text, sizeof(text), "version 3\n%sband 0 %s\nuncached_band 0 %s\n"
		 "uncached_band 64k %s\ncached_min_mbps 12345\nend\n", cpu_line(), BASELINE,
		 BASELINE, BASELINE_NT);
	cr_assert_eq(cp_set_profile(profile_file(text, strlen(text))), 0);
	const struct cp__policy *p = &cp__state()->policy;
	cr_expect_str_eq(cp_kernel_for(1 << 20)->name, BASELINE, "any: one band");
	cr_expect_str_eq(cp__bands_pick(&p->uncached, 15)->name, BASELINE);
	cr_expect_str_eq(cp__bands_pick(&p->uncached, 16)->name, BASELINE_NT);
	if (cp__state()->features & CP__F_COUNTER) {
		cr_expect_eq(p->cached_min_mbps, 12345);
		cr_expect_eq(p->estimate_from_pages, 16, "any and uncached part at 64 KiB");
	} else {
		cr_expect_eq(p->cached_min_mbps, 0, "no counter: nothing to time with");
	}
	cr_assert_eq(cp_set_profile(NULL), 0);
}

Test(profile2, every_cut_of_a_profile_is_refused)
{
	const char *text = v2_text();
	size_t len = strlen(text);
	/* "end\n" minus its newline is still whole; any shorter prefix is not */
	for (size_t cut = 0; cut < len - 1; cut++) {
		struct cp__profile pr;
		struct cp__profile_error err;
		cr_expect_eq(cp__profile_parse(text, cut, &cp__state()->kernels, &pr, &err), -EINVAL,
			     "cut at %zu of %zu accepted", cut, len);
	}
	struct cp__profile pr;
	struct cp__profile_error err;
	cr_assert_eq(cp__profile_parse(text, len - 1, &cp__state()->kernels, &pr, &err), 0,
		     "%u: %s", err.line, err.why);
	cr_assert_eq(cp__profile_parse(text, len, &cp__state()->kernels, &pr, &err), 0);
	cr_assert_eq(pr.nbands, 3);
}

Test(profile2, malformed_rejected_policy_unchanged)
{
	char head[200];
	snprintf(head, sizeof(head), "version 2\n%s", cpu_line());
	static const struct { const char *why, *body; } bad[] = {
		{ "no end", "band 0 " BASELINE "\n" },
		{ "text after end", "band 0 " BASELINE "\nend\nband 8M " BASELINE_NT "\n" },
		{ "end with a value", "band 0 " BASELINE "\nend 1\n" },
		{ "no band", "end\n" },
		{ "first band not at 0", "band 4k " BASELINE "\nend\n" },
		{ "bands not ascending", "band 0 " BASELINE "\nband 8M " BASELINE_NT
					 "\nband 4M " BASELINE "\nend\n" },
		{ "band twice at one size", "band 0 " BASELINE "\nband 0 " BASELINE_NT "\nend\n" },
		{ "nine bands", "band 0 " BASELINE "\nband 4k " BASELINE_NT "\nband 8k " BASELINE
				"\nband 12k " BASELINE_NT "\nband 16k " BASELINE "\nband 20k " BASELINE_NT
				"\nband 24k " BASELINE "\nband 28k " BASELINE_NT "\nband 32k " BASELINE
				"\nend\n" },
		{ "band without kernel", "band 0\nend\n" },
		{ "band with three values", "band 0 " BASELINE " x\nend\n" },
		{ "unknown kernel", "band 0 warp_drive\nend\n" },
		{ "band size not whole pages", "band 0 " BASELINE "\nband 5000 " BASELINE_NT "\nend\n" },
		{ "a version-1 key", "band 0 " BASELINE "\nnt_from 8M\nend\n" },
		{ "parallel 0", "band 0 " BASELINE "\nparallel 0\nend\n" },
		{ "parallel twice", "band 0 " BASELINE "\nparallel 4M\nparallel none\nend\n" },
		{ "parallel word", "band 0 " BASELINE "\nparallel never\nend\n" },
		{ "cpu twice", "cpu GenuineIntel 6 1\nband 0 " BASELINE "\nend\n" },
	};
	struct cp__policy before = cp__state()->policy;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[600];
		snprintf(text, sizeof(text), "%s%s", head, bad[i].body);
		cr_expect_eq(cp_set_profile(profile_file(text, strlen(text))), -EINVAL,
			     "%s: must be -EINVAL", bad[i].why);
	}
	static const char *const no_cpu = "version 2\nband 0 " BASELINE "\nend\n";
	cr_expect_eq(cp_set_profile(profile_file(no_cpu, strlen(no_cpu))), -EINVAL, "no cpu line");
	cr_assert(cp__policy_eq(&before, &cp__state()->policy), "policy changed");
}

Test(profile2, another_cpus_profile_is_refused)
{
	static const char other[] = "version 2\ncpu GenuineIntel 6 1 Pentium Pro\nband 0 " BASELINE
				    "\nend\n";
	static const char other_arm[] = "version 2\ncpu arm64 0x41 0xd0c\nband 0 " BASELINE
					"\nend\n";
	struct cp__policy before = cp__state()->policy;
	cr_expect_eq(cp_set_profile(PROFILE(other)), -EINVAL);
	cr_expect_eq(cp_set_profile(PROFILE(other_arm)), -EINVAL);
	cr_assert(cp__policy_eq(&before, &cp__state()->policy), "policy changed");
}

/* Child: the system profile path from CP_TEST_SYSTEM_PROFILE (set before the
 * first call), then print the source and one choice. */
CHILD_BODY(report_source)
{
	const char *sys = getenv("CP_TEST_SYSTEM_PROFILE");
	if (sys)
		cp__system_profile_path = sys;
	printf("source=%s\nfor1=%s\n", cp_policy_source(), cp_kernel_for(1)->name);
}

/* A root-owned 0644 copy of text (a system profile); mode and owner as given. */
static const char *system_file(const char *text, mode_t mode, uid_t uid)
{
	const char *path = profile_file(text, strlen(text));
	cr_assert_eq(chmod(path, mode), 0);
	if (uid != getuid())
		cr_assert_eq(chown(path, uid, (gid_t)-1), 0, "chown needs root");
	return path;
}

Test(profile2, load_order_env_then_system_then_builtin)
{
	const char *text = v2_text();
	const char *env_path = profile_file(text, strlen(text));
	const char *sys_path = system_file(text, 0644, 0);
	char want[80];
	struct child_out co;

	if (getuid() != 0)
		cr_skip_test("the system profile must be root-owned: run as root (CI does)");
	const char *const both[] = { "CLEARPAGES_PROFILE", env_path,
				     "CP_TEST_SYSTEM_PROFILE", sys_path, NULL };
	co = in_child(both, report_source);
	snprintf(want, sizeof(want), "source=env:%s\n", env_path);
	cr_expect(strstr(co.out, want), "env beats system: %s", co.out);
	cr_expect_str_empty(co.err);

	const char *const sys[] = { "CP_TEST_SYSTEM_PROFILE", sys_path, NULL };
	co = in_child(sys, report_source);
	snprintf(want, sizeof(want), "source=system:%s\nfor1=%s\n", sys_path, BASELINE);
	cr_expect(strstr(co.out, want), "system beats built-in: %s", co.out);
	cr_expect_str_empty(co.err);

	/* a bad CLEARPAGES_PROFILE: one message, then the system profile */
	const char *const bad_env[] = { "CLEARPAGES_PROFILE", "/nonexistent/p",
					"CP_TEST_SYSTEM_PROFILE", sys_path, NULL };
	co = in_child(bad_env, report_source);
	cr_expect(strstr(co.out, "source=system:"), "%s", co.out);
	cr_expect_eq(count_lines(co.err), 1, "one message: %s", co.err);

	const char *const none[] = { "CP_TEST_SYSTEM_PROFILE", "/nonexistent/system", NULL };
	co = in_child(none, report_source);
	snprintf(want, sizeof(want), "source=%s\n", cp__state()->default_source);
	cr_expect(strstr(co.out, want), "no system profile: %s", co.out);
	cr_expect_str_empty(co.err, "a missing system profile is normal: %s", co.err);
}

Test(profile2, untrusted_or_foreign_system_profile_skipped)
{
	if (getuid() != 0)
		cr_skip_test("chown to another uid needs root (CI runs as root)");
	const char *text = v2_text();
	static const char other[] = "version 2\ncpu GenuineIntel 6 1 Pentium Pro\nband 0 " BASELINE
				    "\nend\n";
	const char *cases[][2] = {
		{ system_file(text, 0664, 0), "group-writable" },
		{ system_file(text, 0646, 0), "world-writable" },
		{ system_file(text, 0644, 1234), "owned by uid 1234" },
		{ system_file(other, 0644, 0), "measured on another CPU" },
	};
	char want[80];
	snprintf(want, sizeof(want), "source=%s\n", cp__state()->default_source);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *const e[] = { "CP_TEST_SYSTEM_PROFILE", cases[i][0], NULL };
		struct child_out co = in_child(e, report_source);
		cr_expect(strstr(co.out, want), "%s: %s", cases[i][1], co.out);
		cr_expect_eq(count_lines(co.err), 1, "%s: one message: %s", cases[i][1], co.err);
		cr_expect(strstr(co.err, cases[i][0]), "%s: names the file: %s", cases[i][1], co.err);
	}
	/* the foreign one names both CPUs */
	const char *const e[] = { "CP_TEST_SYSTEM_PROFILE", cases[3][0], NULL };
	struct child_out co = in_child(e, report_source);
	cr_expect(strstr(co.err, "Pentium Pro") && strstr(co.err, "this CPU is"), "%s", co.err);
}
