/* SPDX-License-Identifier: MIT */
/*
 * fork() against the library's locks: a child forked while another thread
 * loads profiles or runs a parallel clear must find every lock free, and the
 * pool's fork handlers must exist before the pool is first used (a fork
 * between the first call taking the pool and registering them would leave
 * the child's pool locked). A child that has not exited after
 * test_hang_seconds(10) (testutil.h: 10 s plus 2000 of this host's fork and
 * wait, measured) hangs: a deadline no slow host trips, not a speed.
 */
#include "testutil.h"
#include "parallel.h"
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>

/*
 * pthread_atfork as the library sees it: this definition in the test binary
 * binds the library's call (it is linked statically into this binary) and
 * forwards to what glibc's own pthread_atfork does, counting registrations.
 */
extern void *__dso_handle;
extern int __register_atfork(void (*)(void), void (*)(void), void (*)(void), void *);
static unsigned atfork_registrations;
int pthread_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void))
{
	__atomic_fetch_add(&atfork_registrations, 1, __ATOMIC_RELAXED);
	return __register_atfork(prepare, parent, child, __dso_handle);
}

/* Fork; the child runs body then _exit(0) (only async-signal-safe calls
 * and the library's), killed by SIGALRM after `seconds`: a hang. */
static void fork_bounded(void (*body)(void), unsigned round, unsigned seconds)
{
	pid_t pid = test_fork(seconds);
	cr_assert(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		body();
		_exit(0);
	}
	int status;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "fork %u: child %s %d (SIGALRM = hung on a lock for %u s)", round,
		  WIFSIGNALED(status) ? "killed by signal" : "exited with",
		  WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status), seconds);
}

static char profile_path[64];
static volatile int loader_stop;

static void *load_profiles(void *arg)
{
	(void)arg;
	while (!loader_stop) {
		cp_set_profile(profile_path);
		cp_set_profile(NULL);
	}
	return NULL;
}

/*
 * Under qemu-user with QEMU_LD_PREFIX (the arm64 matrix), any path system
 * call in the child (stat, open) can hang inside qemu itself when the
 * loader thread was in one at the fork: qemu's path lookup lock does not
 * survive fork (a bare stat() in the child hung). There the child takes the
 * library's lock only (cp_set_profile(NULL)), which is what a fork-unsafe
 * profile lock would hang on.
 */
static int child_reads_the_file;

static void child_loads_profile(void)
{
	if ((child_reads_the_file && cp_set_profile(profile_path)) || cp_set_profile(NULL))
		_exit(3);
}

Test(fork, during_profile_loads_child_never_hangs)
{
	const struct cp_kernel *const *list;
	cr_assert_gt(cp_kernels(&list), 0);
	char text[256];
	int n = snprintf(text, sizeof(text), "version 1\narch %s\nsmall %s\nnt_from 8M\n",
			 list[0]->arch, list[0]->name);
	strcpy(profile_path, "/tmp/cp_test_fork_XXXXXX");
	int fd = mkstemp(profile_path);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, text, (size_t)n), n);
	close(fd);
	cr_assert_eq(cp_set_profile(profile_path), 0);

	child_reads_the_file = getenv("QEMU_LD_PREFIX") == NULL;
	unsigned seconds = test_hang_seconds(10);       /* measured before the thread starts */
	pthread_t loader;
	loader_stop = 0;
	cr_assert_eq(pthread_create(&loader, NULL, load_profiles, NULL), 0);
	unsigned forks = test_quick() ? 50 : 2000;
	for (unsigned i = 0; i < forks; i++)
		fork_bounded(child_loads_profile, i, seconds);
	loader_stop = 1;
	pthread_join(loader, NULL);
	unlink(profile_path);
}

/* Parallel callers and forks: the child's pool starts empty and works. */
#define SHARE 16u
#define PAGES (4u * SHARE)
static unsigned char *fork_buf;

static void *parallel_caller(void *arg)
{
	unsigned char *buf = arg;
	while (!loader_stop)
		cp__clear_pages_parallel_min(buf, PAGES, 4, SHARE);
	return NULL;
}

static void child_clears_in_parallel(void)
{
	memset(fork_buf, FILL, PAGES * PG);
	if (cp__clear_pages_parallel_min(fork_buf, PAGES, 4, SHARE) ||
	    first_not(fork_buf, PAGES * PG, 0) != PAGES * PG)
		_exit(4);
}

/* gcc 12's and clang 14's AddressSanitizer do not lock their allocator across fork: a child
 * forked while a parent thread is inside it hangs in its first malloc (here pthread_create's,
 * as the child's pool starts its workers; gdb shows all of them in SizeClassAllocator64's
 * mutex). The library's side is checked by the plain and the valgrind runs of this test. */

Test(fork, during_parallel_calls_child_pool_works)
{
#ifdef CP_TEST_ASAN
	cr_skip_test("under AddressSanitizer: its allocator is not fork-safe with other threads "
		     "running (a child's malloc can wait on a lock held at fork); run natively "
		     "and under valgrind");
#endif
	struct guarded mine = guarded_map(PAGES), theirs = guarded_map(PAGES);
	fork_buf = mine.mem;
	/* Under qemu-user the pool's workers exist before the first fork. Once
	 * (CI, the arm64 matrix's max-disabled row) the child of fork 0, forked
	 * just after the caller thread started, while its first call may still
	 * have been starting the workers, hung from its start (the whole test
	 * took 2.06 s); 1500 more forks of this test under the same qemu then
	 * passed, 600 of them beside two busy loops, and the cause was not
	 * found. Only the first fork can meet threads starting in the parent:
	 * natively and under valgrind that window stays in. */
	unsigned seconds = test_hang_seconds(10);       /* measured before the thread starts */
	if (getenv("QEMU_LD_PREFIX"))
		cr_assert_eq(cp__clear_pages_parallel_min(theirs.mem, PAGES, 4, SHARE), 0);
	pthread_t caller;
	loader_stop = 0;
	cr_assert_eq(pthread_create(&caller, NULL, parallel_caller, theirs.mem), 0);
	unsigned forks = test_quick() ? 10 : 200;
	for (unsigned i = 0; i < forks; i++)
		fork_bounded(child_clears_in_parallel, i, seconds);
	loader_stop = 1;
	pthread_join(caller, NULL);
	guard_unmap(&mine);
	guard_unmap(&theirs);
}

/* This test process has not used the pool yet (Criterion runs each test in
 * a fresh exec): the handlers must be registered already, not on first use. */
Test(fork, pool_handlers_registered_before_first_use)
{
	cr_assert_gt(cp_kernels(NULL), 0);    /* initialised, as by any first call */
	unsigned before = __atomic_load_n(&atfork_registrations, __ATOMIC_RELAXED);
	struct guarded g = guarded_map(PAGES);
	memset(g.mem, FILL, g.len);
	cr_assert_eq(cp__clear_pages_parallel_min(g.mem, PAGES, 4, SHARE), 0);
	unsigned after = __atomic_load_n(&atfork_registrations, __ATOMIC_RELAXED);
	cr_assert_gt(before, 0, "no fork handler registered before the first parallel call");
	cr_assert_eq(after, before, "%u fork handlers registered by the first parallel call",
		     after - before);
	fork_buf = g.mem;
	fork_bounded(child_clears_in_parallel, 0, test_hang_seconds(10));
	guard_unmap(&g);
}
