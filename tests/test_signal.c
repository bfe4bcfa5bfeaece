/*
 * Async-signal safety after initialisation: once the library has been used,
 * cp_clear_pages/_hot/_cold, cp_clear and cp_kernel_for are one acquire load,
 * a kernel call and memset, so a signal handler may call them. (The first
 * call initialises with pthread_once and getenv: not safe in a handler.)
 * tests/README.md lists the entry points.
 */
#include "testutil.h"
#include <signal.h>
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
