/* SPDX-License-Identifier: MIT */
/*
 * Copies are async-signal-safe once the library is initialised, the
 * thread's copy history included (common/history.c: read once, stored
 * once): a timer's handler copies through cp_copy_pages and cp_copy while
 * the interrupted thread's own estimated copies are in progress, and both
 * come out exact. Each side alternates between two destinations, so that no
 * call is the "destination copied last" one (copied untimed): every call
 * from 1 MiB times its chunk. The timer re-arms half a round after each handler run, so
 * each round is interrupted about twice natively, under valgrind and qemu.
 * The same race for clears: tests/test_signal.c.
 */
#include "testutil.h"
#include "testhooks.h"
#include <signal.h>
#include <sys/time.h>

struct pair {
	unsigned char *dst, *src;
	size_t len;
};
static struct pair theirs[2];
static volatile sig_atomic_t handler_runs, handler_failures, ticking;
static struct itimerval tick;

static struct pair pair_map(size_t pages, unsigned char seed)
{
	struct pair p = { mmap(NULL, pages * PG, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
			  mmap(NULL, pages * PG, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), pages * PG };
	cr_assert(p.dst != MAP_FAILED && p.src != MAP_FAILED);
	for (size_t i = 0; i < p.len; i += 61)
		p.src[i] = (unsigned char)(seed + i / 61);
	return p;
}

static void pair_unmap(struct pair *p)
{
	munmap(p->dst, p->len);
	munmap(p->src, p->len);
}

/* Fill the destination, copy (cp_copy_pages, or cp_copy with flags 0 when
 * odd), compare: 1 when exact. Async-signal-safe: memset, memcmp, the
 * library's calls. */
static int copy_round(const struct pair *p, int odd)
{
	memset(p->dst, FILL, p->len);
	int rc = odd ? cp_copy(p->dst, p->src, p->len, 0)
		     : cp_copy_pages(p->dst, p->src, p->len / PG);
	return rc == 0 && !memcmp(p->dst, p->src, p->len);
}

static void copy_in_handler(int sig)
{
	(void)sig;
	int saved = errno;
	handler_failures += !copy_round(&theirs[handler_runs & 1], (handler_runs >> 1) & 1);
	handler_runs++;
	if (ticking)
		setitimer(ITIMER_REAL, &tick, NULL);
	errno = saved;
}

/* Race the handler's copies of `pages` against the main loop's, `rounds`
 * rounds (a tenth when quick), the tick at least min_tick_us apart. */
static void race_copies(size_t pages, int rounds, uint64_t min_tick_us)
{
	struct pair mine[2] = { pair_map(pages, 1), pair_map(pages, 2) };
	theirs[0] = pair_map(pages, 3);
	theirs[1] = pair_map(pages, 4);
	handler_runs = handler_failures = 0;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = copy_in_handler;
	sa.sa_flags = SA_RESTART;
	cr_assert_eq(sigaction(SIGALRM, &sa, NULL), 0);
	double fastest = 1e9;
	for (int i = 0; i < 3; i++) {
		double t0 = test_now_seconds();
		cr_assert(copy_round(&mine[i & 1], (i >> 1) & 1));
		double t = test_now_seconds() - t0;
		fastest = t < fastest ? t : fastest;
	}
	tick = test_half_round_tick(fastest, min_tick_us);
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	if (test_quick())
		rounds /= 10;
	ticking = 1;
	cr_assert_eq(setitimer(ITIMER_REAL, &tick, NULL), 0);
	int bad_round = -1;
	for (int r = 0; r < rounds && bad_round < 0; r++)
		if (!copy_round(&mine[r & 1], (r >> 1) & 1))
			bad_round = r;
	ticking = 0;                    /* a handler from here on does not re-arm */
	cr_assert_eq(setitimer(ITIMER_REAL, &off, NULL), 0);
	signal(SIGALRM, SIG_IGN);       /* one still pending must not find theirs unmapped */
	cr_assert_eq(bad_round, -1, "round %d: the copy differs (or the call failed)", bad_round);
	cr_assert_gt(handler_runs, 0, "the timer never fired");
	cr_assert_eq(handler_failures, 0, "%d of %d handler copies went wrong",
		     (int)handler_failures, (int)handler_runs);
	cr_log_info("%d handler copies during %d copies of %zu pages", (int)handler_runs, rounds,
		    pages);
	for (int i = 0; i < 2; i++) {
		pair_unmap(&theirs[i]);
		pair_unmap(&mine[i]);
	}
}

static size_t copy_estimate_from(void)
{
	cr_assert_gt(cp_copy_kernels(NULL), 0);         /* initialised outside the handler */
	const struct cp__policy *p = &cp__state()->policy;
	if (!p->cached_min_mbps || p->copy_estimate_from_pages >= CP__HISTORY_BELOW_PAGES)
		cr_skip_test("this policy (%s) estimates no copy below 1 MiB (no counter, or "
			     "copy bands that never part): nothing of the copy history to race on",
			     cp__state()->source);
	return p->copy_estimate_from_pages;
}

/* Below 1 MiB: the thread's copy history and its last destination. */
Test(signal_copy, handler_copies_during_small_estimated_copies)
{
	race_copies(copy_estimate_from(), 100000, 20);
}

/* From 1 MiB: each call times its first chunk. */
Test(signal_copy, handler_copies_during_timed_copies)
{
	copy_estimate_from();
	race_copies(CP__HISTORY_BELOW_PAGES, 100, 0);
}
