/* SPDX-License-Identifier: MIT */
/*
 * cp_clear_pages_parallel: one extent split into page-aligned shares, the
 * calling thread clearing one share and pooled worker threads the others.
 *
 * The pool: workers are created on demand (up to what a call asks for, at
 * most POOL_MAX_WORKERS), kept, each blocked on its own condition variable
 * between calls, and joined when the library is unloaded or the process
 * exits. A thread that cannot be created means fewer shares. Threads are
 * created with the pool lock released (pool.growing keeps the pool that
 * call's meanwhile): a concurrent caller never waits on pthread_create.
 *
 * Workers never run with what their creator happened to have:
 *  - SCHED_OTHER priority 0, explicitly (PTHREAD_EXPLICIT_SCHED): a real-time
 *    first caller must not leave real-time threads clearing for every later
 *    caller ahead of the application's own. (The nice value is the creator's:
 *    Linux keeps it across the change. Where sched_setscheduler is refused,
 *    pthread_create fails: fewer shares.)
 *  - each call's worker shares run on the CPUs of that call's caller (its
 *    sched_getaffinity, applied by a worker whose mask differs: a system call
 *    only when the mask changes). Linux keeps affinity per thread, so there is
 *    no process mask to read; the caller's is what the application chose for
 *    this work (a thread pinned to a node clears on that node), and nthreads 0
 *    counts it already. A mask that cannot be read (more than CPU_SETSIZE
 *    CPUs) leaves the workers where they are.
 *  - every asynchronous signal blocked (the application's handlers for those
 *    run on its own threads); SIGSEGV, SIGBUS, SIGILL and SIGFPE deliverable,
 *    so a handler that repairs a page (mprotect, ftruncate of a file mapping)
 *    and returns works for a worker's share as for the caller's.
 *
 * Concurrent callers: the pool serves one call's worker shares at a time. A
 * caller that finds another thread's call there (shares pending, or workers
 * being created) does not wait: it clears its extent alone. The pool is held
 * only while worker shares are pending, never during the caller's own share,
 * so a caller that leaves by longjmp from its share leaves nothing held: its
 * workers finish, and the next call of that thread waits for them first.
 *
 * Signals. A thread is inside the pool (in_pool) from before it takes
 * pool.lock until after it released it, across its condition waits and the
 * creation of workers; a worker always. A handler that interrupted a thread
 * inside the pool stays off it. What a handler may do (the contract: the
 * header comment of include/clearpages.h and clearpages(3), ATTRIBUTES):
 *  - return after repairing the page: yes, on any thread;
 *  - longjmp out of the caller's own share: yes, the call is abandoned (the
 *    next parallel call of that thread, and fork, wait for its workers);
 *    out of a worker's share or of the pool's code: no (the frames are the
 *    library's; the pool would stay held);
 *  - call cp_clear_pages_parallel: it never deadlocks on the pool (inside the
 *    pool it clears alone on the handler's thread, creating nothing), and
 *    never creates a thread (which allocates) while a signal with a handler
 *    is blocked on its thread, as a handler's own signal is unless it was
 *    installed with SA_NODEFER (maybe_in_handler): outside the pool it uses
 *    the workers there are (a mutex, a condition variable), or clears alone
 *    when there are none. It is not async-signal-safe for all that:
 *    cp_clear_pages is the one for handlers;
 *  - fork: it never deadlocks on the pool. Outside the pool, prepare holds the
 *    pool across the fork as for any fork; inside it, prepare takes nothing
 *    and the child may only exec or _exit (POSIX, for a multi-threaded
 *    parent's child).
 *
 * Cancellation: a parallel call (and the fork handlers, and the unload)
 * runs with cancellation disabled. Its waits are cancellation points with
 * the pool lock held, and a fill's workers run on its caller's frame, so a
 * request made meanwhile acts at the caller's next cancellation point after
 * the call returned.
 *
 * fork(): the handlers are registered when the library is loaded (a
 * constructor; a call made before it registers them first, before any lock).
 * prepare takes the pool lock and waits for pending worker shares (a child
 * never sees half of one) and for workers being created; the child empties the pool and re-initialises its
 * locks, and its next parallel call recreates the workers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>
#include "atfork.h"
#include "parallel.h"
#include "route.h"
#include "state.h"

#define POOL_MAX_WORKERS 255u
#define WORKER_STACK_BYTES (64u * 1024u)

struct worker {
	pthread_t thread;
	pthread_cond_t wake;
	void *addr;                /* the share; npages 0 = nothing to do */
	size_t npages;
	struct cp__plan plan;             /* the whole extent's (residency.h) */
	cp__job_fn job;            /* instead of the plan, when not NULL: job(ctx, index, shares) */
	void *job_ctx;
	unsigned job_index, job_shares;
	int stop;                  /* leave worker_main (the library is going away) */
};

static struct {
	pthread_mutex_t lock;      /* guards everything below; never held across a clear */
	pthread_cond_t done;       /* broadcast when pending reaches 0 */
	unsigned pending;          /* worker shares handed out and not yet cleared */
	unsigned long long started;   /* calls that handed out worker shares */
	unsigned long long finished;  /* of those, calls whose worker shares are all cleared */
	pthread_t caller;          /* the thread of the call the pending shares serve */
	int cpus_known;            /* that caller's CPUs are in cpus */
	cpu_set_t cpus;
	unsigned nworkers;         /* threads started and waiting in worker_main */
	int growing;               /* a call creates workers, unlocked: the pool is its */
	int closed;                /* the library is going away: no new shares */
	struct worker workers[POOL_MAX_WORKERS];
} pool = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.done = PTHREAD_COND_INITIALIZER,
};

/*
 * This thread is inside the pool (see the top of this file): read by signal
 * handlers on the same thread, hence a lock-free atomic (C11 7.14.1.1), and
 * ordered against the lock by signal fences. forks_off_pool counts this
 * thread's forks in progress whose prepare took nothing (made by handlers
 * inside the pool; they nest like the handlers), so that their parent and
 * child handlers release nothing either.
 */
static _Thread_local atomic_int in_pool;
static _Thread_local atomic_uint forks_off_pool;

static int inside_pool(void)
{
	return atomic_load_explicit(&in_pool, memory_order_relaxed);
}

/* atfork.h's marked lock: a handler on this thread never finds pool.lock
 * held by it and in_pool 0. */
static void enter_pool(void)
{
	cp__marked_lock(&pool.lock, &in_pool);
}

static void leave_mark(void)
{
	cp__marked_clear(&in_pool);
}

static void leave_pool(void)
{
	cp__marked_unlock(&pool.lock, &in_pool);
}

static void wait_until_no_pending(void)
{
	while (pool.pending)
		pthread_cond_wait(&pool.done, &pool.lock);
}

/* The share w was handed (pool.lock held, released meanwhile), run on the
 * CPUs of the call it serves; *mine: the worker's. */
static void worker_clear(const struct worker *w, cpu_set_t *mine)
{
	void *addr = w->addr;
	size_t npages = w->npages;
	struct cp__plan plan = w->plan;
	cp__job_fn job = w->job;
	void *job_ctx = w->job_ctx;
	unsigned job_index = w->job_index, job_shares = w->job_shares;
	cpu_set_t want;
	int move = pool.cpus_known && !CPU_EQUAL(mine, &pool.cpus);
	if (move)
		want = pool.cpus;
	pthread_mutex_unlock(&pool.lock);
	if (move && pthread_setaffinity_np(pthread_self(), sizeof(want), &want) == 0)
		*mine = want;
	if (job)
		job(job_ctx, job_index, job_shares);
	else
		cp__plan_run(&plan, addr, npages);
	pthread_mutex_lock(&pool.lock);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	atomic_store_explicit(&in_pool, 1, memory_order_relaxed);    /* for good */
	cpu_set_t mine;
	if (sched_getaffinity(0, sizeof(mine), &mine))
		CPU_ZERO(&mine);
	pthread_mutex_lock(&pool.lock);
	for (;;) {
		while (w->npages == 0 && !w->stop)
			pthread_cond_wait(&w->wake, &pool.lock);
		if (w->stop)
			break;
		worker_clear(w, &mine);
		w->npages = 0;
		/* (0 already: a child forked from a handler on this worker) */
		if (pool.pending && --pool.pending == 0) {
			pool.finished = pool.started;
			pthread_cond_broadcast(&pool.done);
		}
	}
	pthread_mutex_unlock(&pool.lock);
	return NULL;
}

/* Every worker's attributes: a small stack, SCHED_OTHER priority 0. */
static int worker_attr(pthread_attr_t *attr)
{
	if (pthread_attr_init(attr))
		return -1;
	size_t stack = WORKER_STACK_BYTES;
	if (stack < (size_t)PTHREAD_STACK_MIN)
		stack = (size_t)PTHREAD_STACK_MIN;
	const struct sched_param normal = { .sched_priority = 0 };
	if (pthread_attr_setstacksize(attr, stack) ||
	    pthread_attr_setinheritsched(attr, PTHREAD_EXPLICIT_SCHED) ||
	    pthread_attr_setschedpolicy(attr, SCHED_OTHER) ||
	    pthread_attr_setschedparam(attr, &normal)) {
		pthread_attr_destroy(attr);
		return -1;
	}
	return 0;
}

/* Start workers in slots [from, to), pool.lock not held (the slots are this
 * call's: pool.growing). Returns how many started, from `from` on. */
static unsigned start_workers(unsigned from, unsigned to)
{
	pthread_attr_t attr;
	if (worker_attr(&attr))
		return 0;
	/* Workers inherit this mask: asynchronous signals blocked, faults
	 * deliverable (see the top of this file). */
	sigset_t mask, old;
	sigfillset(&mask);
	static const int faults[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE };
	for (unsigned i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		sigdelset(&mask, faults[i]);
	pthread_sigmask(SIG_SETMASK, &mask, &old);
	unsigned i = from;
	for (; i < to; i++) {
		struct worker *w = &pool.workers[i];
		w->npages = 0;
		w->stop = 0;
		if (pthread_cond_init(&w->wake, NULL))
			break;
		if (pthread_create(&w->thread, &attr, worker_main, w)) {
			pthread_cond_destroy(&w->wake);
			break;     /* fewer threads, never an error */
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	return i - from;
}

/* Grow the pool to `want` workers: pool.lock held on entry and on return,
 * released while the threads are created. */
static void pool_grow(unsigned want)
{
	unsigned from = pool.nworkers;
	pool.growing = 1;
	pthread_mutex_unlock(&pool.lock);
	unsigned started = start_workers(from, want);
	pthread_mutex_lock(&pool.lock);
	pool.growing = 0;
	pool.nworkers = from + started;
	pthread_cond_broadcast(&pool.done);     /* a fork waits for the growth too */
}

static void atfork_prepare(void)
{
	if (inside_pool()) {
		atomic_fetch_add_explicit(&forks_off_pool, 1, memory_order_relaxed);
		return;
	}
	enter_pool();
	/* and for workers being created: a fork during another thread's
	 * pthread_create is safe in glibc, but under qemu-user the child then
	 * hung in a host futex, in its own first parallel call (qemu max,
	 * SVE 256: 3 of 14 suite runs hung; with this wait 0 of 14). Not
	 * cancelled there: the lock is held. */
	int cancel_state;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
	while (pool.pending || pool.growing)
		pthread_cond_wait(&pool.done, &pool.lock);
	pthread_setcancelstate(cancel_state, NULL);
}

/* In parent and child: whether this fork's prepare took the pool. */
static int fork_took_pool(void)
{
	if (atomic_load_explicit(&forks_off_pool, memory_order_relaxed) == 0)
		return 1;
	atomic_fetch_sub_explicit(&forks_off_pool, 1, memory_order_relaxed);
	return 0;
}

static void atfork_parent(void)
{
	if (fork_took_pool())
		leave_pool();
}

static void atfork_child(void)
{
	/* The workers did not follow us; their condition variables may count
	 * waiters that no longer exist, and are re-initialised when reused. */
	pool.nworkers = 0;
	pool.pending = 0;
	pool.growing = 0;
	pool.finished = pool.started;
	pthread_mutex_init(&pool.lock, NULL);
	pthread_cond_init(&pool.done, NULL);
	if (fork_took_pool())
		leave_mark();     /* the lock: re-initialised instead of released */
}

static int atfork_registered;
static void register_atfork(void)
{
	cp__atfork_once(&atfork_registered, atfork_prepare, atfork_parent, atfork_child);
}

__attribute__((constructor)) static void pool_fork_safe(void)
{
	register_atfork();
}

/*
 * dlclose or exit: stop and join the workers, so that none is left asleep in
 * code about to be unmapped. Skipped when shares are pending or workers being
 * created (exit from another thread mid-call): those are about to finish.
 */
static void pool_shutdown_uncancelled(void)
{
	enter_pool();
	if (pool.pending || pool.growing) {
		leave_pool();
		return;
	}
	pool.closed = 1;
	unsigned n = pool.nworkers;
	for (unsigned i = 0; i < n; i++) {
		pool.workers[i].stop = 1;
		pthread_cond_signal(&pool.workers[i].wake);
	}
	pool.nworkers = 0;
	leave_pool();
	for (unsigned i = 0; i < n; i++) {
		pthread_join(pool.workers[i].thread, NULL);
		pthread_cond_destroy(&pool.workers[i].wake);
	}
}

static void __attribute__((destructor)) pool_shutdown(void)
{
	if (inside_pool())
		return;
	int cancel_state;      /* the joins below are cancellation points */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
	pool_shutdown_uncancelled();
	pthread_setcancelstate(cancel_state, NULL);
}

/* One splitting call: the extent, its plan and the caller's CPUs. */
struct call {
	unsigned char *addr;
	size_t npages;
	unsigned shares;           /* reduced to what the pool could serve */
	struct cp__plan plan;
	int cpus_known;
	cpu_set_t cpus;
	cp__job_fn job;            /* cp__parallel_jobs: every share runs it */
	void *job_ctx;
};

/* Share i of the call: share 0 (the caller's) at the start, the first
 * npages % shares shares one page longer. */
static void share_of(const struct call *c, unsigned i, void **share_addr, size_t *share_pages)
{
	size_t base = c->npages / c->shares, extra = c->npages % c->shares;
	size_t first = i * base + (i < extra ? i : extra);
	*share_addr = c->addr + first * CP_PAGE_SIZE;
	*share_pages = base + (i < extra);
}

/*
 * Whether this thread may be running a signal handler, asked before it
 * creates a thread (pthread_create allocates: from a handler that interrupted
 * malloc it would wait on the arena lock for good). Nothing says so
 * directly; a handler runs with its own signal blocked (unless SA_NODEFER)
 * and sa_mask's, so a thread that blocks a signal whose action is a handler
 * is taken to be in one, and uses the workers there are. System calls only
 * (sigprocmask, and sigaction for each blocked signal: none on most
 * threads), made only when the pool is smaller than a call asks.
 */
static int maybe_in_handler(void)
{
	sigset_t blocked;
	if (pthread_sigmask(SIG_BLOCK, NULL, &blocked))
		return 1;
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction sa;
		if (sigismember(&blocked, sig) == 1 && sigaction(sig, NULL, &sa) == 0 &&
		    ((sa.sa_flags & SA_SIGINFO) ||
		     (sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN)))
			return 1;
	}
	return 0;
}

/* With pool.lock held: give shares 1.. of the call to workers, growing the
 * pool first. Returns the call's number, 0 when it must clear alone. */
static unsigned long long hand_out_shares(struct call *c)
{
	/* Shares of an earlier call of this thread that is not waiting for them
	 * (left by longjmp, or interrupted by the handler we run in): its
	 * workers are clearing; wait for them, then take the pool. */
	if (pool.pending && pthread_equal(pool.caller, pthread_self()))
		wait_until_no_pending();
	if (pool.pending || pool.growing || pool.closed)
		return 0;      /* another thread's call has the pool (or it is closed) */
	if (pool.nworkers < c->shares - 1 && !maybe_in_handler())
		pool_grow(c->shares - 1);
	if (c->shares > pool.nworkers + 1)
		c->shares = pool.nworkers + 1;
	if (c->shares <= 1)
		return 0;
	unsigned long long call = ++pool.started;
	pool.caller = pthread_self();
	pool.pending = c->shares - 1;
	pool.cpus_known = c->cpus_known;
	if (c->cpus_known)
		pool.cpus = c->cpus;
	for (unsigned i = 1; i < c->shares; i++) {
		struct worker *w = &pool.workers[i - 1];
		w->job = c->job;
		if (c->job) {
			w->job_ctx = c->job_ctx;
			w->job_index = i;
			w->job_shares = c->shares;
			w->npages = 1;     /* (work to do) */
		} else {
			share_of(c, i, &w->addr, &w->npages);
			w->plan = c->plan;
		}
		pthread_cond_signal(&w->wake);
	}
	return call;
}

static void split_and_clear_uncancelled(struct call *c)
{
	enter_pool();
	unsigned long long call = hand_out_shares(c);
	leave_pool();
	if (call == 0) {
		if (c->job)
			c->job(c->job_ctx, 0, 1);
		else
			cp__plan_run(&c->plan, c->addr, c->npages);
		return;
	}
	if (c->job) {
		c->job(c->job_ctx, 0, c->shares);   /* outside the pool: see the top */
	} else {
		void *share_addr;
		size_t share_pages;
		share_of(c, 0, &share_addr, &share_pages);
		cp__plan_run(&c->plan, share_addr, share_pages);
	}

	enter_pool();
	while (pool.finished < call)
		pthread_cond_wait(&pool.done, &pool.lock);
	leave_pool();
}

static void split_and_clear(struct call *c)
{
	register_atfork();   /* before any lock */
	/* No cancellation inside: the waits below are cancellation points with
	 * the pool lock held, and workers may run on this frame's job context.
	 * A request made meanwhile acts at the caller's next cancellation point. */
	int cancel_state;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel_state);
	split_and_clear_uncancelled(c);
	pthread_setcancelstate(cancel_state, NULL);
}

/* The CPUs the calling thread may run on. */
static void read_caller_cpus(struct call *c)
{
	c->cpus_known = sched_getaffinity(0, sizeof(c->cpus), &c->cpus) == 0;
}

/* How many CPUs the caller may run on, or those online when its mask could
 * not be read (more CPUs than cpu_set_t holds); at least 1. */
static unsigned caller_cpu_count(const struct call *c)
{
	if (c->cpus_known)
		return (unsigned)CPU_COUNT(&c->cpus);
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	return online > 0 ? (unsigned)(online < (long)UINT_MAX ? online : UINT_MAX) : 1;
}

/* cp_clear_pages_parallel with another smallest share: `clearbench parallel`
 * measures the threshold with it (min_share_pages >= 1). */
int cp__clear_pages_parallel_min(void *addr, size_t npages, unsigned nthreads,
				 size_t min_share_pages)
{
	cp__initialise();
	if (npages == 0)
		return 0;
	if (cp__check_pages(addr, npages))
		return -EINVAL;
	/* One plan for every share, made for the whole extent: the shares
	 * together write all of it through the caches they share; each share
	 * estimates where its own part is, per batch. (Planning here also
	 * initialises the library on the caller's thread.) */
	struct cp__plan plan;
	cp__plan_for(cp__state(), CP__ROUTE_ANY, npages, &plan);
	cp__clear_parallel_plan(addr, npages, nthreads, min_share_pages, &plan);
	return 0;
}

void cp__clear_parallel_plan(void *addr, size_t npages, unsigned nthreads,
			     size_t min_share_pages, const struct cp__plan *plan)
{
	struct call c = { .addr = addr, .npages = npages, .plan = *plan };
	int cpus_read = nthreads == 0;
	if (cpus_read) {
		read_caller_cpus(&c);
		nthreads = caller_cpu_count(&c);
	}
	size_t by_size = npages / min_share_pages;
	c.shares = by_size < nthreads ? (unsigned)by_size : nthreads;
	if (c.shares > POOL_MAX_WORKERS + 1)
		c.shares = POOL_MAX_WORKERS + 1;
	if (c.shares <= 1 || inside_pool()) {
		cp__plan_run(&c.plan, addr, npages);   /* small, or inside the pool already */
		return;
	}
	if (!cpus_read)
		read_caller_cpus(&c);    /* where its workers are to run */
	split_and_clear(&c);
}

/* The smallest share comes from the policy (built-in profile, tuned profile or
 * the generic rule); 0 there means this host never gains from splitting. */
int cp_clear_pages_parallel(void *addr, size_t npages, unsigned nthreads)
{
	size_t min_share = __atomic_load_n(&cp__state()->policy.parallel_min_share_pages,
					   __ATOMIC_RELAXED);
	return cp__clear_pages_parallel_min(addr, npages, nthreads,
					    min_share ? min_share : SIZE_MAX);
}

/* The pool for work that is not a page share: job(ctx, i, shares) runs once
 * for each i < shares, i 0 on the calling thread, the others on workers, all
 * on the caller's CPUs; it returns when all have. shares is nthreads (0: the
 * caller's CPUs) or fewer: what the pool could serve, 1 inside the pool or
 * while another thread's call holds it. */
void cp__parallel_jobs(unsigned nthreads, cp__job_fn job, void *ctx)
{
	struct call c = { .job = job, .job_ctx = ctx };
	read_caller_cpus(&c);
	if (nthreads == 0)
		nthreads = caller_cpu_count(&c);
	c.shares = nthreads < POOL_MAX_WORKERS + 1 ? nthreads : POOL_MAX_WORKERS + 1;
	if (c.shares <= 1 || inside_pool()) {
		job(ctx, 0, 1);
		return;
	}
	split_and_clear(&c);
}

unsigned cp__caller_cpus(void)
{
	struct call c;
	read_caller_cpus(&c);
	return caller_cpu_count(&c);
}
