/* SPDX-License-Identifier: MIT */
/* Issue 38, the signal contract and the profile cap (suite zero_safety, with
 * tests/test_zero_safety.c): a handler's cp_set_profile on the thread it
 * interrupted inside cp_set_profile, a handler's parallel call in a process
 * whose pool has no workers yet while its thread is in malloc, and one
 * profile reloaded under 300 spellings of its path.
 *
 * The handler tests run in a forked child (PR_SET_PDEATHSIG, alarm), paced by
 * a timer aimed at the looping thread (SIGEV_THREAD_ID) whose interval comes
 * from the handler's measured cost here; the child disarms it when enough
 * handlers ran, and the parent kills it past a deadline made of the same
 * measurement. */
#include "testutil.h"
#include "profile_files.h"
#include "testhooks.h"
#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>

static double now_ns(void)
{
	return test_now_seconds() * 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Median ns of 21 calls of fn(arg). */
static double median_cost(void (*fn)(void *), void *arg)
{
	double t[21];
	for (int i = 0; i < 21; i++) {
		double s = now_ns();
		fn(arg);
		t[i] = now_ns() - s;
	}
	qsort(t, 21, sizeof(t[0]), cmp_double);
	return t[10];
}

/* The timer: SIGUSR1 to this thread every every_ns. */
static timer_t timer;
static void timer_arm(long every_ns)
{
	struct sigevent ev;
	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGUSR1;
	ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_MONOTONIC, &ev, &timer))
		_exit(78);
	struct itimerspec its = { { 0, every_ns }, { 0, every_ns } };
	timer_settime(timer, 0, &its, NULL);
}

static void timer_disarm(void)      /* async-signal-safe */
{
	struct itimerspec off;
	memset(&off, 0, sizeof(off));
	timer_settime(timer, 0, &off, NULL);
}

static void on_signal(void (*fn)(int))
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
}

/* Run body in a child; fail if it is not done within deadline_s. */
static int child_status(int (*body)(void), double deadline_s)
{
	pid_t pid = test_fork((unsigned)deadline_s + 1);
	cr_assert(pid >= 0);
	if (pid == 0)
		_exit(body());
	int st = 0;
	double end = now_ns() + (deadline_s + 3) * 1e9;
	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (now_ns() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			cr_assert_fail("the child still ran %.0f s past its deadline", deadline_s + 3);
		}
		usleep(2000);
	}
	cr_assert(WIFEXITED(st), "the child died of signal %d (%s)%s", WTERMSIG(st),
		  strsignal(WTERMSIG(st)), WTERMSIG(st) == SIGALRM ? ": it hung past its deadline" : "");
	return WEXITSTATUS(st);
}

static long interval_from(double cost_ns)
{
	double ns = cost_ns * 4 < 20000 ? 20000 : cost_ns * 4;
	return ns > 999999999 ? 999999999 : (long)ns;
}

/* ---- a handler's cp_set_profile on the thread it interrupted in one ---- */
static const char *paths[2];
static volatile sig_atomic_t runs, busy, bad;
static int want;
static double interval_ns;

/* body() in a child, its timer's interval four times the median cost of the
 * handler's work (work(arg), measured here), so that each interval leaves the
 * loop at least three times the handler's time; want handlers, and a
 * deadline of ten intervals each plus 5 s. The child's status. */
static int paced_child(void (*work)(void *), void *arg, int (*body)(void))
{
	double cost = median_cost(work, arg);
	want = test_quick() || test_under_valgrind() ? 200 : 3000;
	interval_ns = interval_from(cost);
	return child_status(body, 5 + want * interval_ns * 10 / 1e9);
}

static void make_two_profiles(void)
{
	for (int i = 0; i < 2; i++) {
		char text[512];
		snprintf(text, sizeof(text), "version 2\narch %s\ncpu %s\nband 0 %s\nband %uk %s\n"
			 "parallel none\nend\n", cp_kernel_find(BASELINE)->arch, profile_this_cpu(),
			 BASELINE, 64u << i, BASELINE_NT);
		paths[i] = profile_file(text, strlen(text));
	}
}

static void reload(int sig)
{
	(void)sig;
	int saved = errno, r = cp_set_profile(paths[1]);
	if (r == -EBUSY)
		busy++;
	else if (r)
		bad++;
	if (++runs >= want)
		timer_disarm();
	errno = saved;
}

static int reload_loop(void)
{
	for (unsigned long i = 0; runs < want; i++)
		if (cp_set_profile(i & 1 ? NULL : paths[0]))
			return 3;
	timer_disarm();
	return bad ? 4 : 0;
}

static void load_once(void *arg)
{
	cr_assert_eq(cp_set_profile(arg), 0);
}

static int reload_child(void)
{
	on_signal(reload);               /* before the timer: its first tick may come at once */
	timer_arm((long)interval_ns);
	return reload_loop();
}

Test(zero_safety, handler_set_profile_interrupting_set_profile, .fini = profile_files_remove)
{
	make_two_profiles();
	int s = paced_child(load_once, (void *)paths[1], reload_child);
	cr_assert_eq(s, 0, "child status %d (3 a load failed, 4 a handler's load failed "
		     "otherwise than -EBUSY, 78 no timer)", s);
}

/* ---- a handler's parallel call while the pool has no workers ---- */
#define HPAGES 64
static unsigned char *hbuf;

static void clear_in_handler(int sig)
{
	(void)sig;
	int saved = errno;
	memset(hbuf, FILL, HPAGES * PG);
	if (cp__clear_pages_parallel_min(hbuf, HPAGES, 4, 1) ||
	    first_not(hbuf, HPAGES * PG, 0) != HPAGES * PG)
		bad++;
	if (++runs >= want)
		timer_disarm();
	errno = saved;
}

/* Threads of this process, from /proc/self/status (no stdio in the child). */
static int threads_now(void)
{
	char buf[4096];
	int fd = open("/proc/self/status", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	const char *t = strstr(buf, "\nThreads:");
	return t ? atoi(t + 9) : -1;
}

static int malloc_child(void)
{
	/* the threads there are before (under qemu-user its own show too) */
	int before = threads_now();
	on_signal(clear_in_handler);
	timer_arm((long)interval_ns);
	for (unsigned long i = 0; runs < want; i++) {
		void *p = malloc(16 + (i * 37) % 3000);
		if (p)
			*(volatile char *)p = 1;
		free(p);
	}
	timer_disarm();
	if (bad)
		return 4;
	return threads_now() == before ? 0 : 6;
}

static void clear_alone(void *arg)
{
	(void)arg;
	memset(hbuf, FILL, HPAGES * PG);
	cp_clear_pages(hbuf, HPAGES);
}

Test(zero_safety, handler_parallel_call_on_a_cold_pool)
{
	hbuf = mmap(NULL, HPAGES * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert(hbuf != MAP_FAILED);
	int s = paced_child(clear_alone, NULL, malloc_child);
	cr_assert_eq(s, 0, "child status %d (4 a handler's clear failed, 6 a handler created "
		     "worker threads, 78 no timer)", s);
	munmap(hbuf, HPAGES * PG);
}

/* ---- one profile under 300 spellings of its path holds one state ---- */
Test(zero_safety, one_profile_under_many_spellings_is_one_state, .fini = profile_files_remove)
{
	make_two_profiles();
	char dir[] = "/tmp/cp_spell_XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	char spelling[1024], link[64];
	int loaded = 0;
	for (int i = 0; i < 300; i++) {
		if (i % 3 == 0) {          /* a symlink */
			snprintf(link, sizeof(link), "%s/l%d", dir, i);
			cr_assert_eq(symlink(paths[0], link), 0);
			snprintf(spelling, sizeof(spelling), "%s", link);
		} else {                   /* "/./" or "//" repeated */
			int n = 0, k = i / 3 + 1;
			for (int j = 0; j < k && n < 900; j++)
				n += snprintf(spelling + n, sizeof(spelling) - n, i % 3 == 1 ? "/." : "/");
			snprintf(spelling + n, sizeof(spelling) - n, "%s", paths[0]);
		}
		int r = cp_set_profile(spelling);
		loaded += r == 0;
		if (r)
			break;
	}
	for (int i = 0; i < 300; i += 3) {
		snprintf(link, sizeof(link), "%s/l%d", dir, i);
		unlink(link);
	}
	rmdir(dir);
	cr_assert_eq(loaded, 300, "spelling %d of one unchanged profile failed", loaded);
	cr_assert_eq(cp_set_profile(paths[1]), 0, "a distinct profile after 300 spellings");
	cr_assert_eq(cp__policy_nt_from(&cp__state()->policy), (size_t)128 * 1024 / PG);
	cr_assert_eq(cp_set_profile(paths[0]), 0);
	cr_assert_eq(cp__policy_nt_from(&cp__state()->policy), (size_t)64 * 1024 / PG);
}
