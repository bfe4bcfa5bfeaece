/* SPDX-License-Identifier: MIT */
/*
 * The hosted library's first use, each check in a fresh process (a first use
 * happens once per process), as a plain program: it interposes malloc and
 * secure_getenv, which a Criterion binary (and ASan) must keep for itself.
 *
 *  - no heap: the first call allocates nothing when no profile file is
 *    named (an allocator's first cp_clear must not re-enter its own malloc);
 *  - fork during first use: a child forked while another thread is inside
 *    the one-time initialisation initialises again, and then forks again
 *    (once, the fork handlers were registered a second time there, and that
 *    second fork took the publication lock twice: a hang);
 *  - every call but cp_version initialises before it returns, whatever its
 *    arguments (a zero length, an -EINVAL): after one has returned, a
 *    handler that interrupts the first real call must not wait on an
 *    initialisation its own thread holds (it hung, 8 of 20 children);
 *  - a handler-free sanity line per check; the last line is the tally.
 *
 *   first_use [ROUNDS]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "clearpages.h"

extern const char *cp__system_profile_path;    /* common/init.c, before first use */

/* ---- interposed: counted allocations, a slow environment ---------------- */

void *__libc_malloc(size_t);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void *__libc_memalign(size_t, size_t);
void __libc_free(void *);
static volatile int counting, slow_environment;
static volatile unsigned environment_reads;     /* init's reads of CLEARPAGES_QUIET */
static volatile unsigned allocations;

void *malloc(size_t n) { allocations += counting; return __libc_malloc(n); }
void *calloc(size_t n, size_t m) { allocations += counting; return __libc_calloc(n, m); }
void *realloc(void *p, size_t n) { allocations += counting; return __libc_realloc(p, n); }
void free(void *p) { __libc_free(p); }
int posix_memalign(void **p, size_t a, size_t n)
{
	allocations += counting;
	*p = __libc_memalign(a, n);
	return *p ? 0 : 12;
}
void *aligned_alloc(size_t a, size_t n) { allocations += counting; return __libc_memalign(a, n); }

/* The library reads its environment with secure_getenv during init: slowed
 * here, the window in which init runs is 300 ms wide. Not setuid: getenv. */
char *secure_getenv(const char *name)
{
	if (!strcmp(name, "CLEARPAGES_QUIET"))
		environment_reads++;
	if (slow_environment && !strcmp(name, "CLEARPAGES_QUIET")) {
		struct timespec t = { 0, 300 * 1000 * 1000 };
		nanosleep(&t, NULL);
	}
	return getenv(name);
}

/* ---- the checks, each in a child ---------------------------------------- */

static unsigned passed, failed;

/* 64 pages: past the one-page band, into the estimate's path where a
 * policy has one, all on the first use. */
#define FIRST_PAGES 64

static int pages_cleared_by(int (*clear_pages)(void *, size_t), size_t npages)
{
	size_t len = npages * 4096;
	unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 0;
	memset(p, 0xa5, len);
	int ok = clear_pages(p, npages) == 0;
	for (size_t i = 0; ok && i < len; i++)
		ok = p[i] == 0;
	munmap(p, len);
	return ok;
}

static int page_cleared(void)
{
	return pages_cleared_by(cp_clear_pages, 1);
}

/* Wait for pid at most ms milliseconds; 0 when it had to be killed (a hang). */
static int wait_bounded(pid_t pid, unsigned ms, int *status)
{
	pid_t got;
	for (unsigned waited = 0; (got = waitpid(pid, status, WNOHANG)) == 0 && waited < ms;
	     waited += 10) {
		struct timespec t = { 0, 10 * 1000 * 1000 };
		nanosleep(&t, NULL);
	}
	if (got == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, status, 0);
	}
	return got != 0;
}

/* Run body in a child; it must exit 0 within `seconds`. */
static void check(const char *name, int (*body)(void), unsigned seconds)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0)
		_exit(body());
	int status = 0;
	if (!wait_bounded(pid, seconds * 1000, &status)) {
		printf("FAIL %s: hung (killed after %u s)\n", name, seconds);
		failed++;
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		printf("PASS %s\n", name);
		passed++;
	} else {
		printf("FAIL %s: %s %d\n", name, WIFEXITED(status) ? "exit" : "signal",
		       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		failed++;
	}
}

static int no_heap_at_first_use(void)
{
	cp__system_profile_path = "/nonexistent/clearpages/profile";
	unsetenv("CLEARPAGES_PROFILE");
	counting = 1;
	int ok = page_cleared();
	counting = 0;
	if (allocations)
		fprintf(stderr, "first use allocated %u times\n", allocations);
	return !ok ? 1 : allocations ? 2 : 0;
}

/* cp_zero(CP_ZERO_MAY_DISCARD) as its first use, on a range that is
 * discarded on every host: 8 MiB whose middle was handed back already, so
 * untouched whatever discard_from says (never on Zen 4): the residency
 * samples, the maps walk and the THP size go through fixed buffers, so an
 * allocator may call it. */
static int no_heap_in_discard(void)
{
	cp__system_profile_path = "/nonexistent/clearpages/profile";
	unsetenv("CLEARPAGES_PROFILE");
	size_t len = (size_t)8 << 20, discarded = 0;
	unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 3;
	memset(p, 0xa5, len);
	if (madvise(p + 4096, len - 2 * 4096, MADV_DONTNEED))
		return 3;
	counting = 1;
	int ok = cp_zero_ex(p + 1, len - 2, CP_ZERO_MAY_DISCARD, &discarded) == 0;
	counting = 0;
	for (size_t i = 1; ok && i < len - 1; i++)
		ok = p[i] == 0;
	if (allocations)
		fprintf(stderr, "cp_zero(MAY_DISCARD) allocated %u times\n", allocations);
	if (!discarded)
		fprintf(stderr, "cp_zero(MAY_DISCARD) discarded nothing of 8 MiB\n");
	return !ok ? 1 : allocations ? 2 : discarded ? 0 : 4;
}

/* Each page call as a process's first use: it publishes the state out of
 * line (common/api.c), then clears as any later call would. */
static int hot_first(void) { return !pages_cleared_by(cp_clear_pages_hot, FIRST_PAGES); }
static int cold_first(void) { return !pages_cleared_by(cp_clear_pages_cold, FIRST_PAGES); }
static int any_first(void) { return !pages_cleared_by(cp_clear_pages, FIRST_PAGES); }

static void *first_use_thread(void *arg)
{
	(void)arg;
	page_cleared();
	return NULL;
}

/* The grandchild: initialise again (its parent forked mid-init), then fork. */
static int after_fork_mid_init(void)
{
	slow_environment = 0;
	if (!page_cleared())
		return 3;
	pid_t pid = fork();          /* hung here once: prepare ran twice */
	if (pid == 0)
		_exit(page_cleared() ? 0 : 4);
	int status;
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 5;
	return WEXITSTATUS(status);
}

static int fork_during_first_use(void)
{
	slow_environment = 1;
	pthread_t t;
	if (pthread_create(&t, NULL, first_use_thread, NULL))
		return 6;
	struct timespec mid = { 0, 100 * 1000 * 1000 };   /* well inside the 300 ms */
	nanosleep(&mid, NULL);
	pid_t pid = fork();
	if (pid == 0)
		_exit(after_fork_mid_init());
	int status = 0;
	if (!wait_bounded(pid, 5000, &status)) {
		fprintf(stderr, "the child forked during first use hung in its own fork\n");
		return 7;
	}
	pthread_join(t, NULL);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 8;
}

/* ---- calls that return early initialise ---------------------------------- */

static unsigned char early_page[4096] __attribute__((aligned(4096)));
static unsigned char early_dst[4096] __attribute__((aligned(4096)));
static int nop_progress(size_t done, size_t len, void *ctx)
{
	(void)done, (void)len, (void)ctx;
	return 0;
}

/* Each returns before any page is touched: zero lengths, then rejections. */
static void early_calls(unsigned i)
{
	void *p = early_page, *d = early_dst, *bad = early_page + 1;
	const struct cp_kernel *const *kl;
	const struct cp_copy_kernel *const *cl;
	struct cp_huge_opts o = CP_HUGE_OPTS_INIT;
	struct cp_policy_info info = { .size = 1 };
	size_t n;
	switch (i) {
	case 0: cp_clear_pages(p, 0); break;
	case 1: cp_clear_pages_hot(p, 0); break;
	case 2: cp_clear_pages_cold(p, 0); break;
	case 3: cp_clear(p, 0); break;
	case 4: cp_zero(p, 0, 0); break;
	case 5: cp_zero_ex(p, 0, CP_ZERO_MAY_DISCARD, &n); break;
	case 6: cp_zero_progress(p, 0, 0, nop_progress, NULL, &n); break;
	case 7: cp_clear_huge(p, 0, 0); break;
	case 8: cp_clear_huge_opts(p, 0, 0, &o); break;
	case 9: cp_copy_pages(d, p, 0); break;
	case 10: cp_copy_huge(d, p, 0, 0); break;
	case 11: cp_copy_huge_opts(d, p, 0, 0, &o, NULL); break;
	case 12: cp_clear_pages_parallel(p, 0, 2); break;
	case 13: cp_clear_pages(bad, 1); break;
	case 14: cp_clear_pages_hot(bad, 1); break;
	case 15: cp_clear_pages_cold(bad, 1); break;
	case 16: cp_clear(NULL, 1); break;
	case 17: cp_zero(p, 4096, 0x80000000u); break;
	case 18: cp_zero_progress(NULL, 1, 0, nop_progress, NULL, &n); break;
	case 19: cp_clear_huge(bad, 1, 0); break;
	case 20: cp_copy_pages(p, p, 1); break;
	case 21: cp_copy_huge(bad, p, 1, 0); break;
	case 22: cp_clear_pages_parallel(bad, 1, 2); break;
	case 23: cp_kernels(&kl); break;
	case 24: cp_kernel_find("no such kernel"); break;
	case 25: cp_kernel_for(0); break;
	case 26: cp_copy_kernels(&cl); break;
	case 27: cp_copy_kernel_find("no such kernel"); break;
	case 28: cp_copy_kernel_for(0); break;
	case 29: cp_policy_source(); break;
	case 30: cp_set_profile("/nonexistent/clearpages/profile"); break;
	case 31: cp_copy(d, p, 0, 0); break;
	case 32: cp_copy(NULL, p, 1, 0); break;
	case 33: cp_copy(d, p, 4096, CP_COPY_HOT | CP_COPY_COLD); break;
	case 34: cp_policy_info(NULL); break;
	case 35: cp_policy_info(&info); break;
	}
}
#define EARLY_CALLS 36

static int early_calls_initialise(void)
{
	cp__system_profile_path = "/nonexistent/clearpages/profile";
	unsetenv("CLEARPAGES_PROFILE");
	int bad = 0;
	for (unsigned i = 0; i < EARLY_CALLS; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			early_calls(i);
			_exit(environment_reads ? 0 : 1);
		}
		int status;
		if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			fprintf(stderr, "early call %u returned without initialising\n", i);
			bad = 1;
		}
	}
	return bad;
}

static volatile sig_atomic_t handler_ran, handler_cleared;
static void clear_in_handler(int sig)
{
	(void)sig;
	static unsigned char page[4096] __attribute__((aligned(4096)));
	page[0] = 1;
	handler_cleared = cp_clear_pages(page, 1) == 0 && page[0] == 0;
	handler_ran = 1;
}

/* The contract's own order: a call returns (a zero-length one), then a
 * handler interrupts the first real call. The initialisation is slowed to
 * 300 ms and the timer fires 50 ms into whichever call initialises. */
static int handler_after_early_return(void)
{
	cp__system_profile_path = "/nonexistent/clearpages/profile";
	unsetenv("CLEARPAGES_PROFILE");
	slow_environment = 1;
	if (cp_clear(early_page, 0) != 0)
		return 3;
	struct sigaction sa = { .sa_handler = clear_in_handler };
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL))
		return 3;
	struct itimerval it = { .it_value = { 0, 50 * 1000 } };
	setitimer(ITIMER_REAL, &it, NULL);
	if (!pages_cleared_by(cp_clear_pages, FIRST_PAGES))
		return 1;
	for (unsigned ms = 0; !handler_ran && ms < 2000; ms++) {
		struct timespec t = { 0, 1000 * 1000 };
		nanosleep(&t, NULL);
	}
	return !handler_ran ? 4 : handler_cleared ? 0 : 5;
}

int main(int argc, char **argv)
{
	unsigned rounds = argc > 1 ? (unsigned)atoi(argv[1]) : 3;
	setvbuf(stdout, NULL, _IOLBF, 0);
	check("no heap at first use", no_heap_at_first_use, 10);
	check("no heap in cp_zero's discard", no_heap_in_discard, 10);
	check("cp_clear_pages as the first use", any_first, 10);
	check("cp_clear_pages_hot as the first use", hot_first, 10);
	check("cp_clear_pages_cold as the first use", cold_first, 10);
	for (unsigned i = 0; i < rounds; i++)
		check("fork during first use, then fork in the child", fork_during_first_use, 10);
	check("every call but cp_version initialises before it returns", early_calls_initialise, 20);
	for (unsigned i = 0; i < rounds; i++)
		check("a handler in the first real call, after a call returned",
		      handler_after_early_return, 10);
	printf("%u passed, %u failed\n", passed, failed);
	return failed != 0;
}
