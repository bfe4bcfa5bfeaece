/*
 * cp_clear_pages_parallel: one extent split into page-aligned shares, the
 * calling thread clearing one share and pooled worker threads the others.
 *
 * The pool: worker threads are created on demand (up to what a call asks for,
 * at most POOL_MAX_WORKERS) and then kept, each blocked on its own condition
 * variable between calls. A thread that cannot be created means fewer shares.
 *
 * Concurrent callers: one call owns the pool at a time. A second caller that
 * finds the pool busy does not wait for it: it clears its extent alone on its
 * own thread (the CPUs are busy with the first call's shares anyway).
 *
 * The workers are joined when the library is unloaded or the process exits.
 *
 * fork(): the child has no worker threads, so an atfork handler empties the
 * pool in the child and the next parallel call there recreates it. The
 * prepare handler takes both locks, so the pool is never copied mid-call.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
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
	pthread_mutex_t owner;     /* held by the call using the pool */
	pthread_mutex_t lock;      /* guards everything below */
	pthread_cond_t done;       /* pending reached 0 */
	unsigned pending;          /* shares handed out and not yet cleared */
	unsigned nworkers;         /* threads started and waiting in worker_main */
	struct worker workers[POOL_MAX_WORKERS];
} pool = {
	.owner = PTHREAD_MUTEX_INITIALIZER,
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.done = PTHREAD_COND_INITIALIZER,
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
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
		if (--pool.pending == 0)
			pthread_cond_signal(&pool.done);
	}
	pthread_mutex_unlock(&pool.lock);
	return NULL;
}

/* Start workers until there are `want` (pool.owner held). Returns how many exist. */
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
	/* Workers inherit a full signal mask: the caller's handlers never run on them. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
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
	pthread_mutex_lock(&pool.owner);
	pthread_mutex_lock(&pool.lock);
}

static void atfork_parent(void)
{
	pthread_mutex_unlock(&pool.lock);
	pthread_mutex_unlock(&pool.owner);
}

static void atfork_child(void)
{
	/* The workers did not follow us; their condition variables may count
	 * waiters that no longer exist, and are re-initialised when reused. */
	pool.nworkers = 0;
	pool.pending = 0;
	pthread_cond_init(&pool.done, NULL);
	pthread_mutex_unlock(&pool.lock);
	pthread_mutex_unlock(&pool.owner);
}

/*
 * dlclose or exit: stop and join the workers, so that none is left asleep in
 * code about to be unmapped. Skipped when a call is in progress (exit from
 * another thread mid-call): those workers are about to finish anyway.
 */
static void __attribute__((destructor)) pool_shutdown(void)
{
	if (pthread_mutex_trylock(&pool.owner))
		return;
	pthread_mutex_lock(&pool.lock);
	unsigned n = pool.nworkers;
	for (unsigned i = 0; i < n; i++) {
		pool.workers[i].stop = 1;
		pthread_cond_signal(&pool.workers[i].wake);
	}
	pool.nworkers = 0;
	pthread_mutex_unlock(&pool.lock);
	for (unsigned i = 0; i < n; i++) {
		pthread_join(pool.workers[i].thread, NULL);
		pthread_cond_destroy(&pool.workers[i].wake);
	}
	pthread_mutex_unlock(&pool.owner);
}

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static void register_atfork(void)
{
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
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
	if (shares <= 1 || pthread_mutex_trylock(&pool.owner)) {
		kernel->clear(addr, npages);   /* small, or the pool is busy */
		return 0;
	}
	pthread_once(&atfork_once, register_atfork);
	unsigned workers = pool_grow(shares - 1);
	if (shares > workers + 1)
		shares = workers + 1;

	void *share_addr;
	size_t share_pages;
	pthread_mutex_lock(&pool.lock);
	pool.pending = shares - 1;
	for (unsigned i = 1; i < shares; i++) {
		struct worker *w = &pool.workers[i - 1];
		share_of(addr, npages, shares, i, &w->addr, &w->npages);
		w->kernel = kernel;
		pthread_cond_signal(&w->wake);
	}
	pthread_mutex_unlock(&pool.lock);

	share_of(addr, npages, shares, 0, &share_addr, &share_pages);
	kernel->clear(share_addr, share_pages);

	pthread_mutex_lock(&pool.lock);
	while (pool.pending)
		pthread_cond_wait(&pool.done, &pool.lock);
	pthread_mutex_unlock(&pool.lock);
	pthread_mutex_unlock(&pool.owner);
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
