/* SPDX-License-Identifier: MIT */
/*
 * cp_tsan: the library's concurrency, as a plain program for ThreadSanitizer
 * (Criterion's runner does not start under it). Each scenario verifies its
 * clears; TSan itself reports any race or lock misuse.
 *
 *   cp_tsan [ROUNDS]        default 200; scenarios in this order:
 *   first-use     threads released together each make the process's first call
 *   parallel      callers of cp_clear_pages_parallel on their own extents
 *   profile       cp_set_profile in a loop against clears on other threads
 *   fork          forks while a parallel caller and a profile loader run
 *   signal        a 20 us timer's handler clears in parallel, against the main
 *                 thread's parallel calls and another caller's
 *   reuse         threads clear ranges of the estimate's extent again and again
 *                 (cp_clear_pages keeps each thread's last range) against a
 *                 profile loader
 *   cold          threads make small cp_clear_pages_cold calls (each keeps its
 *                 verdict and when to time next) against a profile loader
 *   small         threads clear two ranges in turn below 1 MiB where the
 *                 uncached band parts from the cached one (cp_clear_pages
 *                 keeps a verdict and its last range), against a profile loader
 *   copy          threads copy pages between halves of their own regions
 *                 (cp_copy_pages, cp_copy_huge) against a profile loader
 *   resident      threads fill fresh, half-written ranges with CP_ZERO_RESIDENT
 *                 | CP_ZERO_PARALLEL (chunks on the pool, the thread ramp) and
 *                 stop some through cp_zero_progress, against parallel clears
 *   cancel        the main thread cancels callers of parallel clears, one at
 *                 a time, against another parallel caller; each later
 *                 parallel call must still clear (the pool is not left locked)
 *
 * Last line: "N passed, N failed[, N skipped]".
 */
#include "../models/plain.h"
#include "parallel.h"       /* cp__clear_pages_parallel_min: small shares */
#include "route.h"          /* where the history ends */
#include "state.h"          /* the estimate's extent */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#define PG ((size_t)CP_PAGE_SIZE)
#define SHARE 8u                 /* pages a share at least: splits stay small */
#define PAGES (4u * SHARE + 3u)
#define THREADS 4

static unsigned rounds = 200;
static char profile_path[64];
static volatile int stop;        /* written by main, polled by the helpers */

static int stopped(void)
{
	return __atomic_load_n(&stop, __ATOMIC_RELAXED);
}

/* Clear [mem, +pages) in parallel and verify it; 0 if exact. */
static int clear_and_check(struct guarded *r, size_t pages, unsigned nthreads)
{
	memset(r->mem, FILL, r->len);
	return cp__clear_pages_parallel_min(r->mem, pages, nthreads, SHARE) ||
	       first_not(r->mem, pages * PG, 0) != pages * PG ||
	       first_not(r->mem + pages * PG, r->len - pages * PG, FILL) != r->len - pages * PG;
}

struct helper {
	pthread_t thread;
	unsigned id;
	struct guarded region;
	unsigned long done, bad;
};

/* ---- first use: every entry point racing into the one-time init -------- */
static pthread_barrier_t start_line;

static void *first_call(void *arg)
{
	struct helper *h = arg;
	pthread_barrier_wait(&start_line);
	int rc = 0;
	switch (h->id % 7) {
	case 0: rc = cp_clear_pages(h->region.mem, 1); break;
	case 1: rc = cp_kernels(NULL) == 0; break;
	case 2: rc = cp__clear_pages_parallel_min(h->region.mem, PAGES, 3, SHARE); break;
	case 3: rc = cp_set_profile(NULL); break;
	case 4: rc = cp_kernel_for(PAGES) == NULL; break;
	case 5: rc = cp_clear_huge(h->region.mem, PAGES, 1); break;
	case 6: rc = cp_copy_pages(h->region.mem, h->region.mem + PAGES / 2 * PG, PAGES / 2); break;
	}
	h->bad += rc != 0;
	h->done++;
	return NULL;
}

/* ---- helpers that run until stopped ------------------------------------ */
static void *parallel_caller(void *arg)
{
	struct helper *h = arg;
	do {
		unsigned i = (unsigned)h->done;
		h->bad += clear_and_check(&h->region, PAGES - i % 4, 2 + (h->id + i) % 4) != 0;
		h->done++;
	} while (!stopped());
	return NULL;
}

static void *profile_loader(void *arg)
{
	struct helper *h = arg;
	do {
		h->bad += cp_set_profile(profile_path) != 0;
		h->bad += cp_set_profile(NULL) != 0;
		h->done++;
	} while (!stopped());
	return NULL;
}

/* Small cold calls, one page each over the region: cp_clear_pages_cold's
 * per-thread history times one in 64 to 256 of them. */
static void *cold_clearer(void *arg)
{
	struct helper *h = arg;
	do {
		memset(h->region.mem, FILL, h->region.len);
		for (size_t at = 0; at < PAGES; at++)
			h->bad += cp_clear_pages_cold(h->region.mem + at * PG, 1) != 0;
		h->bad += first_not(h->region.mem, h->region.len, 0) != h->region.len;
		h->done++;
	} while (!stopped());
	return NULL;
}

static void *plain_clearer(void *arg)
{
	struct helper *h = arg;
	do {
		memset(h->region.mem, FILL, h->region.len);
		h->bad += cp_clear_pages(h->region.mem, PAGES) != 0 ||
			  first_not(h->region.mem, h->region.len, 0) != h->region.len;
		h->done++;
	} while (!stopped());
	return NULL;
}

/* Copies of a half of the region into the other half, both ways, a byte
 * of the thread's own in every word, checked; the published state (the copy
 * crossover and kernels) changes under them. */
static void *copier(void *arg)
{
	struct helper *h = arg;
	const size_t half = PAGES / 2, len = half * PG;
	unsigned char *a = h->region.mem, *b = a + len;
	do {
		unsigned char v = (unsigned char)(h->id * 16 + h->done % 16);
		memset(a, v, len);
		h->bad += cp_copy_pages(b, a, half) != 0 || first_not(b, len, v) != len;
		memset(a, FILL, len);
		h->bad += cp_copy_huge(a, b, half, (size_t)h->done % half) != 0 ||
			  first_not(a, len, v) != len;
		h->done++;
	} while (!stopped());
	return NULL;
}

/* A fresh range of three fill chunks and a bit, its first third written,
 * filled whole, then again stopped after its first chunk: the prefix zero,
 * the rest zero or FILL. Sampled every 509 bytes (TSan's loads are slow). */
#define RESIDENT_BYTES ((size_t)100 << 20)
static int stop_at_first(size_t done, size_t len, void *ctx)
{
	(void)done, (void)len, (void)ctx;
	return 1;
}

static unsigned long fill_and_check(unsigned char *p, int stopped_early)
{
	unsigned long bad = 0;
	size_t done = 0;
	memset(p, FILL, RESIDENT_BYTES / 3);
	int r = stopped_early ? cp_zero_progress(p, RESIDENT_BYTES, CP_ZERO_RESIDENT | CP_ZERO_PARALLEL,
						  stop_at_first, NULL, &done)
			      : cp_zero(p, RESIDENT_BYTES, CP_ZERO_RESIDENT | CP_ZERO_PARALLEL);
	if (!stopped_early)
		done = RESIDENT_BYTES;
	bad += r != (stopped_early ? -ECANCELED : 0) && !(stopped_early && r == 0);
	for (size_t at = 0; at < RESIDENT_BYTES; at += 509)
		bad += at < done ? p[at] != 0 : p[at] != 0 && p[at] != FILL;
	return bad;
}

static void *resident_filler(void *arg)
{
	struct helper *h = arg;
	do {
		unsigned char *p = mmap(NULL, RESIDENT_BYTES, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			h->bad++;
			break;
		}
		h->bad += fill_and_check(p, (int)(h->done & 1));
		munmap(p, RESIDENT_BYTES);
		h->done++;
	} while (!stopped());
	return NULL;
}

/* Ranges of the estimate's extent (0 where there is none below 64 MiB),
 * cleared again and again: cp_clear_pages keeps the thread's last range. */
static size_t estimated_pages;

static void clear_estimated(struct guarded *r, unsigned long *done, unsigned long *bad)
{
	memset(r->mem, FILL, r->len);
	*bad += cp_clear_pages(r->mem, estimated_pages) != 0 ||
		first_not(r->mem, r->len, 0) != r->len;
	++*done;
}

static void *estimated_clearer(void *arg)
{
	struct helper *h = arg;
	struct guarded r;
	if (region_map(&r, estimated_pages)) {
		h->bad++;
		return NULL;
	}
	do
		clear_estimated(&r, &h->done, &h->bad);
	while (!stopped());
	guard_unmap(&r);
	return NULL;
}

/* Two ranges of the estimate's extent in turn: each call a new range, so
 * below 1 MiB the thread's small-call history decides. */
static void *small_clearer(void *arg)
{
	struct helper *h = arg;
	struct guarded r[2];
	if (region_map(&r[0], estimated_pages)) {
		h->bad++;
		return NULL;
	}
	if (region_map(&r[1], estimated_pages)) {
		guard_unmap(&r[0]);
		h->bad++;
		return NULL;
	}
	do
		clear_estimated(&r[h->done & 1], &h->done, &h->bad);
	while (!stopped());
	guard_unmap(&r[1]);
	guard_unmap(&r[0]);
	return NULL;
}

static void main_estimated_clears(void)
{
	struct guarded r;
	unsigned long done = 0, bad = 0;
	if (region_map(&r, estimated_pages))
		return;
	for (unsigned i = 0; i < rounds / 4 + 1; i++)
		clear_estimated(&r, &done, &bad);
	if (bad)
		check_fail("reuse: the main thread's clears", "wrong bytes");
	guard_unmap(&r);
}

static int start(struct helper *h, unsigned id, void *(*fn)(void *))
{
	memset(h, 0, sizeof(*h));
	h->id = id;
	if (region_map(&h->region, PAGES))
		return -1;
	return pthread_create(&h->thread, NULL, fn, h);
}

/* Join helpers [0, n); pass when every one made progress and no clear was wrong. */
static void finish(const char *what, struct helper *h, unsigned n)
{
	char why[160] = "";
	for (unsigned i = 0; i < n; i++) {
		pthread_join(h[i].thread, NULL);
		guard_unmap(&h[i].region);
		if ((h[i].bad || !h[i].done) && !*why)
			snprintf(why, sizeof(why), "thread %u: %lu of %lu rounds wrong", i,
				 h[i].bad, h[i].done);
	}
	if (*why)
		check_fail(what, why);
	else
		check_pass(what);
}

static void first_use(void)
{
	struct helper h[2 * THREADS];
	unsigned n = 2 * THREADS;
	pthread_barrier_init(&start_line, NULL, n);
	for (unsigned i = 0; i < n; i++)
		if (start(&h[i], i, first_call)) {
			check_fail("first use", "cannot start a thread");
			exit(1);
		}
	finish("first use: 8 threads make the first call at once", h, n);
	pthread_barrier_destroy(&start_line);
}

static void run_with(const char *what, void *(*const fns[])(void *), unsigned n,
		     void (*main_part)(void))
{
	struct helper h[THREADS];
	stop = 0;
	for (unsigned i = 0; i < n; i++)
		if (start(&h[i], i, fns[i])) {
			check_fail(what, "cannot start a thread");
			return;
		}
	main_part();
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	finish(what, h, n);
}

/* ---- what the main thread does meanwhile ------------------------------- */
static void main_clears(void)
{
	struct guarded r;
	if (region_map(&r, PAGES))
		return;
	for (unsigned i = 0; i < rounds; i++)
		if (clear_and_check(&r, PAGES, 4))
			check_fail("main thread's parallel clear", "wrong bytes");
	guard_unmap(&r);
}

/* The child makes no thread (TSan does not follow a multi-threaded parent's
 * child that starts threads): a profile load and one-thread clears. */
static void main_forks(void)
{
	struct guarded r;
	if (region_map(&r, PAGES))
		return;
	unsigned forks = rounds, hung = 0, failed = 0;
	for (unsigned i = 0; i < forks; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			alarm(10);
			memset(r.mem, FILL, r.len);
			int bad = cp_set_profile(profile_path) || cp_set_profile(NULL) ||
				  cp__clear_pages_parallel_min(r.mem, PAGES, 1, SHARE) ||
				  cp_clear_pages(r.mem, PAGES) ||
				  first_not(r.mem, r.len, 0) != r.len;
			_exit(bad ? 3 : 0);
		}
		int status;
		if (pid < 0 || waitpid(pid, &status, 0) != pid) {
			failed++;
			continue;
		}
		hung += WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM;
		failed += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	}
	char why[96];
	snprintf(why, sizeof(why), "%u of %u children failed, %u of them hung", failed, forks,
		 hung);
	if (failed)
		check_fail("fork children", why);
	else
		check_pass("fork children: each loads a profile and clears");
	guard_unmap(&r);
}

/* ---- pthread_cancel of parallel callers ---------------------------------- */
static void *cancelled_caller(void *arg)
{
	struct helper *h = arg;
	for (;;) {
		h->bad += clear_and_check(&h->region, PAGES, 2) != 0;
		__atomic_fetch_add(&h->done, 1, __ATOMIC_RELAXED);
		pthread_testcancel();     /* the caller's own point: a request acts here */
	}
	return NULL;
}

static void main_cancels(void)
{
	struct guarded r;
	if (region_map(&r, PAGES))
		return;
	unsigned cancels = rounds / 10 + 1, bad = 0;
	for (unsigned i = 0; i < cancels; i++) {
		struct helper c;
		if (start(&c, 100 + i, cancelled_caller)) {
			bad++;
			break;
		}
		while (__atomic_load_n(&c.done, __ATOMIC_RELAXED) < 1)
			sched_yield();
		pthread_cancel(c.thread);
		void *ret;
		bad += pthread_join(c.thread, &ret) || ret != PTHREAD_CANCELED || c.bad;
		guard_unmap(&c.region);
		bad += clear_and_check(&r, PAGES, 4) != 0;
	}
	char why[96];
	snprintf(why, sizeof(why), "%u of %u cancels left something wrong", bad, cancels);
	if (bad)
		check_fail("cancel", why);
	else
		check_pass("cancel: callers cancelled, the pool still serves");
	guard_unmap(&r);
}

/* ---- a handler that clears in parallel ---------------------------------- */
static struct guarded tick_region;
static timer_t tick_timer;
static volatile sig_atomic_t tick_runs, tick_bad;

/* One-shot, re-armed by the handler: the main thread runs 20 us between. */
static void arm_tick(void)
{
	struct itimerspec next = { { 0, 0 }, { 0, 20000 } };
	timer_settime(tick_timer, 0, &next, NULL);
}

static void on_tick(int sig)
{
	(void)sig;
	int saved_errno = errno;
	tick_bad += clear_and_check(&tick_region, PAGES, 3) != 0;
	tick_runs++;
	arm_tick();
	errno = saved_errno;
}

/* main_clears with the timer aimed at this thread; the pool is grown first
 * (by the first clear), so that the handler creates no thread. */
static void main_clears_under_timer(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_tick;
	struct sigevent to_me;
	memset(&to_me, 0, sizeof(to_me));
	to_me.sigev_notify = SIGEV_THREAD_ID;
	to_me.sigev_signo = SIGUSR1;
	to_me._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (region_map(&tick_region, PAGES) || sigaction(SIGUSR1, &sa, NULL) ||
	    timer_create(CLOCK_MONOTONIC, &to_me, &tick_timer)) {
		check_fail("signal: handler setup", strerror(errno));
		return;
	}
	main_clears();
	arm_tick();
	main_clears();
	timer_delete(tick_timer);
	char what[96];
	snprintf(what, sizeof(what), "signal: %d of %d parallel clears in the handler wrong",
		 (int)tick_bad, (int)tick_runs);
	if (tick_bad || !tick_runs)
		check_fail(what, "the handler's clears");
	else
		check_pass(what);
	guard_unmap(&tick_region);
}

static int write_profile(void)
{
	const struct cp_kernel *const *list;
	cp_kernels(&list);
	char text[128];
	int n = snprintf(text, sizeof(text), "version 1\narch %s\nsmall %s\nnt_from 8M\n",
			 list[0]->arch, list[0]->name);
	strcpy(profile_path, "/tmp/cp_tsan_profile_XXXXXX");
	int fd = mkstemp(profile_path);
	if (fd < 0 || write(fd, text, (size_t)n) != n)
		return -1;
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && (rounds = (unsigned)atoi(argv[1])) == 0) {
		fprintf(stderr, "usage: %s [ROUNDS]\n", argv[0]);
		return 2;
	}
	catch_fatal_signals();
	first_use();         /* before anything else touches the library */
	if (write_profile()) {
		check_fail("profile file", strerror(errno));
		return finish_tally();
	}

	static void *(*const callers[])(void *) = { parallel_caller, parallel_caller,
						    parallel_caller };
	run_with("parallel: 4 callers at once", callers, 3, main_clears);
	static void *(*const loads[])(void *) = { profile_loader, plain_clearer, parallel_caller };
	run_with("profile: loads against clears", loads, 3, main_clears);
	static void *(*const busy[])(void *) = { profile_loader, parallel_caller };
	run_with("fork: while a loader and a parallel caller run", busy, 2, main_forks);
	run_with("signal: a handler clears in parallel", callers, 1, main_clears_under_timer);
	size_t estimate_from = cp__state()->policy.estimate_from_pages;
	estimated_pages = cp__route_plan_from(&cp__state()->policy, CP__ROUTE_ANY);
	if (estimated_pages <= ((size_t)64 << 20) / PG) {
		static void *(*const reuse[])(void *) = { estimated_clearer, estimated_clearer,
							  profile_loader };
		run_with("reuse: estimated clears of each thread's own range", reuse, 3,
			 main_estimated_clears);
	} else {
		check_skip("reuse", "no residency estimate below 64 MiB here");
	}
	static void *(*const cold[])(void *) = { cold_clearer, cold_clearer, profile_loader };
	run_with("cold: small cold calls, each thread's history", cold, 3, main_clears);
	if (estimate_from < CP__HISTORY_BELOW_PAGES) {
		estimated_pages = estimate_from;
		static void *(*const small[])(void *) = { small_clearer, small_clearer,
							  profile_loader };
		run_with("small: cp_clear_pages' small calls, each thread's history", small, 3,
			 main_estimated_clears);
	} else {
		check_skip("small", "any and uncached do not part below 1 MiB here");
	}
	static void *(*const copies[])(void *) = { copier, copier, profile_loader };
	run_with("copy: copies against profile loads", copies, 3, main_clears);
	static void *(*const fills[])(void *) = { resident_filler, resident_filler,
						  parallel_caller };
	run_with("resident: parallel fills, some stopped, against parallel clears", fills, 3,
		 main_clears);
	static void *(*const one_caller[])(void *) = { parallel_caller };
	run_with("cancel: parallel callers cancelled against another", one_caller, 1,
		 main_cancels);
	unlink(profile_path);
	return finish_tally();
}
