/* SPDX-License-Identifier: MIT */
/*
 * Async-signal safety after initialisation: once the library has been used,
 * cp_clear_pages/_hot/_cold, cp_clear and cp_kernel_for are one acquire load,
 * a kernel call and memset, so a signal handler may call them. (The first
 * call initialises with pthread_once and getenv: not safe in a handler.)
 * tests/README.md lists the entry points. cp_clear_pages_parallel is not
 * async-signal-safe, but a handler's parallel call or fork never deadlocks on
 * the pool: a timer against a loop of parallel calls checks both.
 */
#include "testutil.h"
#include "parallel.h"
#include "route.h"
#include "state.h"
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>

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
	signal(SIGALRM, SIG_IGN);   /* one still pending must not find g unmapped */
	cr_assert_gt(handler_runs, 0, "the timer never fired");
	cr_assert_eq(handler_failures, 0, "%d of %d clears in the handler went wrong",
		     (int)handler_failures, (int)handler_runs);
	cr_log_info("%d handler runs during %d clears", (int)handler_runs, rounds);
	guard_unmap(&big);
	guard_unmap(&g);
}

/* cp_clear_pages_cold below 2 MiB keeps the thread's verdict and when to time
 * next (history.c, written after each timed call): a 200 us timer whose
 * handler makes small cold calls of its own lands inside the main loop's,
 * thousands of calls apart. The buffer is flushed from the caches before each
 * round, so that natively the verdicts go uncached and the timing spaces out
 * to 256 calls, with the seeded calls before it. Every clear must be exact. */
Test(signal, handler_interrupts_small_cold_clears)
{
	struct guarded g = setup_handler(SIGALRM);
	const size_t pages = 256, step = 4;         /* 64 calls a round, all below 1 MiB */
	struct guarded big = guarded_map(pages);
	struct itimerval every = { { 0, 200 }, { 0, 200 } }, off = { { 0, 0 }, { 0, 0 } };
	int rounds = test_quick() ? 40 : 400, rc = 0;
	size_t bad = big.len;
	cr_assert_eq(setitimer(ITIMER_REAL, &every, NULL), 0);
	for (int r = 0; r < rounds && !rc && bad == big.len; r++) {
		memset(big.mem, FILL, big.len);
		flush_from_caches(big.mem, big.len);
		for (size_t at = 0; at < pages && !rc; at += step)
			rc = cp_clear_pages_cold(big.mem + at * CP_PAGE_SIZE, step);
		bad = first_not(big.mem, big.len, 0);
	}
	cr_assert_eq(setitimer(ITIMER_REAL, &off, NULL), 0);
	signal(SIGALRM, SIG_IGN);   /* and one still pending (valgrind delivers late) */
	cr_assert_eq(rc, 0, "cp_clear_pages_cold failed");
	cr_assert_eq(bad, big.len, "byte %zu not zero after being interrupted", bad);
	cr_assert_gt(handler_runs, 0, "the timer never fired");
	cr_assert_eq(handler_failures, 0, "%d of %d clears in the handler went wrong",
		     (int)handler_failures, (int)handler_runs);
	guard_unmap(&big);
	guard_unmap(&g);
}

/* From the estimate's extent cp_clear_pages keeps the thread's last range
 * (history.c), read at a call's start and written back at its end: a timer
 * whose handler clears another range of that extent lands inside the
 * main loop's clears (each takes the whole window), many times. Both must
 * come out exact; then the main range, cleared again, still is. */
static unsigned char *estimated_buf;
static size_t estimated_pages;

static struct itimerval estimated_tick;          /* one-shot: the handler re-arms it */
static volatile sig_atomic_t estimated_ticking;   /* ... while this is set */

static void clear_estimated_in_handler(int sig)
{
	(void)sig;
	int bad = cp_clear_pages(estimated_buf, estimated_pages) != 0;
	bad |= first_not(estimated_buf, estimated_pages * CP_PAGE_SIZE, 0) !=
	       estimated_pages * CP_PAGE_SIZE;
	handler_failures += bad;
	handler_runs++;
	if (estimated_ticking)
		setitimer(ITIMER_REAL, &estimated_tick, NULL);
}

/* Fill, clear through cp_clear_pages, check: the bytes zero from the start
 * (all of them when right; 0 when the call failed). */
static size_t estimated_round(struct guarded *g, size_t pages)
{
	memset(g->mem, FILL, g->len);
	if (cp_clear_pages(g->mem, pages))
		return 0;
	return first_not(g->mem, g->len, 0);
}

#define now_seconds test_now_seconds

/* Race a handler's clears of `pages` against the main loop's, `rounds`
 * rounds (a tenth when quick), the timer at least min_tick_us apart: a round
 * of a few pages takes microseconds, and a tick that short would leave the
 * loop nothing but handlers to run. */
static void race_estimated(size_t pages, int rounds, uint64_t min_tick_us)
{
	struct guarded mine = guarded_map(pages), theirs = guarded_map(pages);
	estimated_buf = theirs.mem;
	estimated_pages = pages;
	handler_runs = handler_failures = 0;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = clear_estimated_in_handler;
	sa.sa_flags = SA_RESTART;
	cr_assert_eq(sigaction(SIGALRM, &sa, NULL), 0);
	/* the tick comes half a round after the handler's last run, so each
	 * round here (fill, clear, check) is interrupted about twice, natively,
	 * under valgrind and under qemu (a fixed period shorter than the
	 * handler's run starves this loop) */
	double fastest = 1e9;
	for (int i = 0; i < 3; i++) {
		double t0 = now_seconds();
		cr_assert_eq(estimated_round(&mine, pages), mine.len);
		double t = now_seconds() - t0;
		fastest = t < fastest ? t : fastest;
	}
	estimated_tick = test_half_round_tick(fastest, min_tick_us);
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	if (test_quick())
		rounds /= 10;
	estimated_ticking = 1;
	cr_assert_eq(setitimer(ITIMER_REAL, &estimated_tick, NULL), 0);
	for (int r = 0; r < rounds; r++) {
		size_t good = estimated_round(&mine, pages);
		if (good != mine.len) {
			estimated_ticking = 0;
			setitimer(ITIMER_REAL, &off, NULL);
			cr_assert_fail("round %d: byte %zu not zero (or the call failed)", r, good);
		}
	}
	estimated_ticking = 0;          /* a handler from here on does not re-arm */
	cr_assert_eq(setitimer(ITIMER_REAL, &off, NULL), 0);
	signal(SIGALRM, SIG_IGN);
	cr_assert_gt(handler_runs, 0, "the timer never fired");
	cr_assert_eq(handler_failures, 0, "%d of %d handler clears went wrong",
		     (int)handler_failures, (int)handler_runs);
	for (int r = 0; r < 8; r++)
		cr_assert_eq(estimated_round(&mine, pages), mine.len);
	cr_log_info("%d handler runs during %d clears of %zu pages", (int)handler_runs, rounds,
		    pages);
	guard_unmap(&theirs);
	guard_unmap(&mine);
}

Test(signal, handler_clears_estimated_ranges_during_estimated_clears)
{
	cr_assert_gt(cp_kernels(NULL), 0);
	size_t pages = cp__route_plan_from(&cp__state()->policy, CP__ROUTE_ANY);
	if (pages > ((size_t)64 << 20) / CP_PAGE_SIZE)
		cr_skip_test("no residency estimate below 64 MiB here (from %zu pages): "
			     "cp_clear_pages keeps no range to race on", pages);
	race_estimated(pages, 100, 0);
}

/* Below 1 MiB, where the uncached band parts from any's (from one page
 * where rep stosb is ranked, else 64 KiB), the thread's small-call history
 * and last range instead. */
Test(signal, handler_clears_small_ranges_during_small_clears)
{
	cr_assert_gt(cp_kernels(NULL), 0);
	size_t pages = cp__state()->policy.estimate_from_pages;
	if (pages == 0)
		pages = 1;         /* the bands part at once (rep stosb uncached): one page */
	if (pages >= CP__HISTORY_BELOW_PAGES)
		cr_skip_test("this policy (%s) does not part any and uncached below 1 MiB "
			     "(from %zu pages): no small-call history to race on",
			     cp__state()->source, pages);
	race_estimated(pages, 100000, 20);
}

/*
 * Faults in the shares of a parallel clear reach the application's handler,
 * on whichever thread clears the share: a read-only page (SIGSEGV) or a page
 * past the end of a shared file mapping (SIGBUS) that the handler repairs
 * before returning. The split is forced into four shares (the internal
 * cp__clear_pages_parallel_min), whatever a profile says about splitting.
 */
#define SHARES 4u
/* bound on a call plus a fork: a hang fails (testutil.h: no slow host trips it) */
#define FAULT_SECONDS test_hang_seconds(10)

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

/*
 * A timer against a loop of small parallel calls, its handler forking or
 * clearing in parallel itself wherever it lands: in the pool's lock windows
 * and condition waits too, where the handler must stay off the pool (taking
 * its lock again would wait on this very thread). The loop runs in a forked
 * child that alarm() ends: a deadlock fails the test instead of hanging it.
 * A page a share, a share per thread: the calls are mostly the pool's own
 * code (with 16-page shares the windows were hit less often).
 *
 * Paced by this host: after a fork every page the loop writes faults again
 * (copy-on-write), so a gap shorter than one round after a fork starves the
 * loop for good. That happened on the Zen 5 VM (fork + wait 1.2 ms, a fixed
 * 20 us gap): the handler ran thousands of times and the loop never ended.
 * So the child first times a fork + wait and a round right after one, and
 * draws each gap from [TIMER_NS, TIMER_NS + 2 x round]: gaps short enough
 * to land inside the pool's windows, and half of them long enough for a
 * round to finish. The loop lasts long enough for about TARGET_TICKS handler
 * runs, and the handler stops re-arming once it is over.
 */
#define LOOP_SHARE 1u
#define LOOP_THREADS 3u
#define LOOP_PAGES (LOOP_THREADS * LOOP_SHARE)
#define LOOP_LEN (LOOP_PAGES * PG)
#define LOOP_SECONDS 0.5          /* the loop's own time, natively, at least */
#define TARGET_TICKS 500          /* ... and long enough for about this many handler runs */
#define TIMER_NS 20000L
/* Under valgrind (CP_TEST_QUICK) a fork takes tens of ms and a valgrind log:
 * a few handler runs. */
#define QUICK_TICKS 20

enum on_timer { TIMER_FORKS, TIMER_CLEARS_IN_PARALLEL };
static struct {
	enum on_timer action;
	timer_t timer;
	unsigned char *buf;        /* the handler's extent */
	long spread_ns;            /* gaps: TIMER_NS + [0, spread_ns) */
	uint64_t random;           /* the gaps' generator (the handler's alone) */
} tick;
static volatile sig_atomic_t tick_runs, tick_failures, ticks_left;
static struct loop_counts {
	unsigned rounds, ticks;    /* the child's, for the parent's log (MAP_SHARED) */
	double fork_ms, round_ms;  /* what the child measured */
} *counts;

static int clear_loop_extent(unsigned char *buf)
{
	memset(buf, FILL, LOOP_LEN);
	return cp__clear_pages_parallel_min(buf, LOOP_PAGES, LOOP_THREADS, LOOP_SHARE) ||
	       first_not(buf, LOOP_LEN, 0) != LOOP_LEN;
}

/* One-shot, re-armed at the end of each run while ticks are left: the loop
 * gets a whole gap after each run however long a fork takes. */
static void arm_tick(void)
{
	long ns = TIMER_NS + (long)random_below(&tick.random, (size_t)tick.spread_ns);
	struct itimerspec next = { { 0, 0 }, { ns / 1000000000L, ns % 1000000000L } };
	if (ticks_left-- > 0)
		timer_settime(tick.timer, 0, &next, NULL);
}

static void on_tick(int sig)
{
	(void)sig;
	int saved_errno = errno, bad = 0;
	if (tick.action == TIMER_FORKS) {
		pid_t pid = fork();
		if (pid == 0)
			_exit(0);
		int status;
		bad = pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		      WEXITSTATUS(status) != 0;
	} else {
		bad = clear_loop_extent(tick.buf);
	}
	tick_failures += bad;
	tick_runs++;
	counts->ticks = (unsigned)tick_runs;     /* the parent's log, even after SIGALRM */
	arm_tick();
	errno = saved_errno;
}

/* The child's pacing: a fork + wait, then one round right after a fork (its
 * copy-on-write faults included), each the median of 9. */
static void measure_pacing(unsigned char *buf, double *fork_s, double *round_s)
{
	double r[9];
	*fork_s = test_fork_wait_seconds();
	for (int i = 0; i < 9; i++) {
		pid_t pid = fork();
		if (pid == 0)
			_exit(0);
		int status;
		waitpid(pid, &status, 0);
		double t0 = now_seconds();
		if (clear_loop_extent(buf))
			_exit(3);
		r[i] = now_seconds() - t0;
	}
	*round_s = test_median9(r);
}

/* In the child: exit code = the step that failed. */
static void loop_under_the_timer(void)
{
	struct guarded mine, theirs;
	if (guard_map(&mine, LOOP_PAGES) || guard_map(&theirs, LOOP_PAGES))
		_exit(2);
	tick.buf = theirs.mem;
	if (clear_loop_extent(mine.mem))     /* the pool's workers start outside the handler */
		_exit(3);
	double fork_s, round_s;
	measure_pacing(mine.mem, &fork_s, &round_s);
	counts->fork_ms = fork_s * 1e3, counts->round_ms = round_s * 1e3;
	tick.spread_ns = (long)(2e9 * round_s) + 1;
	double loop_s = test_quick() ? 0.2 : LOOP_SECONDS;
	if (!test_quick() && loop_s < TARGET_TICKS * (fork_s + round_s))
		loop_s = TARGET_TICKS * (fork_s + round_s);      /* slow forks: a longer loop */
	tick.random = (uint64_t)getpid() * 0x9e3779b97f4a7c15ull;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_tick;
	struct sigevent to_me;
	memset(&to_me, 0, sizeof(to_me));
	to_me.sigev_notify = SIGEV_THREAD_ID;      /* this thread: the one in the loop */
	to_me.sigev_signo = SIGUSR1;
	to_me._sigev_un._tid = tid();
	if (sigaction(SIGUSR1, &sa, NULL) || timer_create(CLOCK_MONOTONIC, &to_me, &tick.timer))
		_exit(4);
	arm_tick();
	unsigned rounds = 0;
	for (double end = now_seconds() + loop_s; now_seconds() < end; rounds++)
		if (clear_loop_extent(mine.mem))
			_exit(5);
	ticks_left = 0;                            /* the goal is reached: no more re-arming */
	timer_delete(tick.timer);
	counts->rounds = rounds;
	counts->ticks = (unsigned)tick_runs;
	if (tick_failures)
		_exit(6);
	if (tick_runs == 0 || rounds == 0)
		_exit(7);
	_exit(0);
}

/* The child's deadline: its pacing takes 18 forks and 9 rounds, the loop
 * about TARGET_TICKS forks and rounds: 20 s, stretched where forks are
 * slower than the 10 ms this allows (test_hang_seconds). */
static unsigned loop_deadline_seconds(void)
{
	return test_hang_seconds(20);
}

static void run_loop_under_the_timer(enum on_timer action)
{
	cr_assert_gt(cp_kernels(NULL), 0);
	tick.action = action;
	ticks_left = test_quick() ? QUICK_TICKS : INT_MAX;    /* natively the loop's time */
	counts = mmap(NULL, sizeof(*counts), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		      -1, 0);
	cr_assert(counts != MAP_FAILED);
	unsigned deadline = loop_deadline_seconds();
	pid_t pid = test_fork(deadline);
	cr_assert(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0)
		loop_under_the_timer();
	int status;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(!WIFSIGNALED(status) || WTERMSIG(status) != SIGALRM,
		  "the loop did not end within %u s: deadlocked (fork + wait %.3f ms, a round "
		  "after a fork %.3f ms, %u handler runs)", deadline, counts->fork_ms,
		  counts->round_ms, counts->ticks);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "the loop's child failed: status 0x%x (exit code = failing step; "
		  "6: the handler's fork or clear went wrong)", status);
	cr_log_info("%u handler runs during %u parallel calls (fork + wait %.3f ms, round %.3f ms)",
		    counts->ticks, counts->rounds, counts->fork_ms, counts->round_ms);
	munmap(counts, sizeof(*counts));
}

Test(signal, timer_handler_forks_during_parallel_calls, .timeout = 60)
{
	run_loop_under_the_timer(TIMER_FORKS);
}

Test(signal, timer_handler_clears_in_parallel_during_parallel_calls, .timeout = 60)
{
	run_loop_under_the_timer(TIMER_CLEARS_IN_PARALLEL);
}
