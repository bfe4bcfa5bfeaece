/* SPDX-License-Identifier: MIT */
/*
 * A copy whose source is a shared file mapping truncated under it: the
 * source is a memfd (a tmpfile where there is none) of n pages, mapped
 * shared, cut to n/2 pages before the copy, so the copy reads its first
 * half and faults on the second. Through cp_copy_pages, cp_copy (flags 0,
 * CP_COPY_HOT, CP_COPY_COLD) and every listed copy kernel, at 4, 64 and
 * 1024 pages (the bands, the thread's copy history, a timed chunk and the
 * call in two pieces of cp_copy's 4080 KiB at most):
 *  - the copy faults with SIGBUS, on the source's cut half (si_addr);
 *  - nothing is written outside [dst, dst + len): a page of FILL each side,
 *    guard pages past those (a stray store faults: SIGSEGV, reported);
 *  - each byte of dst over the source's first half is the source's byte or
 *    the old FILL, nothing else; over the cut half it is still FILL (no
 *    store of what was never read);
 *  - the library still works: the same destination then takes an exact
 *    cp_copy_pages of a good source, the same extent.
 * The handler leaves by siglongjmp (the contract allows it on the caller's
 * thread: include/clearpages.h, ATTRIBUTES); it is installed for this test
 * and the old handlers restored after.
 */
#include "testutil.h"
#include "copy_pattern.h"
#include <errno.h>
#include <setjmp.h>
#include <sys/syscall.h>

#define SEED_CUT  0x7c0feeull      /* the truncated source */
#define SEED_GOOD 0x600dull        /* the good one after */

static sigjmp_buf jump;
static volatile sig_atomic_t armed, fault_sig;
static void *volatile fault_addr;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (!armed) {                   /* not ours: the default action, at once */
		signal(sig, SIG_DFL);
		return;
	}
	armed = 0;
	fault_sig = sig;
	fault_addr = si->si_addr;
	siglongjmp(jump, 1);
}

enum call { COPY_PAGES, COPY_0, COPY_HOT, COPY_COLD, KERNEL };
static const char *const call_names[] = { "cp_copy_pages", "cp_copy(0)", "cp_copy(HOT)",
					  "cp_copy(COLD)", "kernel" };

/* The call under the handler: 0 when it returned (rc in *rc), else the signal. */
static int faulting_call(enum call c, const struct cp_copy_kernel *k, void *dst,
			 const void *src, size_t n, int *rc)
{
	fault_sig = 0;
	fault_addr = NULL;
	*rc = 0;
	if (sigsetjmp(jump, 1))
		return fault_sig;
	armed = 1;
	switch (c) {
	case COPY_PAGES: *rc = cp_copy_pages(dst, src, n); break;
	case COPY_0:     *rc = cp_copy(dst, src, n * PG, 0); break;
	case COPY_HOT:   *rc = cp_copy(dst, src, n * PG, CP_COPY_HOT); break;
	case COPY_COLD:  *rc = cp_copy(dst, src, n * PG, CP_COPY_COLD); break;
	case KERNEL:     k->copy(dst, src, n); break;
	}
	armed = 0;
	return 0;
}

/* The source file: n pages of pattern(SEED_CUT), whole again. */
static void source_whole(int fd, const unsigned char *pattern, size_t n)
{
	cr_assert_eq(ftruncate(fd, (off_t)(n * PG)), 0, "ftruncate: %s", strerror(errno));
	for (size_t at = 0; at < n * PG;) {
		ssize_t w = pwrite(fd, pattern + at, n * PG - at, (off_t)at);
		cr_assert_gt(w, 0, "pwrite: %s", strerror(errno));
		at += (size_t)w;
	}
}

/* One cut copy of n pages and its checks; the good copy after. Returns the
 * source pages that reached dst whole (logged). */
static size_t cut_copy(enum call c, const struct cp_copy_kernel *k, int fd,
		       const unsigned char *src, const unsigned char *pattern,
		       struct copy_pair *good, size_t n)
{
	const char *who = c == KERNEL ? k->name : call_names[c];
	size_t half = n / 2, pad = good->pad * PG;
	unsigned char *dst = good->d;
	source_whole(fd, pattern, n);
	memset(good->dst.mem, FILL, good->dst.len);
	cr_assert_eq(ftruncate(fd, (off_t)(half * PG)), 0, "ftruncate: %s", strerror(errno));
	int rc, sig = faulting_call(c, k, dst, src, n, &rc);
	cr_assert_neq(sig, SIGSEGV, "%s, %zu pages: SIGSEGV at %p (dst [%p, +%zu), guards "
		      "around its fill): a store strayed", who, n, fault_addr, (void *)dst, n * PG);
	cr_assert_eq(sig, SIGBUS, "%s, %zu pages from a source cut to %zu: returned %d, "
		     "no SIGBUS", who, n, half, rc);
	const unsigned char *at = fault_addr;
	cr_assert(at >= src + half * PG && at < src + n * PG, "%s, %zu pages: SIGBUS at %p, "
		  "not on the cut half of the source [%p, +%zu)", who, n, fault_addr,
		  (const void *)(src + half * PG), (n - half) * PG);
	size_t before = first_not(good->dst.mem, pad, FILL);
	cr_assert_eq(before, pad, "%s, %zu pages: byte %zd before dst written", who, n,
		     (ssize_t)before - (ssize_t)pad);
	size_t after = first_not(dst + n * PG, pad, FILL);
	cr_assert_eq(after, pad, "%s, %zu pages: byte %zu after dst + len written", who, n,
		     after);
	size_t whole = 0;
	for (size_t pg = 0; pg < half; pg++) {
		const unsigned char *d = dst + pg * PG, *s = pattern + pg * PG;
		if (!memcmp(d, s, PG)) {
			whole++;
			continue;
		}
		for (size_t i = 0; i < PG; i++)
			cr_assert(d[i] == s[i] || d[i] == FILL, "%s, %zu pages cut to %zu: dst byte "
				  "%zu is 0x%02x, neither the source's 0x%02x nor the old 0x%02x",
				  who, n, half, pg * PG + i, d[i], s[i], FILL);
	}
	size_t cut = first_not(dst + half * PG, (n - half) * PG, FILL);
	cr_assert_eq(cut, (n - half) * PG, "%s, %zu pages cut to %zu: dst byte %zu, over the "
		     "cut half, is 0x%02x: stored without a source", who, n, half,
		     half * PG + cut, dst[half * PG + cut]);
	/* the library after the jump: an exact copy of a good source */
	memset(good->dst.mem, FILL, good->dst.len);
	cr_assert_eq(cp_copy_pages(dst, good->s, n), 0);
	char why[300];
	cr_assert(!copy_pair_verify(good, why, sizeof(why)), "after %s's SIGBUS: %s", who, why);
	return whole;
}

Test(copy_truncated, a_source_cut_mid_copy_faults_and_writes_nothing_else)
{
	int fd = (int)syscall(SYS_memfd_create, "cp_copy_truncated", 1u /* MFD_CLOEXEC */);
	const char *file = "memfd";
	if (fd < 0) {
		FILE *t = tmpfile();
		fd = t ? dup(fileno(t)) : -1;
		if (t)
			fclose(t);
		file = "tmpfile";
	}
	if (fd < 0)
		cr_skip_test("neither memfd_create nor tmpfile gives a file to truncate: %s",
			     strerror(errno));
	const struct cp_copy_kernel *const *list;
	size_t nkernels = cp_copy_kernels(&list);    /* initialised outside the handler */
	struct sigaction sa, old_bus, old_segv;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	cr_assert_eq(sigaction(SIGBUS, &sa, &old_bus), 0);
	cr_assert_eq(sigaction(SIGSEGV, &sa, &old_segv), 0);
	static const size_t extents[] = { 4, 64, 1024 };
	size_t nextents = test_quick() ? 2 : 3;
	unsigned cases = 0;
	for (size_t e = 0; e < nextents; e++) {
		size_t n = extents[e];
		unsigned char *pattern = malloc(n * PG);
		cr_assert(pattern);
		pattern_fill(pattern, n, SEED_CUT);
		source_whole(fd, pattern, n);
		unsigned char *src = mmap(NULL, n * PG, PROT_READ, MAP_SHARED, fd, 0);
		cr_assert(src != MAP_FAILED, "mmap of the %s: %s", file, strerror(errno));
		struct copy_pair good;
		cr_assert_eq(copy_pair_map(&good, n, 1, SEED_GOOD), 0);
		for (unsigned c = COPY_PAGES; c < KERNEL; c++, cases++)
			cr_log_info("%zu pages, %s: %zu of %zu present pages copied before SIGBUS",
				    n, call_names[c], cut_copy(c, NULL, fd, src, pattern, &good, n),
				    n / 2);
		for (size_t i = 0; i < nkernels; i++, cases++)
			cr_log_info("%zu pages, kernel %s: %zu of %zu present pages copied", n,
				    list[i]->name,
				    cut_copy(KERNEL, list[i], fd, src, pattern, &good, n), n / 2);
		copy_pair_unmap(&good);
		munmap(src, n * PG);
		free(pattern);
	}
	cr_assert_eq(sigaction(SIGBUS, &old_bus, NULL), 0);
	cr_assert_eq(sigaction(SIGSEGV, &old_segv, NULL), 0);
	close(fd);
	cr_log_info("%u cut copies from a %s, each SIGBUS on the cut half", cases, file);
}
