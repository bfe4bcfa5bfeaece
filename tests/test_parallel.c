/* SPDX-License-Identifier: MIT */
/*
 * cp_clear_pages_parallel: exact clearing for 1..8 threads (and 0 = the
 * allowed CPUs) from one page to extents split across every thread, the
 * contract's bad inputs, the threshold, the pool (reused, emptied by fork,
 * grown short when threads cannot start, sized by the affinity mask, its
 * workers on each caller's CPUs under SCHED_OTHER, created while other callers
 * go on) and concurrent callers.
 *
 * The library splits only into shares of cp__state()->policy.parallel_min_share_pages (1024
 * pages, 4 MiB); most tests go through cp__clear_pages_parallel_min with one-page
 * shares, so that every split happens at extents that stay quick under qemu.
 * Threads are counted in /proc/self/task: the pool is only observable there.
 */
#include "testutil.h"
#include "testhooks.h"
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>

/* Split into shares of at least SHARE pages: BIG_PAGES gives 8 of them. */
#define SHARE 16u
#define BIG_PAGES (8u * SHARE + 5u)

static int clear_small_shares(void *addr, size_t npages, unsigned nthreads)
{
	return cp__clear_pages_parallel_min(addr, npages, nthreads, SHARE);
}
static int clear_one_page_shares(void *addr, size_t npages, unsigned nthreads)
{
	return cp__clear_pages_parallel_min(addr, npages, nthreads, 1);
}
typedef int (*parallel_fn)(void *, size_t, unsigned);

static unsigned threads_now(void)
{
	DIR *d = opendir("/proc/self/task");
	cr_assert(d, "no /proc/self/task");
	unsigned n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Fill, clear [start, +pages) with nthreads, check it and everything around it. */
static void check_with(parallel_fn fn, struct guarded *g, size_t start_page, size_t pages,
		       unsigned nthreads)
{
	char who[96];
	snprintf(who, sizeof(who), "parallel(%zu pages at page %zu, %u threads)", pages,
		 start_page, nthreads);
	memset(g->mem, FILL, g->len);
	cr_assert_eq(fn(g->mem + start_page * CP_PAGE_SIZE, pages, nthreads), 0, "%s", who);
	assert_cleared(who, g->mem, g->len, start_page * CP_PAGE_SIZE, pages * CP_PAGE_SIZE);
}

static void check_parallel(struct guarded *g, size_t start_page, size_t pages, unsigned nthreads)
{
	check_with(clear_small_shares, g, start_page, pages, nthreads);
}

/* Every extent with a spare page: it touches one guard, then the other. */
static void clears_exactly(parallel_fn fn, const size_t *extents, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct guarded g = guarded_map(extents[i] + 1);
		for (unsigned t = 0; t <= 8; t++) {
			check_with(fn, &g, 0, extents[i], t);
			check_with(fn, &g, 1, extents[i], t);
		}
		guard_unmap(&g);
	}
}

Test(parallel, clears_exactly_tiny_to_large)
{
	/* one-page shares: ragged splits, a thread per page, more threads than pages */
	static const size_t tiny[] = { 1, 2, 3, 5, 7, 8, 9, 15, 17, 64, 255, 1031 };
	clears_exactly(clear_one_page_shares, tiny, sizeof(tiny) / sizeof(tiny[0]));
	/* the library's own threshold: below it, at it, and split two ways */
	const size_t min = cp__state()->policy.parallel_min_share_pages;
	const size_t large[] = { 1, 3, 2 * min - 1, 2 * min, 2 * min + 3 };
	clears_exactly(cp_clear_pages_parallel, large, test_quick() ? 3 : 5);
}

Test(parallel, bad_input_writes_nothing)
{
	struct guarded g = guarded_map(4);
	unsigned char *top = (unsigned char *)(UINTPTR_MAX & ~(uintptr_t)(CP_PAGE_SIZE - 1));
	memset(g.mem, FILL, g.len);
	for (unsigned t = 0; t <= 8; t += 4) {
		cr_assert_eq(cp_clear_pages_parallel(NULL, 0, t), 0);
		cr_assert_eq(cp_clear_pages_parallel(g.mem + 1, 0, t), 0);
		cr_assert_eq(cp_clear_pages_parallel(NULL, 1, t), -EINVAL);
		cr_assert_eq(cp_clear_pages_parallel(g.mem + 1, 1, t), -EINVAL);
		cr_assert_eq(cp_clear_pages_parallel(g.mem + 2048, 2, t), -EINVAL);
		cr_assert_eq(cp_clear_pages_parallel(g.mem, SIZE_MAX / CP_PAGE_SIZE + 1, t), -EINVAL);
		cr_assert_eq(cp_clear_pages_parallel(g.mem, SIZE_MAX, t), -EINVAL);
		cr_assert_eq(cp_clear_pages_parallel(g.mem, SIZE_MAX / CP_PAGE_SIZE, t), -EINVAL);
		cr_assert_eq(cp_clear_pages_parallel(top, 2, t), -EINVAL);
		cr_assert_eq(cp_clear_pages_parallel(top - CP_PAGE_SIZE, 3, t), -EINVAL);
		cr_assert_eq(cp_clear_pages_parallel(g.mem, 4, UINT32_MAX), 0, "huge nthreads");
		memset(g.mem, FILL, g.len);
	}
	assert_cleared("parallel(bad input)", g.mem, g.len, 0, 0);
	guard_unmap(&g);
}

Test(parallel, below_the_threshold_stays_on_caller)
{
	const size_t min = cp__state()->policy.parallel_min_share_pages;
	struct guarded g = guarded_map(2 * min);
	unsigned before = threads_now();
	check_with(cp_clear_pages_parallel, &g, 0, 2 * min - 1, 8);
	cr_assert_eq(threads_now(), before, "below two shares: no thread");
	check_with(cp_clear_pages_parallel, &g, 0, 2 * min, 8);
	cr_assert_eq(threads_now(), before + 1, "two shares: the caller and one worker");
	guard_unmap(&g);
}

Test(parallel, pool_reused_and_grown)
{
	struct guarded g = guarded_map(BIG_PAGES);
	unsigned before = threads_now();
	check_parallel(&g, 0, SHARE * 2 - 1, 8);
	cr_assert_eq(threads_now(), before, "one share must not start threads");
	check_parallel(&g, 0, BIG_PAGES, 4);
	cr_assert_eq(threads_now(), before + 3, "4 threads = the caller + 3 workers");
	check_parallel(&g, 0, BIG_PAGES, 4);
	check_parallel(&g, 0, BIG_PAGES, 2);
	cr_assert_eq(threads_now(), before + 3, "workers are reused, not restarted");
	check_parallel(&g, 0, BIG_PAGES, 6);
	cr_assert_eq(threads_now(), before + 5, "the pool grows on demand");
	guard_unmap(&g);
}

/* In a child the pool is empty: the threads there now are not workers (one,
 * natively; qemu-user adds its own). */
static unsigned child_threads;

/* Run body in a forked child (the pool across fork() is what is tested),
 * counting its threads first. */
static void (*child_body)(void);

static void count_threads_then_body(void)
{
	child_threads = threads_now();
	child_body();
}

static void in_child_ok(void (*body)(void))
{
	child_body = body;
	in_forked_child(count_threads_then_body);
}

static unsigned char *child_buf;

/* In a child: clear BIG_PAGES with nthreads; exit code `step` on a wrong result. */
static void child_clear(unsigned nthreads, int step)
{
	size_t len = (size_t)BIG_PAGES * CP_PAGE_SIZE;
	memset(child_buf, FILL, len);
	if (clear_small_shares(child_buf, BIG_PAGES, nthreads) ||
	    first_not(child_buf, len, 0) != len)
		_exit(step);
}

static void after_fork_pool_recreated(void)
{
	child_clear(4, 11);
	if (threads_now() != child_threads + 3)
		_exit(12);
	exit(0);    /* the library's destructor joins the new workers: must not hang */
}

Test(parallel, fork_child_starts_with_no_pool)
{
	struct guarded g = guarded_map(BIG_PAGES);
	child_buf = g.mem;
	check_parallel(&g, 0, BIG_PAGES, 4);
	for (int i = 0; i < 3; i++)
		in_child_ok(after_fork_pool_recreated);
	check_parallel(&g, 0, BIG_PAGES, 4);    /* and the parent's pool still works */
	guard_unmap(&g);
}

/* No address space left for a thread stack: every pthread_create fails. */
static void threads_cannot_start(void)
{
	struct rlimit lim = { 0, 0 };
	FILE *f = fopen("/proc/self/statm", "r");
	unsigned long vm_pages;
	if (!f || fscanf(f, "%lu", &vm_pages) != 1)
		_exit(20);
	fclose(f);
	lim.rlim_cur = lim.rlim_max = vm_pages * (unsigned long)sysconf(_SC_PAGESIZE);
	if (setrlimit(RLIMIT_AS, &lim))
		_exit(21);
	child_clear(8, 22);
	if (threads_now() != child_threads)
		_exit(23);
}

Test(parallel, threads_that_cannot_start_mean_fewer_threads)
{
	/* RLIMIT_AS would starve the emulator (qemu-user, valgrind: both run with
	 * CP_TEST_QUICK) or AddressSanitizer's own mappings as well */
	if (test_quick())
		cr_skip_test("RLIMIT_AS would constrain the emulator itself");
#ifdef CP_TEST_ASAN
	cr_skip_test("RLIMIT_AS would constrain AddressSanitizer itself");
#endif
	struct guarded g = guarded_map(BIG_PAGES);
	child_buf = g.mem;
	in_child_ok(threads_cannot_start);
	guard_unmap(&g);
}

/* nthreads 0: as many shares as CPUs in the affinity mask. */
static void one_allowed_cpu(void)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	if (sched_getaffinity(0, sizeof(set), &set))
		_exit(30);
	int first = 0;
	while (!CPU_ISSET(first, &set))
		first++;
	CPU_ZERO(&set);
	CPU_SET(first, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		_exit(31);
	child_clear(0, 32);
	if (threads_now() != child_threads)
		_exit(33);
}

static void all_allowed_cpus(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set))
		_exit(40);
	child_clear(0, 41);
	/* the caller plus a worker per other CPU, as many as there are shares */
	unsigned cpus = (unsigned)CPU_COUNT(&set), shares = BIG_PAGES / SHARE;
	if (threads_now() != child_threads - 1 + (cpus < shares ? cpus : shares))
		_exit(42);
}

Test(parallel, zero_threads_means_allowed_cpus)
{
	struct guarded g = guarded_map(BIG_PAGES);
	child_buf = g.mem;
	in_child_ok(one_allowed_cpu);
	in_child_ok(all_allowed_cpus);
	guard_unmap(&g);
}

/* Several callers at once, each on its own extent: all exact. */
#define CALLERS 4
struct caller {
	pthread_t thread;
	struct guarded g;
	unsigned nthreads;
	size_t bad;                /* rounds with a wrong result */
};

static void *caller_main(void *arg)
{
	struct caller *c = arg;
	size_t pages = c->g.len / CP_PAGE_SIZE;
	for (int round = 0; round < (test_quick() ? 20 : 200); round++) {
		size_t n = pages - (size_t)(round % 16), rest = (pages - n) * CP_PAGE_SIZE;
		memset(c->g.mem, FILL, c->g.len);
		if (clear_small_shares(c->g.mem, n, c->nthreads) ||
		    first_not(c->g.mem, n * CP_PAGE_SIZE, 0) != n * CP_PAGE_SIZE ||
		    first_not(c->g.mem + n * CP_PAGE_SIZE, rest, FILL) != rest)
			c->bad++;
	}
	return NULL;
}

Test(parallel, concurrent_callers, .timeout = 60)
{
	struct caller callers[CALLERS];
	for (unsigned i = 0; i < CALLERS; i++) {
		callers[i].g = guarded_map(BIG_PAGES);
		callers[i].nthreads = 2 + i;
		callers[i].bad = 0;
		cr_assert_eq(pthread_create(&callers[i].thread, NULL, caller_main, &callers[i]), 0);
	}
	for (unsigned i = 0; i < CALLERS; i++) {
		pthread_join(callers[i].thread, NULL);
		cr_assert_eq(callers[i].bad, 0, "caller %u: %zu wrong rounds", i, callers[i].bad);
		guard_unmap(&callers[i].g);
	}
}

/* Every share uses the kernel picked for the whole extent, even where a share
 * alone would fall below the crossover: recording kernels stand in for the
 * policy's temporal and non-temporal kernels (and do clear). */
static unsigned temporal_calls, nontemporal_calls;

static void rec_temporal(void *addr, size_t npages)
{
	__atomic_fetch_add(&temporal_calls, 1, __ATOMIC_RELAXED);
	memset(addr, 0, npages * CP_PAGE_SIZE);
}

static void rec_nontemporal(void *addr, size_t npages)
{
	__atomic_fetch_add(&nontemporal_calls, 1, __ATOMIC_RELAXED);
	memset(addr, 0, npages * CP_PAGE_SIZE);
}

Test(parallel, shares_use_the_whole_extents_kernel)
{
	static const struct cp_kernel temporal = { "rec_t", "test", 0, rec_temporal };
	static const struct cp_kernel nontemporal = { "rec_nt", "test", CP_NONTEMPORAL,
						      rec_nontemporal };
	const struct cp__band rows[] = { { 0, &temporal }, { BIG_PAGES, &nontemporal } };
	struct guarded g = guarded_map(BIG_PAGES + 2);

	struct cp__policy policy = cp__state()->defaults;   /* initialises first */
	cp__bands_set(&policy.any, rows, 2);
	cp__bands_set(&policy.hot, rows, 1);
	cp__bands_set(&policy.cold, rows + 1, 1);
	policy.uncached = policy.any;      /* no residency estimate: the bands alone */
	cp__policy_publish(&policy, "test");
	check_with(clear_small_shares, &g, 1, BIG_PAGES, 8);       /* shares < crossover */
	cr_assert_eq(temporal_calls, 0, "%u shares took the temporal kernel", temporal_calls);
	cr_assert_gt(nontemporal_calls, 1, "the extent was not split");
	check_with(clear_small_shares, &g, 1, BIG_PAGES - 1, 8);   /* below: all temporal */
	cr_assert_gt(temporal_calls, 1);
	cp__policy_publish(&cp__state()->defaults, cp__state()->default_source);
	guard_unmap(&g);
}

/*
 * What the workers run with is not what their first caller had: each call's
 * worker shares run on that call's caller's CPUs, under SCHED_OTHER priority
 * 0, whoever created the threads. A recording kernel (which does clear) notes
 * the thread, policy and CPU mask of every share. This test process has not
 * used the pool yet (each test is a fresh process): its first call creates it.
 */
#define RECORDS 16
static struct share_record {
	pid_t tid;
	int policy;
	cpu_set_t cpus;
} records[RECORDS];
static unsigned nrecords;

static void rec_where(void *addr, size_t npages)
{
	unsigned i = __atomic_fetch_add(&nrecords, 1, __ATOMIC_RELAXED);
	if (i < RECORDS) {
		records[i].tid = gettid();
		records[i].policy = sched_getscheduler(0);
		if (sched_getaffinity(0, sizeof(records[i].cpus), &records[i].cpus))
			CPU_ZERO(&records[i].cpus);
	}
	memset(addr, 0, npages * CP_PAGE_SIZE);
}

/* Clear BIG_PAGES in 4 shares through rec_where; assert every worker share ran
 * with `cpus` under SCHED_OTHER (and that there were worker shares). */
static void assert_workers_ran_with(struct guarded *g, const cpu_set_t *cpus, const char *when)
{
	static const struct cp_kernel where = { "rec_where", "test", 0, rec_where };
	const struct cp__band row = { 0, &where };
	struct cp__policy policy = cp__state()->defaults;
	cp__bands_set(&policy.any, &row, 1);
	cp__bands_set(&policy.hot, &row, 1);
	cp__bands_set(&policy.cold, &row, 1);
	cp__bands_set(&policy.uncached, &row, 1);
	cp__policy_publish(&policy, "test");
	nrecords = 0;
	check_parallel(g, 0, BIG_PAGES, 4);
	cp__policy_publish(&cp__state()->defaults, cp__state()->default_source);
	unsigned n = nrecords < RECORDS ? nrecords : RECORDS, workers = 0;
	for (unsigned i = 0; i < n; i++) {
		if (records[i].tid == gettid())
			continue;
		workers++;
		cr_assert_eq(records[i].policy, SCHED_OTHER, "%s: a worker share ran under policy %d",
			     when, records[i].policy);
		cr_assert(CPU_EQUAL(&records[i].cpus, cpus),
			  "%s: a worker share ran on %d CPUs, not the caller's %d", when,
			  CPU_COUNT(&records[i].cpus), CPU_COUNT(cpus));
	}
	cr_assert_eq(workers, 3, "%s: %u worker shares of 4 shares", when, workers);
}

static void set_cpus(const cpu_set_t *cpus)
{
	cr_assert_eq(sched_setaffinity(0, sizeof(*cpus), cpus), 0, "sched_setaffinity: %s",
		     strerror(errno));
}

Test(parallel, workers_run_on_the_callers_cpus_not_the_first_callers)
{
	cpu_set_t all, one;
	cr_assert_eq(sched_getaffinity(0, sizeof(all), &all), 0);
	if (CPU_COUNT(&all) < 2)
		cr_skip_test("one CPU allowed: no other mask to tell the first caller's from");
	int first = 0, last = CPU_SETSIZE - 1;
	while (!CPU_ISSET(first, &all))
		first++;
	while (!CPU_ISSET(last, &all))
		last--;
	struct guarded g = guarded_map(BIG_PAGES);
	CPU_ZERO(&one);
	CPU_SET(first, &one);
	set_cpus(&one);
	check_parallel(&g, 0, BIG_PAGES, 4);      /* the first call: creates the workers */
	set_cpus(&all);
	assert_workers_ran_with(&g, &all, "an unpinned caller after a pinned first caller");
	CPU_ZERO(&one);
	CPU_SET(last, &one);
	set_cpus(&one);
	assert_workers_ran_with(&g, &one, "a caller pinned to another CPU");
	set_cpus(&all);
	guard_unmap(&g);
}

Test(parallel, workers_are_not_realtime_after_a_realtime_first_caller)
{
	struct sched_param fifo = { .sched_priority = 1 }, normal = { .sched_priority = 0 };
	int rc = pthread_setschedparam(pthread_self(), SCHED_FIFO, &fifo);
	if (rc == EPERM)
		cr_skip_test("SCHED_FIFO not permitted here (no CAP_SYS_NICE, RLIMIT_RTPRIO 0)");
	cr_assert_eq(rc, 0, "pthread_setschedparam(SCHED_FIFO): %s", strerror(rc));
	struct guarded g = guarded_map(BIG_PAGES);
	check_parallel(&g, 0, BIG_PAGES, 4);      /* the first call: creates the workers */
	cr_assert_eq(pthread_setschedparam(pthread_self(), SCHED_OTHER, &normal), 0);
	cpu_set_t cpus;
	cr_assert_eq(sched_getaffinity(0, sizeof(cpus), &cpus), 0);
	assert_workers_ran_with(&g, &cpus, "after a SCHED_FIFO first caller");
	guard_unmap(&g);
}

/*
 * Workers are created with the pool lock released: a caller that finds the
 * pool growing clears alone at once instead of waiting on pthread_create. The
 * definition below binds the library's pthread_create (it is linked into this
 * binary) and passes through to libc's; armed, it holds the next creation
 * until released.
 */
typedef int create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
static int hold_next_create;
static sem_t create_held, create_release;

int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	static create_fn *real;
	if (!real)
		real = (create_fn *)dlsym(RTLD_NEXT, "pthread_create");
	if (__atomic_exchange_n(&hold_next_create, 0, __ATOMIC_ACQ_REL)) {
		sem_post(&create_held);
		while (sem_wait(&create_release))
			;
	}
	return real(t, attr, fn, arg);
}

struct growing_caller {
	pthread_t thread;
	struct guarded g;
	sem_t go, done;
	int bad;
};

static void *clear_when_told(void *arg)
{
	struct growing_caller *c = arg;
	while (sem_wait(&c->go))
		;
	memset(c->g.mem, FILL, c->g.len);
	c->bad = clear_small_shares(c->g.mem, BIG_PAGES, 4) ||
		 first_not(c->g.mem, c->g.len, 0) != c->g.len;
	sem_post(&c->done);
	return NULL;
}

static void start_caller(struct growing_caller *c)
{
	c->g = guarded_map(BIG_PAGES);
	cr_assert_eq(sem_init(&c->go, 0, 0) | sem_init(&c->done, 0, 0), 0);
	cr_assert_eq(pthread_create(&c->thread, NULL, clear_when_told, c), 0);
}

/* sem_wait with a deadline of `seconds`: 0 when posted in time. The
 * deadlines below are hang detectors (test_hang_seconds): a caller that
 * waits on another call's thread creation waits until it is released. */
static int wait_up_to(sem_t *s, unsigned seconds)
{
	struct timespec end;
	clock_gettime(CLOCK_REALTIME, &end);
	end.tv_sec += seconds;
	int rc;
	while ((rc = sem_timedwait(s, &end)) && errno == EINTR)
		;
	return rc;
}

Test(parallel, a_caller_never_waits_for_another_calls_thread_creation)
{
	struct growing_caller grower, other;
	unsigned seconds = test_hang_seconds(10);       /* measured before the threads start */
	cr_assert_eq(sem_init(&create_held, 0, 0) | sem_init(&create_release, 0, 0), 0);
	start_caller(&grower);
	start_caller(&other);
	__atomic_store_n(&hold_next_create, 1, __ATOMIC_RELEASE);
	sem_post(&grower.go);     /* the process's first parallel call: it grows the pool */
	cr_assert_eq(wait_up_to(&create_held, seconds), 0, "the first call created no thread "
		     "in %u s", seconds);
	sem_post(&other.go);
	int waited = wait_up_to(&other.done, seconds);
	sem_post(&create_release);
	pthread_join(grower.thread, NULL);
	pthread_join(other.thread, NULL);
	cr_assert_eq(waited, 0, "a caller waited %u s while another call was creating its "
		     "workers", seconds);
	cr_assert_eq(grower.bad + other.bad, 0, "a clear went wrong");
	guard_unmap(&grower.g);
	guard_unmap(&other.g);
}
