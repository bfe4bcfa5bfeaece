/* SPDX-License-Identifier: MIT */
/*
 * Async-signal safety after initialisation: once the library has been used,
 * cp_clear_pages/_hot/_cold, cp_clear and cp_kernel_for are one acquire load,
 * a kernel call and memset, so a signal handler may call them. (The first
 * call initialises with pthread_once and getenv: not safe in a handler.)
 * tests/README.md lists the entry points.
 */
#include "testutil.h"
#include "parallel.h"
#include <setjmp.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/time.h>

#define HANDLER_PAGES 3

static unsigned char *handler_buf;              /* HANDLER_PAGES pages, FILL-ed */
static volatile sig_atomic_t handler_runs, handler_failures;

/* Only async-signal-safe work here: the library's calls and plain loops. */
static void clear_in_handler(int sig)
{
	(void)sig;
	const size_t len = HANDLER_PAGES * CP_PAGE_SIZE;
	int bad = 0;
	memset(handler_buf, FILL, len);
	bad |= cp_clear_pages(handler_buf, 1) != 0;
	bad |= cp_clear_pages_hot(handler_buf + CP_PAGE_SIZE, 1) != 0;
	bad |= cp_clear(handler_buf + 2 * CP_PAGE_SIZE + 1, CP_PAGE_SIZE - 2) != 0;
	bad |= first_not(handler_buf, 2 * CP_PAGE_SIZE, 0) != 2 * CP_PAGE_SIZE;
	bad |= handler_buf[2 * CP_PAGE_SIZE] != FILL || handler_buf[len - 1] != FILL;
	bad |= first_not(handler_buf + 2 * CP_PAGE_SIZE + 1, CP_PAGE_SIZE - 2, 0) !=
	       CP_PAGE_SIZE - 2;
	bad |= cp_clear_pages_cold(handler_buf, HANDLER_PAGES) != 0;
	bad |= first_not(handler_buf, len, 0) != len;
	bad |= cp_kernel_for(1) == NULL;
	handler_failures += bad;
	handler_runs++;
}

static struct guarded setup_handler(int sig)
{
	struct guarded g = guarded_map(HANDLER_PAGES);
	handler_buf = g.mem;
	handler_runs = handler_failures = 0;
	cr_assert_gt(cp_kernels(NULL), 0);              /* initialise outside the handler */
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = clear_in_handler;
	sa.sa_flags = SA_RESTART;          /* Criterion's own system calls go on */
	cr_assert_eq(sigaction(sig, &sa, NULL), 0);
	return g;
}

Test(signal, handler_clears_after_init)
{
	struct guarded g = setup_handler(SIGUSR1);
	cr_assert_eq(raise(SIGUSR1), 0);
	cr_assert_eq(handler_runs, 1);
	cr_assert_eq(handler_failures, 0, "a clear inside the handler went wrong");
	guard_unmap(&g);
}

/* A timer interrupts clears in progress here (rep stosb is interruptible, the
 * vector kernels lose nothing to a handler that uses vector registers too):
 * both the handler's clears and the interrupted ones must come out exact. */
Test(signal, handler_interrupts_clears_in_progress)
{
	struct guarded g = setup_handler(SIGALRM);
	const size_t pages = test_quick() ? 64 : 512;
	struct guarded big = guarded_map(pages);
	const struct cp_kernel *const *list;
	size_t nk = cp_kernels(&list);
	struct itimerval every = { { 0, 200 }, { 0, 200 } }, off = { { 0, 0 }, { 0, 0 } };
	int rounds = test_quick() ? 20 : 200;

	cr_assert_eq(setitimer(ITIMER_REAL, &every, NULL), 0);
	for (int r = 0; r < rounds; r++) {
		const struct cp_kernel *k = list[(size_t)r % nk];
		memset(big.mem, FILL, big.len);
		int rc = 0;
		if (r % 2)
			k->clear(big.mem, pages);
		else
			rc = cp_clear_pages(big.mem, pages);
		size_t bad = rc ? 0 : first_not(big.mem, big.len, 0);
		if (bad != big.len) {
			setitimer(ITIMER_REAL, &off, NULL);
			cr_assert_fail("%s: byte %zu not zero after being interrupted",
				       r % 2 ? k->name : "cp_clear_pages", bad);
		}
	}
	cr_assert_eq(setitimer(ITIMER_REAL, &off, NULL), 0);
	cr_assert_gt(handler_runs, 0, "the timer never fired");
	cr_assert_eq(handler_failures, 0, "%d of %d clears in the handler went wrong",
		     (int)handler_failures, (int)handler_runs);
	cr_log_info("%d handler runs during %d clears", (int)handler_runs, rounds);
	guard_unmap(&big);
	guard_unmap(&g);
}

/*
 * Faults in the shares of a parallel clear reach the application's handler,
 * on whichever thread clears the share: a read-only page (SIGSEGV) or a page
 * past the end of a shared file mapping (SIGBUS) that the handler repairs
 * before returning. The split is forced into four shares (the internal
 * cp__clear_pages_parallel_min), whatever a profile says about splitting.
 */
#define SHARES 4u
#define FAULT_SECONDS 5        /* bound on a call plus a fork: a hang fails */

enum on_fault { REPAIR, REPAIR_THEN_FORK, REPAIR_THEN_LONGJMP };
static struct {
	unsigned char *page;       /* the page that faults */
	int memfd;                 /* SIGBUS: the file, restored to file_len */
	off_t file_len;
	enum on_fault action;
} fault;
static volatile sig_atomic_t fault_runs, fault_tid, fork_status;
static sigjmp_buf escape;

static pid_t tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	unsigned char *at = si->si_addr;
	if (at < fault.page || at >= fault.page + PG) {
		signal(sig, SIG_DFL);    /* not the planned fault: it recurs, unhandled */
		return;
	}
	fault_runs++;
	fault_tid = tid();
	if (sig == SIGBUS)
		ftruncate(fault.memfd, fault.file_len);
	else
		mprotect(fault.page, PG, PROT_READ | PROT_WRITE);
	if (fault.action == REPAIR_THEN_FORK) {
		pid_t pid = fork();
		if (pid == 0)
			_exit(0);
		int status = -1;
		fork_status = pid > 0 && waitpid(pid, &status, 0) == pid ? status : -1;
	} else if (fault.action == REPAIR_THEN_LONGJMP) {
		siglongjmp(escape, 1);
	}
}

static size_t fault_pages(void)
{
	return test_quick() ? 2048 : 8192;      /* 32 MiB natively */
}

static void catch_faults(int sig, unsigned char *page, enum on_fault action)
{
	cr_assert_gt(cp_kernels(NULL), 0);
	fault.page = page;
	fault.action = action;
	fault_runs = fault_tid = 0;
	fork_status = -1;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO;
	cr_assert_eq(sigaction(sig, &sa, NULL), 0);
}

/* The parallel clear of [mem, +pages) in SHARES shares, bounded in time. */
static int clear_in_shares(unsigned char *mem, size_t pages)
{
	alarm(FAULT_SECONDS);
	int rc = cp__clear_pages_parallel_min(mem, pages, SHARES, pages / SHARES);
	alarm(0);
	return rc;
}

/* g filled, and its first or last page read-only until the handler repairs it. */
enum { FIRST_PAGE, LAST_PAGE };
static void arm_sigsegv(struct guarded *g, int which, enum on_fault action)
{
	memset(g->mem, FILL, g->len);
	unsigned char *page = which == LAST_PAGE ? g->mem + g->len - PG : g->mem;
	catch_faults(SIGSEGV, page, action);
	cr_assert_eq(mprotect(page, PG, PROT_READ), 0);
}

static void assert_zero(const unsigned char *mem, size_t len, const char *who)
{
	size_t bad = first_not(mem, len, 0);
	cr_assert_eq(bad, len, "%s: byte %zu not zero", who, bad);
}

Test(signal, sigsegv_in_a_worker_share_reaches_the_handler)
{
	size_t pages = fault_pages();
	struct guarded g = guarded_map(pages);
	arm_sigsegv(&g, LAST_PAGE, REPAIR);
	cr_assert_eq(clear_in_shares(g.mem, pages), 0);
	cr_assert_eq(fault_runs, 1, "the handler ran %d times", (int)fault_runs);
	cr_assert_neq(fault_tid, tid(), "the last share was cleared on the calling thread");
	assert_zero(g.mem, g.len, "after a handled SIGSEGV in the last share");
	guard_unmap(&g);
}

Test(signal, sigbus_in_a_worker_share_reaches_the_handler)
{
	size_t pages = fault_pages(), len = pages * PG;
	int fd = memfd_create("cp_test_sigbus", MFD_CLOEXEC);
	cr_assert(fd >= 0);
	cr_assert_eq(ftruncate(fd, (off_t)len), 0);
	unsigned char *mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	cr_assert(mem != MAP_FAILED);
	memset(mem, FILL, len);
	catch_faults(SIGBUS, mem + len - PG, REPAIR);
	fault.memfd = fd;
	fault.file_len = (off_t)len;
	cr_assert_eq(ftruncate(fd, (off_t)(len - PG)), 0);   /* last page past the end */
	cr_assert_eq(clear_in_shares(mem, pages), 0);
	cr_assert_eq(fault_runs, 1, "the handler ran %d times", (int)fault_runs);
	cr_assert_neq(fault_tid, tid(), "the last share was cleared on the calling thread");
	assert_zero(mem, len, "after a handled SIGBUS in the last share");
	munmap(mem, len);
	close(fd);
}

static void clear_abandoned_by_longjmp(unsigned char *mem, size_t pages)
{
	if (sigsetjmp(escape, 1) == 0) {
		clear_in_shares(mem, pages);
		cr_assert_fail("the caller's share did not fault");
	}
	alarm(0);      /* the jump left clear_in_shares before it could */
}

/* A handler that longjmps out of the caller's own share abandons the call:
 * the next call must split again (a fault in its last share is repaired on a
 * worker) and fork must not wait for the abandoned call forever. */
Test(signal, longjmp_out_of_a_parallel_call_leaves_the_pool_usable)
{
	size_t pages = fault_pages();
	struct guarded g = guarded_map(pages);
	arm_sigsegv(&g, FIRST_PAGE, REPAIR_THEN_LONGJMP);
	clear_abandoned_by_longjmp(g.mem, pages);
	cr_assert_eq(fault_runs, 1);

	arm_sigsegv(&g, LAST_PAGE, REPAIR);
	cr_assert_eq(clear_in_shares(g.mem, pages), 0);
	cr_assert_eq(fault_runs, 1);
	cr_assert_neq(fault_tid, tid(), "after the longjmp the next call ran on one thread");
	assert_zero(g.mem, g.len, "the call after a longjmp");

	alarm(FAULT_SECONDS);
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	int status;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	alarm(0);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	guard_unmap(&g);
}

/* fork() from a handler that interrupted the caller's share: the pool's fork
 * handlers must not wait on a lock this very thread holds. */
Test(signal, fork_in_a_handler_during_a_parallel_call)
{
	size_t pages = fault_pages();
	struct guarded g = guarded_map(pages);
	arm_sigsegv(&g, FIRST_PAGE, REPAIR_THEN_FORK);
	cr_assert_eq(clear_in_shares(g.mem, pages), 0, "SIGALRM = fork deadlocked");
	cr_assert_eq(fault_runs, 1);
	cr_assert(fork_status != -1 && WIFEXITED(fork_status) && WEXITSTATUS(fork_status) == 0,
		  "the child forked in the handler: status 0x%x", (int)fork_status);
	assert_zero(g.mem, g.len, "after a fork in the handler");
	guard_unmap(&g);
}
