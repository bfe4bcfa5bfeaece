/* SPDX-License-Identifier: MIT */
/*
 * Environment overrides, each in a fresh child process (the library reads the
 * environment once, at its first use), and the first call made by 16 threads
 * at once.
 */
#include "testutil.h"
#include "testhooks.h"
#include <pthread.h>
#include <stdio.h>

/* What the child reports: the kernel list and the policy's choices. */
CHILD_BODY(report)
{
	const struct cp_kernel *const *list;
	size_t n = cp_kernels(&list);
	printf("list=");
	for (size_t i = 0; i < n; i++)
		printf("%s%s", i ? "," : "", list[i]->name);
	printf("\nfor1=%s\nforbig=%s\nhot=%s\ncold=%s\nnt_from=%zu\n",
	       cp_kernel_for(1)->name, cp_kernel_for(SIZE_MAX / CP_PAGE_SIZE)->name,
	       cp__pick_hot(1)->name, cp__pick_cold(1)->name, cp__policy_nt_from(&cp__state()->policy));
	/* and it still clears correctly */
	unsigned char *p = aligned_alloc(CP_PAGE_SIZE, 3 * CP_PAGE_SIZE);
	memset(p, FILL, 3 * CP_PAGE_SIZE);
	if (cp_clear_pages(p, 3) || first_not(p, 3 * CP_PAGE_SIZE, 0) != 3 * CP_PAGE_SIZE)
		_exit(3);
	free(p);
}

static const char *field(const struct child_out *co, const char *key, char *buf, size_t size)
{
	const char *p = strstr(co->out, key);
	cr_assert(p, "no %s in child output: %s", key, co->out);
	p += strlen(key);
	size_t n = strcspn(p, "\n");
	cr_assert(n < size);
	memcpy(buf, p, n);
	buf[n] = '\0';
	return buf;
}

Test(env, kernel_forces_every_dispatched_call)
{
	struct child_out base = in_child(no_env, report);
	const char *const e[] = { "CLEARPAGES_KERNEL", BASELINE, NULL };
	struct child_out co = in_child(e, report);
	char b[256], b2[256];
	cr_assert_str_eq(field(&co, "for1=", b, sizeof(b)), BASELINE);
	cr_assert_str_eq(field(&co, "forbig=", b, sizeof(b)), BASELINE);
	cr_assert_str_eq(field(&co, "hot=", b, sizeof(b)), BASELINE);
	cr_assert_str_eq(field(&co, "cold=", b, sizeof(b)), BASELINE);
	cr_assert_str_eq(field(&co, "list=", b, sizeof(b)), field(&base, "list=", b2, sizeof(b2)),
			 "cp_kernels() must not change");
	cr_assert_str_empty(co.err);
}

Test(env, kernel_unknown_reported_once_and_ignored)
{
	struct child_out base = in_child(no_env, report);
	const char *const e[] = { "CLEARPAGES_KERNEL", "Bogus_Kernel", NULL };
	struct child_out co = in_child(e, report);
	char b[256], b2[256];
	cr_assert_eq(count_lines(co.err), 1, "stderr: %s", co.err);
	cr_assert(strstr(co.err, "CLEARPAGES_KERNEL") && strstr(co.err, "Bogus_Kernel"), "%s", co.err);
	cr_assert_str_eq(field(&co, "for1=", b, sizeof(b)), field(&base, "for1=", b2, sizeof(b2)));
}

Test(env, empty_values_are_unset)
{
	struct child_out base = in_child(no_env, report);
	const char *const e[] = { "CLEARPAGES_KERNEL", "", "CLEARPAGES_DISABLE", "",
				  "CLEARPAGES_NT_THRESHOLD", "", "CLEARPAGES_QUIET", "", NULL };
	struct child_out co = in_child(e, report);
	cr_assert_str_eq(co.out, base.out);
	cr_assert_str_empty(co.err);
}

#if defined(__x86_64__)
#define FEATURE "avx2"
#define FEATURE_MIXED "AvX2"
#define OTHER_ARCH "sve"
#else
#define FEATURE "sve"
#define FEATURE_MIXED "SvE"
#define OTHER_ARCH "avx2"
#endif

/* Asked in a child: the parent must not initialise the library before forking. */
static void skip_without_feature(void)
{
	skip_unless_kernel(FEATURE, "no " FEATURE " to disable");
}

Test(env, disable_masks_kernels_case_insensitive)
{
	skip_without_feature();
	const char *const e[] = { "CLEARPAGES_DISABLE", FEATURE_MIXED "," OTHER_ARCH, NULL };
	struct child_out co = in_child(e, report);
	char b[256];
	field(&co, "list=", b, sizeof(b));
	cr_assert_null(strstr(b, FEATURE), FEATURE " still listed: %s", b);
	cr_assert_str_empty(co.err, "the other arch's token is ignored silently: %s", co.err);
}

CHILD_BODY(find_feature_kernel)
{
	printf("find=%s\n", cp_kernel_find(FEATURE) ? "yes" : "no");
}

Test(env, disable_unknown_token_reported_rest_applied)
{
	skip_without_feature();
	const char *const e[] = { "CLEARPAGES_DISABLE", "nonsense," FEATURE, NULL };
	struct child_out co = in_child(e, find_feature_kernel);
	char b[16];
	cr_assert_str_eq(field(&co, "find=", b, sizeof(b)), "no");
	cr_assert_eq(count_lines(co.err), 1, "stderr: %s", co.err);
	cr_assert(strstr(co.err, "CLEARPAGES_DISABLE") && strstr(co.err, "nonsense"), "%s", co.err);
}

Test(env, nt_threshold_sizes)
{
	static const struct { const char *value; const char *nt_from; } cases[] = {
		{ "64k", "16" }, { "64K", "16" }, { "1M", "256" }, { "2g", "524288" },
		{ "8192", "2" }, { "5000", "2" }, { "0", "0" }, { "4096", "1" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *const e[] = { "CLEARPAGES_NT_THRESHOLD", cases[i].value, NULL };
		struct child_out co = in_child(e, report);
		char b[64];
		cr_assert_str_eq(field(&co, "nt_from=", b, sizeof(b)), cases[i].nt_from,
				 "CLEARPAGES_NT_THRESHOLD=%s", cases[i].value);
		cr_assert_str_empty(co.err);
	}
	const char *const zero[] = { "CLEARPAGES_NT_THRESHOLD", "0", NULL };
	struct child_out co = in_child(zero, report);
	char b[64], b2[64];
	cr_assert_str_eq(field(&co, "for1=", b, sizeof(b)), field(&co, "cold=", b2, sizeof(b2)),
			 "0 = always non-temporal");
}

Test(env, nt_threshold_bad_values)
{
	struct child_out base = in_child(no_env, report);
	static const char *const bad[] = { "12x", "-1", "k", "1MB", " 5", "99999999999999999999",
					   "18014398509481984k", "0x10", "1.5M" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *const e[] = { "CLEARPAGES_NT_THRESHOLD", bad[i], NULL };
		struct child_out co = in_child(e, report);
		char b[64], b2[64];
		cr_assert_eq(count_lines(co.err), 1, "'%s': stderr: %s", bad[i], co.err);
		cr_assert(strstr(co.err, "CLEARPAGES_NT_THRESHOLD") && strstr(co.err, bad[i]),
			  "%s", co.err);
		cr_assert_str_eq(field(&co, "nt_from=", b, sizeof(b)),
				 field(&base, "nt_from=", b2, sizeof(b2)), "'%s' must be ignored", bad[i]);
	}
}

Test(env, quiet_silences_messages)
{
	const char *const e[] = { "CLEARPAGES_QUIET", "1", "CLEARPAGES_KERNEL", "nope",
				  "CLEARPAGES_DISABLE", "what", "CLEARPAGES_NT_THRESHOLD", "x", NULL };
	struct child_out co = in_child(e, report);
	cr_assert_str_empty(co.err);
	const char *const bad[] = { "CLEARPAGES_QUIET", "yes", NULL };
	co = in_child(bad, report);
	cr_assert_eq(count_lines(co.err), 1, "stderr: %s", co.err);
	cr_assert(strstr(co.err, "CLEARPAGES_QUIET") && strstr(co.err, "yes"), "%s", co.err);
}

/* 16 threads make the very first call at once: one initialisation, one answer. */
#define NTHREADS 16
static pthread_barrier_t start;
static const struct cp_kernel *seen[NTHREADS];

static void *first_call(void *arg)
{
	size_t id = (size_t)arg, pages = 1 + id * 3;
	unsigned char *p = aligned_alloc(CP_PAGE_SIZE, pages * CP_PAGE_SIZE);
	memset(p, FILL, pages * CP_PAGE_SIZE);
	pthread_barrier_wait(&start);
	if (cp_clear_pages(p, pages) || first_not(p, pages * CP_PAGE_SIZE, 0) != pages * CP_PAGE_SIZE)
		_exit(4);
	seen[id] = cp_kernel_for(1);
	free(p);
	return NULL;
}

CHILD_BODY(sixteen_threads)
{
	pthread_t t[NTHREADS];
	pthread_barrier_init(&start, NULL, NTHREADS);
	for (size_t i = 0; i < NTHREADS; i++)
		if (pthread_create(&t[i], NULL, first_call, (void *)i))
			_exit(5);
	for (size_t i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	for (size_t i = 1; i < NTHREADS; i++)
		if (seen[i] != seen[0])
			_exit(6);
	printf("ok=%s\n", seen[0]->name);
}

Test(env, first_call_from_16_threads)
{
	for (int round = 0; round < 8; round++) {
		struct child_out co = in_child(no_env, sixteen_threads);
		cr_assert(strstr(co.out, "ok="), "%s", co.out);
	}
}
