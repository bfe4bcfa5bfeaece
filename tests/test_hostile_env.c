/* SPDX-License-Identifier: MIT */
/*
 * Hostile environment: garbage, empty, huge, negative and mixed-case values
 * of every CLEARPAGES_* variable. The library reads the environment once, so
 * each case runs in a fresh process (testutil.h's run_child: this test binary
 * exec'd again with the case's environment).
 * Every bad value gives exactly one message naming the variable, is ignored
 * (the policy is the one of an empty environment), and never crashes: the
 * child clears and verifies memory through every entry point.
 */
#include "testutil.h"
#include <stdio.h>

/* The child's body: the policy it sees on stdout, then clears, verified. */
CHILD_BODY(report_and_clear)
{
	const struct cp_kernel *const *list;
	size_t n = cp_kernels(&list);
	for (size_t i = 0; i < n; i++)
		printf("%s ", list[i]->name);
	printf("| for 1: %s | for huge: %s\n", cp_kernel_for(1)->name,
	       cp_kernel_for(SIZE_MAX / CP_PAGE_SIZE)->name);

	const size_t pages = 6, len = pages * CP_PAGE_SIZE;
	unsigned char *p = aligned_alloc(CP_PAGE_SIZE, len);
	int (*const calls[])(void *, size_t) = { cp_clear_pages, cp_clear_pages_hot,
						 cp_clear_pages_cold };
	for (size_t c = 0; c < sizeof(calls) / sizeof(calls[0]); c++) {
		memset(p, FILL, len);
		if (calls[c](p + CP_PAGE_SIZE, 4) || first_not(p + CP_PAGE_SIZE, 4 * CP_PAGE_SIZE, 0)
		    != 4 * CP_PAGE_SIZE || p[CP_PAGE_SIZE - 1] != FILL || p[5 * CP_PAGE_SIZE] != FILL)
			_exit(10 + (int)c);
	}
	memset(p, FILL, len);
	if (cp_clear(p + 3, len - 5) || first_not(p + 3, len - 5, 0) != len - 5 || p[2] != FILL)
		_exit(20);
	memset(p, FILL, len);
	if (cp_clear_huge(p, pages, 2) || first_not(p, len, 0) != len)
		_exit(21);
	free(p);
}

/* Lines of s, and how many of them are library messages naming `var`. */
static void count_messages(const char *s, const char *var, size_t *lines, size_t *naming)
{
	*lines = *naming = 0;
	for (const char *line = s; *line; ) {
		size_t len = strcspn(line, "\n");
		(*lines)++;
		if (!strncmp(line, "clearpages: ", 12) && memmem(line, len, var, strlen(var)))
			(*naming)++;
		line += len + (line[len] == '\n');
	}
}

static void assert_ignored_with_messages(const char *var, const char *value, size_t want)
{
	static const char *const none[] = { NULL };
	static struct child_out base;        /* per test process: one baseline */
	if (!base.out[0])
		base = run_child(none, "report_and_clear");
	const char *const pairs[] = { var, value, NULL };
	struct child_out pr = run_child(pairs, "report_and_clear");
	size_t lines, naming;
	char shown[48];

	snprintf(shown, sizeof(shown), "%s", value);   /* huge values: the start only */
	cr_assert(WIFEXITED(pr.status) && WEXITSTATUS(pr.status) == 0,
		  "%s='%s': the probe %s (status 0x%x)", var, shown,
		  WIFSIGNALED(pr.status) && WTERMSIG(pr.status) == SIGALRM ? "hung past its deadline" :
		  "crashed or failed to clear", pr.status);
	count_messages(pr.err, var, &lines, &naming);
	cr_assert(lines == want && naming == want, "%s='%s': %zu message(s) expected, got: %s",
		  var, shown, want, pr.err);
	cr_assert_str_eq(pr.out, base.out, "%s='%s' must be ignored", var, shown);
}

/* A value of n copies of c. */
static char *huge_value(char c, size_t n)
{
	char *v = malloc(n + 1);
	cr_assert(v);
	memset(v, c, n);
	v[n] = '\0';
	return v;
}

#define HUGE_LEN (64 * 1024)

/* Each of the n values gives exactly one message naming var and is ignored. */
static void each_one_message(const char *var, const char *const *values, size_t n)
{
	for (size_t i = 0; i < n; i++)
		assert_ignored_with_messages(var, values[i], 1);
}
#define EACH_ONE_MESSAGE(var, values) \
	each_one_message(var, values, sizeof(values) / sizeof(values[0]))

/* A 64 KiB value of c: one message (cut short in it), ignored. */
static void survive_huge(const char *var, char c)
{
	char *v = huge_value(c, HUGE_LEN);
	assert_ignored_with_messages(var, v, 1);
	free(v);
}

/* The values every variable must survive, with the messages each gives. */
static void survive_common_garbage(const char *var)
{
	static const char *const bad[] = { "garbage", "-1", "-0", "%s%n%x%n", "\xff\xfe\x01",
					   "  ", "Yes!", "1e3", "NaN" };
	EACH_ONE_MESSAGE(var, bad);
	assert_ignored_with_messages(var, "", 0);        /* empty is unset */
	survive_huge(var, '9');
}

Test(hostile_env, kernel)
{
	survive_common_garbage("CLEARPAGES_KERNEL");
	/* names are exact: another case, blanks or a list name no kernel */
	static const char *const bad[] = { "SSE2", "Stp", "MOVQ", " movq", "movq ", "movq,sse2" };
	EACH_ONE_MESSAGE("CLEARPAGES_KERNEL", bad);
}

Test(hostile_env, disable)
{
	/* a list: each bad token is one message; blank tokens are nothing */
	static const char *const bad[] = { "garbage", "-1", "%s%n%x%n", "\xff\xfe\x01", "NoNsEnSe",
					   "avx2x", "sve2", "erms=1" };
	EACH_ONE_MESSAGE("CLEARPAGES_DISABLE", bad);
	assert_ignored_with_messages("CLEARPAGES_DISABLE", ",,  , ,", 0);
	assert_ignored_with_messages("CLEARPAGES_DISABLE", "", 0);
	assert_ignored_with_messages("CLEARPAGES_DISABLE", "foo,,BAR", 2);
	survive_huge("CLEARPAGES_DISABLE", 'y');
}

Test(hostile_env, nt_threshold)
{
	survive_common_garbage("CLEARPAGES_NT_THRESHOLD");
	static const char *const bad[] = { "64Kb", "1T", "1kk", "+5", "1 G", "0x10", "16EiB",
					   "18446744073709551616", "17179869184G" };
	EACH_ONE_MESSAGE("CLEARPAGES_NT_THRESHOLD", bad);
}

Test(hostile_env, profile)
{
	/* missing, a folder, empty or not a profile: each one message, ignored */
	static const char *const bad[] = { "/nonexistent/profile", "/", "/dev/null", "-1",
					   "%s%n%x%n", "\xff\xfe\x01" };
	EACH_ONE_MESSAGE("CLEARPAGES_PROFILE", bad);
	assert_ignored_with_messages("CLEARPAGES_PROFILE", "", 0);
	survive_huge("CLEARPAGES_PROFILE", '/');
}

Test(hostile_env, quiet)
{
	survive_common_garbage("CLEARPAGES_QUIET");
	static const char *const bad[] = { "TRUE", "yes", "2", "1 ", " 1", "01" };
	EACH_ONE_MESSAGE("CLEARPAGES_QUIET", bad);
	assert_ignored_with_messages("CLEARPAGES_QUIET", "0", 0);
}

Test(hostile_env, all_bad_at_once)
{
	static const char *const vars[] = { "CLEARPAGES_KERNEL", "CLEARPAGES_DISABLE",
		"CLEARPAGES_NT_THRESHOLD", "CLEARPAGES_PROFILE", "CLEARPAGES_QUIET" };
	const char *const pairs[] = { vars[0], "-1", vars[1], "-1", vars[2], "-1",
				      vars[3], "-1", vars[4], "-1", NULL };
	struct child_out pr = run_child(pairs, "report_and_clear");
	cr_assert(WIFEXITED(pr.status) && WEXITSTATUS(pr.status) == 0,
		  "the probe hung, crashed or failed to clear (status 0x%x)", pr.status);
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		size_t lines, naming;
		count_messages(pr.err, vars[i], &lines, &naming);
		cr_assert_eq(lines, 5, "five messages expected: %s", pr.err);
		cr_assert_eq(naming, 1, "one message naming %s: %s", vars[i], pr.err);
	}
}

/* A value with a line break must still be one line: one message per bad value. */
Test(hostile_env, control_characters_stay_one_line)
{
	assert_ignored_with_messages("CLEARPAGES_KERNEL", "a\nclearpages: forged", 1);
	assert_ignored_with_messages("CLEARPAGES_NT_THRESHOLD", "1\r\n2", 1);
}
