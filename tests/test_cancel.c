/* SPDX-License-Identifier: MIT */
/*
 * pthread_cancel against the parallel pool. A thread cancelled while inside
 * a parallel call (its waits are cancellation points, taken with the pool
 * lock held) must leave the pool usable: the next parallel call of another
 * thread clears, and fork() (whose prepare handler takes the pool) returns.
 * A fresh process (the pool is the process's), many rounds; a hang ends at
 * the child's alarm and fails.
 */
#include "testutil.h"
#include <pthread.h>
#include "parallel.h"

#define ROUNDS 40
#define CANCEL_PAGES 2048          /* 8 MiB in 2 shares */

/* Split whatever the policy says (a host's row may never split). */
static int split(void *addr, size_t npages)
{
	return cp__clear_pages_parallel_min(addr, npages, 2, 1);
}

static unsigned char *cancel_buf;
static volatile unsigned calls_made;

static void *parallel_loop(void *arg)
{
	(void)arg;
	for (;;) {
		split(cancel_buf, CANCEL_PAGES);
		__atomic_fetch_add(&calls_made, 1, __ATOMIC_RELAXED);
		pthread_testcancel();   /* the caller's own point: a request acts here */
	}
	return NULL;
}

CHILD_BODY(cancel_inside_parallel_calls)
{
	size_t len = CANCEL_PAGES * PG;
	cancel_buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (cancel_buf == MAP_FAILED)
		_exit(90);
	for (unsigned round = 0; round < ROUNDS; round++) {
		calls_made = 0;
		pthread_t t;
		if (pthread_create(&t, NULL, parallel_loop, NULL))
			_exit(91);
		while (__atomic_load_n(&calls_made, __ATOMIC_RELAXED) < 2)
			sched_yield();
		pthread_cancel(t);     /* lands inside a call, or between two */
		void *ret;
		if (pthread_join(t, &ret) || ret != PTHREAD_CANCELED)
			_exit(92);
		memset(cancel_buf, 0xa5, len);
		if (split(cancel_buf, CANCEL_PAGES))
			_exit(93);
		for (size_t i = 0; i < len; i += 64)
			if (cancel_buf[i])
				_exit(94);
		pid_t pid = fork();
		if (pid == 0)
			_exit(0);
		int status;
		if (pid < 0 || waitpid(pid, &status, 0) != pid)
			_exit(95);
	}
	_exit(0);
}

Test(cancel, inside_parallel_calls_leaves_the_pool_usable, .timeout = 60)
{
	struct child_out co = run_child(no_env, "cancel_inside_parallel_calls");
	cr_assert(WIFEXITED(co.status) && WEXITSTATUS(co.status) == 0,
		  "status 0x%x (SIGALRM, 0x%x: a later parallel call or fork waited on the pool "
		  "for good; exit code 92-95: the failing step) %s", co.status, SIGALRM, co.err);
}
