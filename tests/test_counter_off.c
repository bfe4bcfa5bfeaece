/* SPDX-License-Identifier: MIT */
/*
 * A counter the thread may not read. PR_SET_TSC (x86) is per thread and can
 * come after the first use (sandboxes, record/replay debuggers): a read of
 * the TSC, or of the vDSO's clock, then kills the caller with SIGSEGV. Every
 * path that times (the small calls' history, the per-batch plans, the rate's
 * calibration, parallel shares on workers, the resident fill's ramp, the
 * copy history and the copies' timed chunks) must
 * then decide by extent alone and clear. A fresh process (the setting is the
 * process's threads'): first use with the counter, then off, then every path.
 */
#include "testutil.h"
#include <errno.h>
#include <pthread.h>

#define NOT_HERE 77     /* no PR_SET_TSC (not x86): skipped */

static int zeroed(const unsigned char *p, size_t len)
{
	for (size_t i = 0; i < len; i += 512)
		if (p[i] || p[i + 511])
			return 0;
	return 1;
}

/* Clear each extent through the timing paths; 0, or the failing step. */
static int every_timing_path(int step0)
{
	static const size_t extents[] = { 1, 4, 16, 64, 200, 256, 512, 2048, 4096 };
	size_t most = 4096 * PG;
	unsigned char *buf = mmap(NULL, 2 * most, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return step0;
	int step = step0;
	for (size_t e = 0; e < sizeof(extents) / sizeof(extents[0]); e++) {
		size_t len = extents[e] * PG;
		/* 300 calls over alternating ranges: the histories time one in 64 */
		for (unsigned i = 0; i < (extents[e] < 256 ? 300u : 3u); i++) {
			unsigned char *p = buf + (i & 1) * most;
			memset(p, 0xa5, len);
			if (cp_clear_pages(p, extents[e]) || !zeroed(p, len))
				return step + 1;
			memset(p, 0xa5, len);
			if (cp_clear_pages_cold(p, extents[e]) || !zeroed(p, len))
				return step + 2;
		}
		step += 2;
	}
	memset(buf, 0xa5, 2 * most);
	if (cp_clear_huge(buf, 2048, 700) || !zeroed(buf, 2048 * PG))
		return step + 1;
	if (cp_clear_pages_parallel(buf, 2 * 4096, 2) || !zeroed(buf, 2 * most))
		return step + 2;
	memset(buf, 0xa5, 2 * most);
	if (cp_zero(buf + 3, 2 * most - 6, CP_ZERO_MAY_DISCARD) || !zeroed(buf + 512, 2 * most - 1024))
		return step + 3;
	munmap(buf, 2 * most);
	return 0;
}

/* Copy each extent through the copy estimate's paths (the thread's copy
 * history below 1 MiB, a timed chunk per call from there), alternating two
 * destinations; 0, or the failing step. */
static int every_copy_path(int step0)
{
	static const size_t extents[] = { 1, 4, 16, 64, 200, 256, 512, 2048 };
	size_t most = 2048 * PG;
	unsigned char *buf = mmap(NULL, 3 * most, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return step0;
	unsigned char *src = buf + 2 * most;
	for (size_t i = 0; i < most; i++)
		src[i] = (unsigned char)(i * 7 + 1);
	/* the copy history times one call in 64 and more: at least two timed */
	unsigned calls = test_quick() ? 130u : 300u;
	int step = step0;
	for (size_t e = 0; e < sizeof(extents) / sizeof(extents[0]); e++) {
		size_t len = extents[e] * PG;
		for (unsigned i = 0; i < (extents[e] < 256 ? calls : 3u); i++) {
			unsigned char *p = buf + (i & 1) * most;
			memset(p, 0xa5, len);
			if (cp_copy_pages(p, src, extents[e]) || memcmp(p, src, len))
				return step + 1;
			memset(p, 0xa5, len);
			if (cp_copy(p, src, len, 0) || memcmp(p, src, len))
				return step + 2;
		}
		step += 2;
	}
	munmap(buf, 3 * most);
	return 0;
}

static void *enabled_thread(void *arg)
{
	(void)arg;
	/* this thread may read it again; the pool's workers were made by one
	 * that may not, and must not read it for this thread's plan */
	if (prctl(PR_SET_TSC, PR_TSC_ENABLE, 0, 0, 0))
		return (void *)(intptr_t)90;
	int r = every_timing_path(60);
	return (void *)(intptr_t)(r ? r : every_copy_path(160));
}

CHILD_BODY(counter_turned_off_after_first_use)
{
	if (every_timing_path(0) || every_copy_path(100))    /* first use, with the counter */
		_exit(99);
	if (prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0))
		_exit(errno == EINVAL ? NOT_HERE : 98);
	int r = every_timing_path(30);
	if (!r)
		r = every_copy_path(130);
	if (r)
		_exit(r);
	if (!test_quick() && !test_under_valgrind()) {
		/* the resident fill's ramp times phases of a fill from 512 MiB */
		size_t len = (size_t)512 << 20;
		unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			_exit(97);
		if (cp_zero(p, len, CP_ZERO_RESIDENT | CP_ZERO_PARALLEL) || !zeroed(p, len))
			_exit(50);
		munmap(p, len);
	}
	pthread_t t;
	void *ret;
	if (pthread_create(&t, NULL, enabled_thread, NULL) || pthread_join(t, &ret))
		_exit(96);
	_exit((int)(intptr_t)ret);
}

Test(counter_off, pr_set_tsc_after_first_use_decides_by_extent, .timeout = 120)
{
	struct child_out co = run_child(no_env, "counter_turned_off_after_first_use");
	if (WIFEXITED(co.status) && WEXITSTATUS(co.status) == NOT_HERE)
		cr_skip_test("PR_SET_TSC is refused here (x86 only): no counter to turn off");
	cr_assert(!WIFSIGNALED(co.status),
		  "killed by signal %d after PR_SET_TSC(PR_TSC_SIGSEGV) (11: the TSC or the "
		  "vDSO's clock was read)", WTERMSIG(co.status));
	cr_assert(WIFEXITED(co.status) && WEXITSTATUS(co.status) == 0,
		  "step %d failed (status 0x%x): %s", WEXITSTATUS(co.status), co.status, co.err);
}
