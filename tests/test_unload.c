/* SPDX-License-Identifier: MIT */
/*
 * The shared library loaded, used and unloaded 300 times (30 under
 * CP_TEST_QUICK), as a plugin host does. Each cycle, on its own dlopen:
 * cp_set_profile (two profiles in turn: parallel shares of 64 KiB, discard
 * from 64 KiB), cp_clear_pages_parallel of 1 MiB on 4 threads (the pool
 * makes its workers), cp_zero with CP_ZERO_MAY_DISCARD of 8 MiB of dirty
 * private anonymous memory (the maps and pagemap opened and closed, parts
 * handed back), and a fork whose child makes one parallel clear and
 * _exits (the library's fork handlers, the child's pool); every byte
 * checked, then dlclose. The mapped KiB (/proc/self/maps) and the open
 * descriptors (/proc/self/fd) after the cycles must stay within a small
 * slack of what they were after the first three (the loader's own, the
 * allocator's arenas): a state, a worker's stack, a descriptor or a
 * profile buffer that outlived its unload would add up to hundreds.
 * Only the profile loads of an unload: tests/test_state.c.
 */
#include "testutil.h"
#include "profile_files.h"
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>

TestSuite(unload, .fini = profile_files_remove);

#define BASELINE_CYCLES 3
#define PARALLEL_PAGES 256                   /* 1 MiB: 4 shares of 64 KiB and more */
#define DISCARD_BYTES ((size_t)8 << 20)
#define CHILD_PAGES 64
/* Natively nothing grows; under ASan its thread registry does, by about half
 * a KiB a cycle (3 workers made each): 148 KiB over 300. A page a cycle
 * would be 1200 KiB, a worker's stack (64 KiB) each 19200. */
#define SLACK_BYTES ((size_t)256 << 10)
#define SLACK_FDS 2

/* Bytes mapped in this process (/proc/self/maps). */
/* Threads of this process (/proc/self/status). */
static int threads_now(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	cr_assert(f, "/proc/self/status");
	char line[256];
	int n = -1;
	while (fgets(line, sizeof(line), f) && sscanf(line, "Threads: %d", &n) != 1)
		;
	fclose(f);
	return n;
}

/* The calls of one loaded copy of the library. */
struct loaded {
	void *h;
	int (*set_profile)(const char *);
	int (*parallel)(void *, size_t, unsigned);
	int (*zero_ex)(void *, size_t, unsigned, size_t *);
};

static void *sym(void *h, const char *name)
{
	void *p = dlsym(h, name);
	cr_assert(p, "dlsym %s: %s", name, dlerror());
	return p;
}

static struct loaded load(const char *lib)
{
	struct loaded l = { dlopen(lib, RTLD_NOW | RTLD_LOCAL), NULL, NULL, NULL };
	cr_assert(l.h, "dlopen: %s", dlerror());
	void *p = sym(l.h, "cp_set_profile");
	memcpy(&l.set_profile, &p, sizeof(p));
	p = sym(l.h, "cp_clear_pages_parallel");
	memcpy(&l.parallel, &p, sizeof(p));
	p = sym(l.h, "cp_zero_ex");
	memcpy(&l.zero_ex, &p, sizeof(p));
	return l;
}

/* One cycle; the bytes cp_zero handed back rather than stored, the threads
 * the parallel call added in *workers. */
static size_t cycle(const char *lib, const char *profile, unsigned i, unsigned char *par,
		    unsigned char *big, unsigned char *small, unsigned child_seconds,
		    int *workers)
{
	int threads = threads_now();
	struct loaded l = load(lib);
	cr_assert_eq(l.set_profile(profile), 0, "cycle %u: cp_set_profile", i);
	memset(par, FILL, PARALLEL_PAGES * PG);
	cr_assert_eq(l.parallel(par, PARALLEL_PAGES, 4), 0, "cycle %u: parallel", i);
	size_t bad = first_not(par, PARALLEL_PAGES * PG, 0);
	cr_assert_eq(bad, PARALLEL_PAGES * PG, "cycle %u: parallel clear left byte %zu", i, bad);
	*workers = threads_now() - threads;
	memset(big, FILL, DISCARD_BYTES);
	size_t discarded = 0;
	cr_assert_eq(l.zero_ex(big, DISCARD_BYTES, CP_ZERO_MAY_DISCARD, &discarded), 0);
	bad = first_not(big, DISCARD_BYTES, 0);
	cr_assert_eq(bad, DISCARD_BYTES, "cycle %u: MAY_DISCARD left byte %zu", i, bad);
	memset(small, FILL, CHILD_PAGES * PG);
	pid_t pid = test_fork(child_seconds);
	cr_assert(pid >= 0, "cycle %u: fork: %s", i, strerror(errno));
	if (pid == 0)        /* no stdio: the worker's other threads may hold its locks */
		_exit(l.parallel(small, CHILD_PAGES, 2) ? 2 :
		      first_not(small, CHILD_PAGES * PG, 0) != CHILD_PAGES * PG ? 3 : 0);
	int status;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "cycle %u: the child's clear: "
		  "status 0x%x (exit 2: failed, 3: not zero; SIGALRM: hung)", i, status);
	cr_assert_eq(dlclose(l.h), 0, "cycle %u: dlclose: %s", i, dlerror());
	return discarded;
}

Test(unload, cycles_of_profile_parallel_discard_fork_leave_nothing, .timeout = 120)
{
	if (test_under_valgrind())
		cr_skip_test("under valgrind /proc/self/maps shows memcheck's own mappings, whose "
			     "shadow of the pages an unloaded object touched stays mapped");
	char lib[4096];
	test_shared_library(lib);
	const char *profiles[2];
	for (int p = 0; p < 2; p++) {
		char text[512];
		snprintf(text, sizeof(text), "version 3\narch %s\ncpu %s\nband 0 %s\nband %uk %s\n"
			 "discard_from 64k\nparallel 64k\nend\n", cp_kernel_find(BASELINE)->arch,
			 profile_this_cpu(), BASELINE, 64u << p, BASELINE_NT);
		profiles[p] = profile_file(text, strlen(text));
	}
	unsigned char *par = mmap(NULL, PARALLEL_PAGES * PG, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char *big = mmap(NULL, DISCARD_BYTES, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned char *small = mmap(NULL, CHILD_PAGES * PG, PROT_READ | PROT_WRITE,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert(par != MAP_FAILED && big != MAP_FAILED && small != MAP_FAILED);
	unsigned child_seconds = test_hang_seconds(20);      /* measured before the baseline */
	unsigned cycles = test_quick() ? 30 : 300, discarding = 0;
	int workers = 0, workers_most = 0;
	size_t mapped_before = 0, mapped_most = 0;
	int fds_before = 0, fds_most = 0;
	for (unsigned i = 0; i < cycles; i++) {
		discarding += cycle(lib, profiles[i % 2], i, par, big, small, child_seconds,
				    &workers) != 0;
		workers_most = workers > workers_most ? workers : workers_most;
		if (i + 1 < BASELINE_CYCLES)
			continue;
		size_t mapped = test_mapped_bytes();
		int fds = test_open_fds();
		if (i + 1 == BASELINE_CYCLES)
			mapped_before = mapped_most = mapped, fds_before = fds_most = fds;
		mapped_most = mapped > mapped_most ? mapped : mapped_most;
		fds_most = fds > fds_most ? fds : fds_most;
	}
	size_t mapped_after = test_mapped_bytes();
	int fds_after = test_open_fds();
	cr_log_info("%u cycles (%u of them discarded, up to %d workers made): mapped %zu KiB "
		    "after %u, %zu KiB after all (most %zu KiB); %d descriptors after %u, %d after "
		    "all (most %d)", cycles, discarding, workers_most, mapped_before >> 10,
		    BASELINE_CYCLES, mapped_after >> 10, mapped_most >> 10, fds_before,
		    BASELINE_CYCLES, fds_after, fds_most);
	cr_assert(mapped_after <= mapped_before + SLACK_BYTES,
		  "%u load/use/unload cycles: mapped %zu KiB after %u cycles, %zu KiB after all "
		  "(%zd KiB more; the slack %zu KiB)", cycles, mapped_before >> 10,
		  BASELINE_CYCLES, mapped_after >> 10,
		  ((ssize_t)mapped_after - (ssize_t)mapped_before) / 1024, SLACK_BYTES >> 10);
	cr_assert(fds_after <= fds_before + SLACK_FDS,
		  "%u load/use/unload cycles: %d descriptors open after %u cycles, %d after all",
		  cycles, fds_before, BASELINE_CYCLES, fds_after);
	munmap(par, PARALLEL_PAGES * PG);
	munmap(big, DISCARD_BYTES);
	munmap(small, CHILD_PAGES * PG);
}
