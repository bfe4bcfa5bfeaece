/* SPDX-License-Identifier: MIT */
/*
 * One property over every kernel of a list (clear kernels: tests/test_kernels.c,
 * copy kernels: tests/test_copy.c), simdutf-style: each kernel's result is
 * recorded, a fault (a store past a guard, an instruction the CPU lacks)
 * included, before the test fails, so a broken kernel never hides the ones
 * after it and the failure names every kernel that failed. Criterion.
 */
#ifndef CP_EVERY_KERNEL_H
#define CP_EVERY_KERNEL_H

#include "testutil.h"
#include "testhooks.h"
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>

/* Kernel i of the caller's list (ctx): its name, and one run of the property
 * on it: 0, or -1 with why[]. */
typedef const char *every_name(const void *ctx, size_t i);
typedef int every_run(const void *ctx, size_t i, char *why, size_t whylen);

static sigjmp_buf every_fault_return;
static volatile sig_atomic_t every_fault_signal;

static void every_on_fault(int sig)
{
	every_fault_signal = sig;
	siglongjmp(every_fault_return, 1);
}

static inline void check_every(const char *property, size_t n, every_name *name,
			       every_run *run, const void *ctx)
{
	static const int sigs[] = { SIGSEGV, SIGBUS, SIGILL };
	struct sigaction sa, old[3];
	volatile size_t nfailed = 0;
	char results[4096] = "", failed[512] = "";

	cr_assert(n > 0, "%s: no usable kernel", property);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = every_on_fault;
	sa.sa_flags = SA_NODEFER;
	for (size_t s = 0; s < 3; s++)
		sigaction(sigs[s], &sa, &old[s]);
	for (size_t i = 0; i < n; i++) {
		volatile size_t vi = i;
		char why[256] = "";
		int rc;
		every_fault_signal = 0;
		if (sigsetjmp(every_fault_return, 1) == 0)
			rc = run(ctx, vi, why, sizeof(why));
		else
			rc = -1, snprintf(why, sizeof(why), "killed by %s",
					  strsignal(every_fault_signal));
		if (rc) {
			nfailed++;
			snprintf(failed + strlen(failed), sizeof(failed) - strlen(failed), "%s%s",
				 nfailed > 1 ? ", " : "", name(ctx, vi));
		}
		snprintf(results + strlen(results), sizeof(results) - strlen(results),
			 "\n    %-12s %s%s%s", name(ctx, vi), rc ? "FAIL" : "PASS", rc ? ": " : "",
			 why);
	}
	for (size_t s = 0; s < 3; s++)
		sigaction(sigs[s], &old[s], NULL);
	cr_assert(nfailed == 0, "%s: %zu of %zu kernels failed (%s):%s",
		  property, nfailed, n, failed, results);
}

/* " tok1 tok2": the CLEARPAGES_DISABLE tokens of the features in needs (the
 * reason an availability test gives for a kernel it skips). */
static inline void every_needs(unsigned needs, char *buf, size_t size)
{
	buf[0] = '\0';
	for (size_t i = 0; i < cp__feature_tokens_len; i++)
		if (needs & cp__feature_tokens[i].feature)
			snprintf(buf + strlen(buf), size - strlen(buf), " %s",
				 cp__feature_tokens[i].token);
}

#endif
