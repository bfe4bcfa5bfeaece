/* SPDX-License-Identifier: MIT */
#ifndef CP_ATFORK_H
#define CP_ATFORK_H
#include <pthread.h>
#include <stdatomic.h>

/* A lock that a signal handler on the holder's thread must never wait for:
 * the thread's mark is set before the lock is taken and cleared after it is
 * released, with signal fences, so a handler (a fork's prepare handler, a
 * nested call) that finds the mark clear knows its thread does not hold the
 * lock. The mark is a lock-free atomic, which a handler may read. */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "a handler reads the mark");
static inline void cp__marked_lock(pthread_mutex_t *lock, atomic_int *mark)
{
	atomic_store_explicit(mark, 1, memory_order_relaxed);
	atomic_signal_fence(memory_order_seq_cst);
	pthread_mutex_lock(lock);
}
static inline void cp__marked_clear(atomic_int *mark)
{
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store_explicit(mark, 0, memory_order_relaxed);
}
static inline void cp__marked_unlock(pthread_mutex_t *lock, atomic_int *mark)
{
	pthread_mutex_unlock(lock);
	cp__marked_clear(mark);
}
/* Register fork handlers once per flag, from a constructor and again before
 * first use (a call made before the constructors ran). An exchange, not a
 * pthread_once: a child forked inside a once routine runs it again, and
 * handlers registered twice take their lock twice in the child's next fork. */
static inline void cp__atfork_once(int *registered, void (*prepare)(void),
				   void (*parent)(void), void (*child)(void))
{
	if (!__atomic_exchange_n(registered, 1, __ATOMIC_ACQ_REL))
		pthread_atfork(prepare, parent, child);
}
#endif
