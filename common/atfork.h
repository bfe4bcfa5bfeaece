/* SPDX-License-Identifier: MIT */
#ifndef CP_ATFORK_H
#define CP_ATFORK_H
#include <pthread.h>
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
