/* SPDX-License-Identifier: MIT */
/*
 * cp_clear_pages_parallel: one extent split into page-aligned shares, the
 * calling thread clearing one share and pooled worker threads the others.
 *
 * The pool: worker threads are created on demand (up to what a call asks for,
 * at most POOL_MAX_WORKERS) and then kept, each blocked on its own condition
 * variable between calls. A thread that cannot be created means fewer shares.
 *
 * Concurrent callers: the pool serves one call's worker shares at a time. A
 * caller that finds shares of another thread's call pending does not wait: it
 * clears its extent alone (the CPUs are busy with those shares anyway). The
 * pool is held only while worker shares are pending, never by the caller's
 * own share, so a caller that leaves by longjmp (a handler for a fault in its
 * share) leaves nothing held: its workers finish, and the next call of that
 * thread waits for them first, then uses the pool.
 *
 * The workers are joined when the library is unloaded or the process exits.
 *
 * Signals: workers block every asynchronous signal (the application's
 * handlers for those run on its own threads) and leave the synchronous fault
 * signals SIGSEGV, SIGBUS, SIGILL and SIGFPE deliverable, so a handler that
 * repairs a page (mprotect, ftruncate of a file mapping) and returns works for
 * a worker's share as for the caller's.
 *
 * A thread is inside the pool (in_pool) from before it takes pool.lock until
 * after it released it, across its condition waits; a worker always. A
 * handler that interrupted a thread inside the pool stays off it. What a
 * handler may do (README "Signals"):
 *  - return after repairing the page: yes, on any thread;
 *  - longjmp out of the caller's own share: yes, the call is abandoned (the
 *    next parallel call of that thread, and fork, wait for its workers);
 *    out of a worker's share or of the pool's code: no (the frames are the
 *    library's; the pool would stay held);
 *  - call cp_clear_pages_parallel: it never deadlocks on the pool (inside the
 *    pool it clears alone on the handler's thread, creating nothing), but it
 *    is not async-signal-safe: outside the pool it uses the pool as any call
 *    does (a mutex, a condition variable, and pthread_create when the pool
 *    is smaller than asked, which allocates). cp_clear_pages is the one for
 *    handlers;
 *  - fork: it never deadlocks on the pool. Outside the pool, prepare holds the
 *    pool across the fork as for any fork; inside it, prepare takes nothing
 *    and the child may only exec or _exit (POSIX, for a multi-threaded
 *    parent's child).
 *
 * fork(): the handlers are registered once, when the library is loaded (a
 * constructor; a call made before the constructors ran registers them first,
 * before taking any lock). prepare takes the pool lock and waits for pending
 * worker shares (so a child never sees half of one), the child empties the
 * pool and re-initialises its locks; the next parallel call there recreates it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>
#include "parallel.h"
#include "state.h"

#define POOL_MAX_WORKERS 255u
#define WORKER_STACK_BYTES (64u * 1024u)

struct worker {
	pthread_t thread;
	pthread_cond_t wake;
	void *addr;                /* the share; npages 0 = nothing to do */
	size_t npages;
	const struct cp_kernel *kernel;   /* the whole extent's kernel */
	int stop;                  /* leave worker_main (the library is going away) */
};

static struct {
	pthread_mutex_t lock;      /* guards everything below; never held across a clear */
	pthread_cond_t done;       /* broadcast when pending reaches 0 */
	unsigned pending;          /* worker shares handed out and not yet cleared */
	unsigned long long started;   /* calls that handed out worker shares */
	unsigned long long finished;  /* of those, calls whose worker shares are all cleared */
	pthread_t caller;          /* the thread of the call the pending shares serve */
	unsigned nworkers;         /* threads started and waiting in worker_main */
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
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "a handler reads in_pool");

static int inside_pool(void)
{
	return atomic_load_explicit(&in_pool, memory_order_relaxed);
}

/* Set before pool.lock is taken, cleared after it is released: a handler on
 * this thread never finds the lock held by it and in_pool 0. */
static void enter_pool(void)
{
	atomic_store_explicit(&in_pool, 1, memory_order_relaxed);
	atomic_signal_fence(memory_order_seq_cst);
	pthread_mutex_lock(&pool.lock);
}

static void leave_mark(void)
{
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(&in_pool, 0, memory_order_relaxed);
}

static void leave_pool(void)
{
	pthread_mutex_unlock(&pool.lock);
	leave_mark();
}

static void wait_until_no_pending(void)
{
	while (pool.pending)
		pthread_cond_wait(&pool.done, &pool.lock);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	atomic_store_explicit(&in_pool, 1, memory_order_relaxed);    /* for good */
	pthread_mutex_lock(&pool.lock);
	for (;;) {
		while (w->npages == 0 && !w->stop)
			pthread_cond_wait(&w->wake, &pool.lock);
		if (w->stop)
			break;
		void *addr = w->addr;
		size_t npages = w->npages;
		const struct cp_kernel *kernel = w->kernel;
		pthread_mutex_unlock(&pool.lock);
		kernel->clear(addr, npages);
		pthread_mutex_lock(&pool.lock);
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

/* Start workers until there are `want` (pool.lock held). Returns how many exist. */
static unsigned pool_grow(unsigned want)
{
	if (want <= pool.nworkers)
		return pool.nworkers;
	pthread_attr_t attr;
	if (pthread_attr_init(&attr))
		return pool.nworkers;
	size_t stack = WORKER_STACK_BYTES;
	if (stack < (size_t)PTHREAD_STACK_MIN)
		stack = (size_t)PTHREAD_STACK_MIN;
	pthread_attr_setstacksize(&attr, stack);
	/* Workers inherit this mask: asynchronous signals blocked (the caller's
	 * handlers for those never run on them), faults deliverable. */
	sigset_t mask, old;
	sigfillset(&mask);
	static const int faults[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE };
	for (unsigned i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		sigdelset(&mask, faults[i]);
	pthread_sigmask(SIG_SETMASK, &mask, &old);
	while (pool.nworkers < want) {
		struct worker *w = &pool.workers[pool.nworkers];
		w->npages = 0;
		w->stop = 0;
		if (pthread_cond_init(&w->wake, NULL))
			break;
		if (pthread_create(&w->thread, &attr, worker_main, w)) {
			pthread_cond_destroy(&w->wake);
			break;     /* fewer threads, never an error */
		}
		pool.nworkers++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	return pool.nworkers;
}

static void atfork_prepare(void)
{
	if (inside_pool()) {
		atomic_fetch_add_explicit(&forks_off_pool, 1, memory_order_relaxed);
		return;
	}
	enter_pool();
	wait_until_no_pending();
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
	pool.finished = pool.started;
	pthread_mutex_init(&pool.lock, NULL);
	pthread_cond_init(&pool.done, NULL);
	if (fork_took_pool())
		leave_mark();     /* the lock: re-initialised instead of released */
}

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static void register_atfork(void)
{
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

__attribute__((constructor)) static void pool_fork_safe(void)
{
	pthread_once(&atfork_once, register_atfork);
}

/*
 * dlclose or exit: stop and join the workers, so that none is left asleep in
 * code about to be unmapped. Skipped when shares are pending (exit from
 * another thread mid-call): those workers are about to finish anyway.
 */
static void __attribute__((destructor)) pool_shutdown(void)
{
	if (inside_pool())
		return;
	enter_pool();
	if (pool.pending) {
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

/* The CPUs this thread may run on (at least 1). */
static unsigned allowed_cpus(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		return (unsigned)CPU_COUNT(&set);
	long online = sysconf(_SC_NPROCESSORS_ONLN);   /* more CPUs than cpu_set_t holds */
	return online > 0 ? (unsigned)(online < (long)UINT_MAX ? online : UINT_MAX) : 1;
}

/* Split [addr, +npages) into `shares` page-aligned shares: share 0 (the
 * caller's) at the start, the first npages % shares shares one page longer. */
static void share_of(unsigned char *addr, size_t npages, unsigned shares, unsigned i,
		     void **share_addr, size_t *share_pages)
{
	size_t base = npages / shares, extra = npages % shares;
	size_t first = i * base + (i < extra ? i : extra);
	*share_addr = addr + first * CP_PAGE_SIZE;
	*share_pages = base + (i < extra);
}

/* cp_clear_pages_parallel with another smallest share: `clearbench parallel`
 * measures the threshold with it (min_share_pages >= 1). */
int cp__clear_pages_parallel_min(void *addr, size_t npages, unsigned nthreads,
				 size_t min_share_pages)
{
	if (npages == 0)
		return 0;
	if (cp__check_pages(addr, npages))
		return -EINVAL;
	/* One kernel for every share, chosen for the whole extent: the shares
	 * together write all of it through the caches they share. (Picking here
	 * also initialises the library on the caller's thread.) */
	const struct cp_kernel *kernel = cp__pick(npages);
	if (nthreads == 0)
		nthreads = allowed_cpus();
	size_t by_size = npages / min_share_pages;
	unsigned shares = by_size < nthreads ? (unsigned)by_size : nthreads;
	if (shares > POOL_MAX_WORKERS + 1)
		shares = POOL_MAX_WORKERS + 1;
	if (shares <= 1 || inside_pool()) {
		kernel->clear(addr, npages);   /* small, or inside the pool already */
		return 0;
	}
	pthread_once(&atfork_once, register_atfork);   /* before any lock */
	enter_pool();
	/* Shares of an earlier call of this thread that is not waiting for them
	 * (left by longjmp, or interrupted by the handler we run in): its
	 * workers are clearing; wait for them, then take the pool. */
	if (pool.pending && pthread_equal(pool.caller, pthread_self()))
		wait_until_no_pending();
	if (pool.pending || pool.closed) {
		leave_pool();
		kernel->clear(addr, npages);   /* another thread's call has the pool */
		return 0;
	}
	unsigned workers = pool_grow(shares - 1);
	if (shares > workers + 1)
		shares = workers + 1;
	if (shares <= 1) {
		leave_pool();
		kernel->clear(addr, npages);
		return 0;
	}
	unsigned long long call = ++pool.started;
	pool.caller = pthread_self();
	pool.pending = shares - 1;
	for (unsigned i = 1; i < shares; i++) {
		struct worker *w = &pool.workers[i - 1];
		share_of(addr, npages, shares, i, &w->addr, &w->npages);
		w->kernel = kernel;
		pthread_cond_signal(&w->wake);
	}
	leave_pool();

	void *share_addr;
	size_t share_pages;
	share_of(addr, npages, shares, 0, &share_addr, &share_pages);
	kernel->clear(share_addr, share_pages);

	enter_pool();
	while (pool.finished < call)
		pthread_cond_wait(&pool.done, &pool.lock);
	leave_pool();
	return 0;
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
