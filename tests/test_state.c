/* SPDX-License-Identifier: MIT */
/*
 * The published state (common/state.h): a reader sees one whole state, old
 * or new, never one profile's policy beside another's source; states are
 * kept, identical ones published again, and the cap on distinct ones is an
 * error that changes nothing.
 */
#include "testutil.h"
#include "profile_files.h"
#include "testhooks.h"
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/time.h>
#include <sys/wait.h>

TestSuite(state, .fini = profile_files_remove);

#define PROFILES 3
static const char *paths[PROFILES];
static size_t nt_from_of[PROFILES];
static int stop;

/* Profile i: BASELINE, then BASELINE_NT from (64 KiB << i). */
static void make_profiles(void)
{
	for (int i = 0; i < PROFILES; i++) {
		char text[512];
		snprintf(text, sizeof(text), "version 2\narch %s\ncpu %s\nband 0 %s\nband %uk %s\n"
			 "parallel none\nend\n", cp_kernel_find(BASELINE)->arch, profile_this_cpu(), BASELINE, 64u << i, BASELINE_NT);
		paths[i] = profile_file(text, strlen(text));
		nt_from_of[i] = (size_t)(64u << i) * 1024 / PG;
	}
}

static void *loader(void *arg)
{
	const char *path = arg;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
		if (cp_set_profile(path))
			return (void *)1;
	return NULL;
}

/* Three threads load three profiles as fast as they can; every state read
 * meanwhile must pair its policy with its own source. */
Test(state, policy_and_source_are_never_torn)
{
	make_profiles();
	pthread_t t[PROFILES];
	for (int i = 0; i < PROFILES; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, loader, (void *)paths[i]), 0);
	/* reads that saw a loaded profile, not reads: the loaders take a while */
	unsigned want = test_quick() ? 20000 : 200000, torn = 0, profiled = 0;
	for (unsigned long r = 0; profiled < want && r < 1000ul * want; r++) {
		const struct cp__state *s = cp__state();
		size_t nt_from = cp__policy_nt_from(&s->policy);
		const char *source = s->source;
		for (int i = 0; i < PROFILES; i++)
			if (nt_from == nt_from_of[i]) {
				profiled++;
				torn += strcmp(source + 4, paths[i]) != 0;   /* "env:PATH" */
			}
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	void *failed = NULL, *rc;
	for (int i = 0; i < PROFILES; i++)
		pthread_join(t[i], &rc), failed = failed ? failed : rc;
	cr_assert_null(failed, "a profile load failed");
	cr_assert_eq(profiled, want, "only %u reads saw a loaded profile", profiled);
	cr_assert_eq(torn, 0, "%u of %u reads paired a profile's policy with another source",
		     torn, profiled);
}

/* A state once published stays readable: the pointer a reader held before
 * any number of profile changes still reads its own policy and source. */
Test(state, an_old_state_is_never_rewritten)
{
	make_profiles();
	cr_assert_eq(cp_set_profile(paths[0]), 0);
	const struct cp__state *held = cp__state();
	struct cp__state copy = *held;
	char source[128];
	snprintf(source, sizeof(source), "%s", held->source);
	for (int n = 0; n < 100; n++)
		cr_assert_eq(cp_set_profile(paths[1 + n % 2]), 0);
	cr_assert_neq(cp__state(), held);
	cr_assert(cp__policy_eq(&copy.policy, &held->policy), "policy rewritten");
	cr_assert_str_eq(held->source, source);
	/* loading it again publishes the kept state, not a copy */
	cr_assert_eq(cp_set_profile(paths[0]), 0);
	cr_assert_eq(cp__state(), held);
}

/* Distinct states are capped (common/init.c); past the cap a publication is
 * -ENOMEM and changes nothing, while kept states can still be published. */
Test(state, distinct_states_are_capped)
{
	const struct cp__state *initial = cp__state();
	struct cp__policy p = initial->policy;
	int r = 0;
	unsigned made = 0;
	for (unsigned i = 1; i <= 1000 && r == 0; i++) {
		p.parallel_min_share_pages = i;      /* a distinct policy each time */
		r = cp__policy_publish(&p, "test");
		made += r == 0;
	}
	cr_assert_eq(r, -ENOMEM, "no cap after %u distinct states", made);
	cr_assert_lt(made, 1000);
	const struct cp__state *now = cp__state();
	cr_assert_eq(now->policy.parallel_min_share_pages, made, "the refused one was published");
	cr_assert_eq(cp_set_profile(NULL), 0, "the defaults are kept, so always publishable");
	cr_assert_eq(cp__state(), initial);
	p.parallel_min_share_pages = 1;
	cr_assert_eq(cp__policy_publish(&p, "test"), 0, "a kept state is publishable past the cap");
	make_profiles();
	cr_assert_eq(cp_set_profile(paths[0]), -ENOMEM, "a new profile past the cap");
	cr_assert_eq(cp__state()->policy.parallel_min_share_pages, 1, "and nothing changed");
}

/* fork() from a signal handler that may interrupt a publication: the fork
 * handlers must not wait on the lock the interrupted thread holds.
 * Paced by this host's fork: a timer period shorter than the handler's fork
 * and wait runs the handler back to back and the loop never again (the Zen 5
 * VM, 1.2 ms forks against a 1 ms timer). So the period is 4 forks long (the
 * loop keeps three quarters of the time), the handler disarms the timer at
 * the goal, and the deadline is derived from the same measurement. */
static volatile sig_atomic_t forks, fork_failures, forks_wanted;
static void fork_in_handler(int sig)
{
	(void)sig;
	int saved = errno;
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	int status;
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		fork_failures++;
	if (++forks >= forks_wanted) {
		struct itimerval off = { { 0, 0 }, { 0, 0 } };
		setitimer(ITIMER_REAL, &off, NULL);
	}
	errno = saved;
}

static void load_under_forking_timer(long period_us)
{
	struct sigaction sa = { .sa_handler = fork_in_handler, .sa_flags = SA_RESTART };
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval every = { { 0, period_us }, { 0, period_us } };
	setitimer(ITIMER_REAL, &every, NULL);
	for (unsigned long i = 0; forks < forks_wanted && i < 100000000ul; i++)
		if (cp_set_profile(paths[i % 2]) || cp_set_profile(NULL))
			_exit(3);
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_REAL, &off, NULL);
	_exit(fork_failures ? 4 : forks >= forks_wanted ? 0 : 5);
}

Test(state, fork_from_a_handler_interrupting_profile_loads)
{
#ifdef CP_TEST_ASAN
	cr_skip_test("AddressSanitizer's allocator is not fork-safe: the handler's fork "
		     "hangs in it (its interceptors run inside the interrupted calls)");
#endif
	if (test_under_valgrind())
		cr_skip_test("under valgrind the child of a fork from a handler spun for the whole "
			     "deadline (50 %% CPU, no system call): valgrind's, not the library's");
	make_profiles();
	/* 500 forks natively, 10 under qemu (a fork there takes up to a second) */
	forks_wanted = test_quick() ? 10 : 500;
	double fork_s = test_fork_wait_seconds();
	long period_us = (long)(4e6 * fork_s);
	if (period_us < 1000)
		period_us = 1000;
	/* the forks take a quarter of the run: 4 periods each, twice over, + 20 s */
	unsigned deadline = 20 + (unsigned)(8e-6 * (double)period_us * forks_wanted);
	/* no alarm in the child: its timer is ITIMER_REAL, which alarm() shares */
	pid_t pid = test_fork(0);
	cr_assert(pid >= 0);
	if (pid == 0)
		load_under_forking_timer(period_us);
	int status = 0;
	pid_t got = 0;
	for (double end = test_now_seconds() + deadline;
	     !(got = waitpid(pid, &status, WNOHANG)) && test_now_seconds() < end;)
		usleep(10000);
	if (!got) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	cr_assert(got,
		  "hung: %u s and no %d forks from the handler (a fork and its wait take %.3f ms, "
		  "the timer's period %ld us): it waited on the lock its thread held",
		  deadline, (int)forks_wanted, fork_s * 1e3, period_us);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child: %s %d",
		  WIFEXITED(status) ? "exit" : "signal",
		  WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}

/* An identical policy finds its kept state whatever its padding holds (a
 * policy built on the stack, as cp_set_profile's is, leaves it uninitialised):
 * else each load of the same profile maps a new state, up to the cap. */
static void same_choices(struct cp__policy *out, const struct cp__policy *p, int pad)
{
	memset(out, pad, sizeof(*out));
	out->any = p->any, out->hot = p->hot, out->cold = p->cold, out->uncached = p->uncached;
	out->cached_min_mbps = p->cached_min_mbps;
	out->estimate_from_pages = p->estimate_from_pages;
	out->cold_estimate_below_pages = p->cold_estimate_below_pages;
	out->parallel_min_share_pages = p->parallel_min_share_pages;
	out->discard_from_pages = p->discard_from_pages;
	out->copy = p->copy;
	out->copy_uncached = p->copy_uncached;
	out->copy_estimate_from_pages = p->copy_estimate_from_pages;
}

Test(state, identical_policy_with_other_padding_finds_the_kept_state)
{
	struct cp__policy a, b;
	same_choices(&a, &cp__state()->defaults, 0xa5);
	same_choices(&b, &cp__state()->defaults, 0x5a);
	cr_assert(cp__policy_eq(&a, &b));
	cr_assert_eq(cp__policy_publish(&a, "test"), 0);
	const struct cp__state *first = cp__state();
	cr_assert_eq(cp__policy_publish(&b, "test"), 0);
	cr_expect_eq(cp__state(), first, "the same choices with other padding made a new state");
}

/* Bytes mapped in this process (/proc/self/maps). */
/* The shared library loaded, given a profile and unloaded, again and again
 * (a plugin host): none of its states outlives an unload. Each cycle left a
 * page mapped when states were mappings of their own. */
Test(state, unload_after_a_profile_leaves_nothing_mapped, .timeout = 120)
{
	if (test_under_valgrind())   /* 144 KiB over 20 cycles there, 0 natively */
		cr_skip_test("under valgrind /proc/self/maps shows memcheck's own mappings, whose "
			     "shadow of the pages an unloaded object touched stays mapped");
	char lib[4096];
	test_shared_library(lib);
	make_profiles();
	unsigned cycles = test_quick() ? 20 : 200;
	size_t before = 0;
	for (unsigned i = 0; i <= cycles; i++) {
		if (i == 1)
			before = test_mapped_bytes();     /* after a first cycle: the loader's own */
		void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
		cr_assert(h, "dlopen: %s", dlerror());
		int (*set_profile)(const char *);
		void *sym = dlsym(h, "cp_set_profile");
		cr_assert(sym);
		memcpy(&set_profile, &sym, sizeof(sym));
		cr_assert_eq(set_profile(paths[i % PROFILES]), 0, "cycle %u: cp_set_profile", i);
		cr_assert_eq(dlclose(h), 0, "dlclose: %s", dlerror());
	}
	size_t after = test_mapped_bytes();
	cr_assert(after < before + (size_t)cycles * PG / 4,
		  "%u load/profile/unload cycles left %zu KiB more mapped (%zu -> %zu KiB)",
		  cycles, (after - before) / 1024, before / 1024, after / 1024);
}
