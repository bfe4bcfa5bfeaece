/* SPDX-License-Identifier: MIT */
/* Helpers shared by the Criterion suites: guard-paged mappings, fill and
 * verification, child processes with their own environment. */
#ifndef CP_TESTUTIL_H
#define CP_TESTUTIL_H

#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/wait.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include "clearpages.h"
#include "guard.h"

#define PG ((size_t)CP_PAGE_SIZE)

/* Kernels every CPU of the arch has, never the default choice for one page,
 * and general-register ones: they stay under CLEARPAGES_DISABLE=simd. */
#if defined(__x86_64__)
#define BASELINE "movq"
#define BASELINE_UPPER "MOVQ"
#define BASELINE_NT "movnti"
#else
#define BASELINE "stp"
#define BASELINE_UPPER "STP"
#define BASELINE_NT "stnp_x"
#endif

/* guarded_map: guard_map (guard.h) that must succeed. */
static inline struct guarded guarded_map(size_t pages)
{
	struct guarded g;
	cr_assert(guard_map(&g, pages) == 0, "mmap of %zu guarded pages failed", pages);
	return g;
}

/* Assert [start, start+len) of mem (size total) is zero and all else is FILL
 * (guard_verify). */
static inline void assert_cleared(const char *who, const unsigned char *mem, size_t total,
				  size_t start, size_t len)
{
	char why[160];
	int bad = guard_verify(mem, total, start, len, why, sizeof(why));
	cr_assert(!bad, "%s: %s", who, why);
}

/* Tests scale down under emulation: CP_TEST_QUICK=1 (set by the qemu runners). */
static inline int test_quick(void)
{
	const char *q = getenv("CP_TEST_QUICK");
	return q && *q && strcmp(q, "0");
}

/* Built with AddressSanitizer (gcc or clang): its allocator is not fork-safe,
 * so a child forked while another thread, or the code a handler interrupted,
 * is inside it hangs in its first malloc. Fork-at-the-worst-moment tests skip
 * there, saying so; they run natively and under valgrind. */
/* Under valgrind (its header where installed; it ships with the tool). */
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define test_under_valgrind() (RUNNING_ON_VALGRIND != 0)
#endif
#endif
#ifndef test_under_valgrind
#define test_under_valgrind() 0
#endif

/*
 * Children of a test. A test's child must never outlive it: Criterion kills
 * a worker that runs past its timeout, and a child that was forking in a
 * loop went on for minutes after (the Zen 5 VM). test_fork's child dies with
 * the thread that forked it (PR_SET_PDEATHSIG; it exits at once if that
 * thread is already gone) and after `seconds` (SIGALRM; 0: no alarm).
 * A fork from a signal handler whose child _exits at once needs neither.
 */
static inline pid_t test_fork(unsigned seconds)
{
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(126);
		if (seconds)
			alarm(seconds);
	}
	return pid;
}

static inline double test_now_seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* A one-shot timer of half a round's measured time (seconds), at least
 * min_us: a timer test's round is then interrupted about twice, natively,
 * under valgrind and under qemu, however fast this host runs it. */
static inline struct itimerval test_half_round_tick(double round_seconds, uint64_t min_us)
{
	uint64_t half = (uint64_t)(round_seconds * 1e6 / 2) + 1;        /* us */
	if (half < min_us)
		half = min_us;
	return (struct itimerval){ { 0, 0 }, { (time_t)(half / 1000000u),
					     (suseconds_t)(half % 1000000u) } };
}

/* The median of nine timings (sorted in place). */
static inline double test_median9(double t[9])
{
	for (int i = 1; i < 9; i++)            /* insertion sort: nine values */
		for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
			double x = t[j];
			t[j] = t[j - 1], t[j - 1] = x;
		}
	return t[4];
}

/* This host's cost of a fork and the wait for a child that exits at once,
 * in seconds (median of 9): the unit a test paced by forks derives its timer,
 * counts and deadline from. 0.2-0.3 ms on the hosts the fork tests were
 * written on, 1.2 ms on the Zen 5 VM, tens of ms under valgrind and qemu. */
static inline double test_fork_wait_seconds(void)
{
	double t[9];
	for (int i = 0; i < 9; i++) {
		double t0 = test_now_seconds();
		pid_t pid = fork();
		if (pid == 0)
			_exit(0);
		int status;
		if (pid > 0)
			waitpid(pid, &status, 0);
		t[i] = test_now_seconds() - t0;
	}
	return test_median9(t);
}

/*
 * Deadlines that only detect a hang. A hang never ends, so a generous
 * deadline loses nothing, and a slow host (valgrind, qemu, a loaded VM) must
 * never trip one: `seconds`, plus 2000 of this host's fork and wait
 * (test_fork_wait_seconds, measured once per process): 0.4-2.4 s more
 * natively (8 s on the 2-vCPU Zen 4 VM under load 5), a minute and more
 * under valgrind and qemu. No test asserts how fast a call returns; a
 * deadline past this is a hang.
 */
static inline unsigned test_hang_seconds(unsigned seconds)
{
	static double unit = -1;
	if (unit < 0)
		unit = test_fork_wait_seconds();
	return seconds + (unsigned)(2000 * unit);
}

/* Under qemu-user: the runners (tests/models/arm64.sh) set QEMU_CPU and
 * QEMU_LD_PREFIX; without them, an arm64 binary on a machine whose
 * binfmt_misc hands arm64 binaries to qemu-aarch64 is emulated too (a native
 * arm64 kernel has no reason to register it). Timing under emulation says
 * nothing of caches. */
static inline int test_under_qemu(void)
{
	if (getenv("QEMU_CPU") || getenv("QEMU_LD_PREFIX"))
		return 1;
#if defined(__aarch64__)
	if (access("/proc/sys/fs/binfmt_misc/qemu-aarch64", F_OK) == 0)
		return 1;
#endif
	return 0;
}

#if defined(__SANITIZE_ADDRESS__)
#define CP_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CP_TEST_ASAN 1
#endif
#endif


/*
 * Child processes. The library reads its environment once, at its first use,
 * so every environment case needs a fresh process. A bare fork() of a Criterion
 * worker (which has a second thread) was seen to hang on the stderr lock, so
 * the child is this test binary exec'd again: CP_CHILD_BODY=<name> makes the
 * constructor of the body declared with CHILD_BODY(name) run it and exit
 * before Criterion starts. The child's environment is ours without any
 * CLEARPAGES_* variable, plus the NAME, VALUE pairs of envs (NULL-terminated);
 * its stdout and stderr are captured; a hang ends (SIGALRM) after the
 * parent's test_hang_seconds(20), passed as CP_CHILD_SECONDS.
 */
extern char **environ;

static inline void child_body_if_asked(const char *name, void (*body)(void))
{
	const char *want = getenv("CP_CHILD_BODY");
	if (want && !strcmp(want, name)) {
		const char *seconds = getenv("CP_CHILD_SECONDS");
		alarm(seconds && atoi(seconds) > 0 ? (unsigned)atoi(seconds) : 20);
		body();
		fflush(NULL);
		_exit(0);
	}
}

#define CHILD_BODY(name) \
	static void name(void); \
	__attribute__((constructor)) static void name##_if_asked(void) \
	{ child_body_if_asked(#name, name); } \
	static void name(void)

struct child_out {
	int status;             /* as from waitpid */
	char out[8192];         /* what the child printed on stdout */
	char err[8192];         /* and on stderr: the library's messages */
};

static inline void read_back(int fd, char *buf, size_t size)
{
	ssize_t n = pread(fd, buf, size - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
}

/* Run the body called `name` in a fresh exec of this binary; no assertion on
 * how it ended (see in_child). */
static inline struct child_out run_child(const char *const *envs, const char *name)
{
	struct child_out co;
	char *envp[256], *own[34];
	size_t n = 0, nown = 0;
	for (char **e = environ; *e && n < 200; e++)
		if (strncmp(*e, "CLEARPAGES_", 11) && strncmp(*e, "CP_CHILD_BODY=", 14) &&
		    strncmp(*e, "CP_CHILD_SECONDS=", 17))
			envp[n++] = *e;
	for (; *envs; envs += 2) {
		cr_assert(nown < 32, "too many variables");
		own[nown] = malloc(strlen(envs[0]) + strlen(envs[1]) + 2);
		cr_assert(own[nown]);
		sprintf(own[nown], "%s=%s", envs[0], envs[1]);
		envp[n++] = own[nown++];
	}
	own[nown] = malloc(strlen(name) + sizeof("CP_CHILD_BODY="));
	cr_assert(own[nown]);
	sprintf(own[nown], "CP_CHILD_BODY=%s", name);
	envp[n++] = own[nown++];
	own[nown] = malloc(sizeof("CP_CHILD_SECONDS=") + 10);
	cr_assert(own[nown]);
	sprintf(own[nown], "CP_CHILD_SECONDS=%u", test_hang_seconds(20));
	envp[n++] = own[nown++];
	envp[n] = NULL;

	FILE *out = tmpfile(), *err = tmpfile();
	cr_assert(out && err, "tmpfile");
	int out_fd = dup(fileno(out)), err_fd = dup(fileno(err));
	fclose(out);
	fclose(err);
	/* readlink's path, not /proc/self/exe itself: under valgrind or qemu-user
	 * that is the emulator, while readlink() answers for the test binary */
	char self[4096];
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	cr_assert(len > 0, "readlink /proc/self/exe");
	self[len] = '\0';
	char *argv[] = { self, NULL };
	pid_t pid = test_fork(0);     /* the child body's alarm: child_body_if_asked */
	cr_assert(pid >= 0, "fork");
	if (pid == 0) {          /* only async-signal-safe calls until exec */
		dup2(out_fd, STDOUT_FILENO);
		dup2(err_fd, STDERR_FILENO);
		execve(self, argv, envp);
		_exit(127);
	}
	cr_assert_eq(waitpid(pid, &co.status, 0), pid);
	read_back(out_fd, co.out, sizeof(co.out));
	read_back(err_fd, co.err, sizeof(co.err));
	while (nown)
		free(own[--nown]);
	return co;
}

/* The same, asserting that the child exited 0 (a body exits non-zero to
 * report a failed step). */
static inline struct child_out in_child_named(const char *const *envs, const char *name)
{
	struct child_out co = run_child(envs, name);
	cr_assert(WIFEXITED(co.status) && WEXITSTATUS(co.status) == 0,
		  "child %s failed (status 0x%x: exit code = failing step; SIGALRM = hung), "
		  "stderr: %s", name, co.status, co.err);
	return co;
}
#define in_child(envs, body) in_child_named(envs, #body)

/* fork() semantics themselves under test (the parallel pool across fork):
 * body runs in a forked copy and must touch no stdio; it must exit 0. */
static inline void in_forked_child(void (*body)(void))
{
	pid_t pid = test_fork(test_hang_seconds(20));
	cr_assert(pid >= 0, "fork");
	if (pid == 0) {
		body();
		_exit(0);
	}
	int status;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "forked child failed: status 0x%x (exit code = failing step)", status);
}

static const char *const no_env[] = { NULL };

/* cp_kernels() of a fresh process with no CLEARPAGES_* variable, one per line. */
CHILD_BODY(print_kernel_names)
{
	const struct cp_kernel *const *list;
	size_t n = cp_kernels(&list);
	for (size_t i = 0; i < n; i++)
		printf("%s\n", list[i]->name);
}

/* Skip the calling test when kernel `name` is not usable on this CPU (asked
 * in a child: the test process itself must not initialise the library before
 * its own children start). */
static inline void skip_unless_kernel(const char *name, const char *why)
{
	struct child_out co = in_child(no_env, print_kernel_names);
	char line[64];
	snprintf(line, sizeof(line), "%s\n", name);
	for (const char *p = co.out; *p; p += strcspn(p, "\n") + 1)
		if (!strncmp(p, line, strlen(line)))
			return;
	cr_skip_test("kernel %s is not usable on this CPU: %s", name, why);
}

static inline size_t count_lines(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Write back and evict every line of [p, p + len) from every cache level. */
static inline void flush_from_caches(const void *p, size_t len)
{
#if defined(__x86_64__)
	for (size_t at = 0; at < len; at += 64)
		__asm__ volatile("clflush (%0)" : : "r"((const char *)p + at) : "memory");
	__asm__ volatile("mfence" : : : "memory");
#elif defined(__aarch64__)
	uint64_t ctr;
	__asm__ volatile("mrs %0, ctr_el0" : "=r"(ctr));
	size_t line = (size_t)4 << ((ctr >> 16) & 0xf);    /* DminLine: log2 words */
	for (size_t at = 0; at < len; at += line)
		__asm__ volatile("dc civac, %0" : : "r"((const char *)p + at) : "memory");
	__asm__ volatile("dsb sy" : : : "memory");
#endif
}

/* Bytes mapped in this process (/proc/self/maps). */
static inline size_t test_mapped_bytes(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	cr_assert(f, "/proc/self/maps");
	size_t total = 0;
	unsigned long lo, hi;
	char line[512];
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2)
			total += hi - lo;
	fclose(f);
	return total;
}

/* Descriptors open in this process (/proc/self/fd's entries; the count
 * includes the listing's own and . and ..: compare, never read alone). */
static __attribute__((unused, noinline)) int test_open_fds(void)   /* not inlined beside a sigsetjmp */
{
	DIR *dir = opendir("/proc/self/fd");
	cr_assert_not_null(dir);
	int n = 0;
	while (readdir(dir))
		n++;
	closedir(dir);
	return n;
}

/* The shared library beside this suite's build (build/<arch>/tests/.., or
 * ../.. for a sanitizer's build/<arch>/<tool>/tests) into lib[4096], or
 * the test skips saying so. */
static inline void test_shared_library(char lib[4096])
{
	ssize_t n = readlink("/proc/self/exe", lib, 4096 - 64);
	cr_assert(n > 0, "readlink /proc/self/exe");
	lib[n] = 0;
	char *dir_end = strrchr(lib, '/');
	strcpy(dir_end, "/../libclearpages.so.0");
	if (access(lib, R_OK))
		strcpy(dir_end, "/../../libclearpages.so.0");
	if (access(lib, R_OK))
		cr_skip_test("no libclearpages.so.0 beside this suite's build (`make` builds it; "
			     "`make test-native` first)");
}

#endif
