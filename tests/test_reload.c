/* SPDX-License-Identifier: MIT */
/*
 * Profiles reloaded by many threads against many clearing and copying ones
 * (the published state, common/state.h, from the public side; the same race
 * read through the internal state: tests/test_state.c). 64 threads (8
 * under CP_TEST_QUICK or valgrind): a quarter alternate cp_set_profile
 * between two valid profiles, about 2,500 loads in all; the others, until
 * the loads are done, clear and copy random extents of their own guarded
 * region through cp_clear_pages, cp_zero (0, HOT, COLD, PARALLEL; byte
 * edges), cp_clear_pages_parallel, cp_copy_pages and cp_copy, every byte
 * checked, and read cp_policy_info and cp_policy_source after each (and
 * seven times more: a tear's window is a few stores): each must be, field
 * for field and with its source, one of the states the profiles and the
 * defaults published before the race (recorded one by one, alone), never
 * one state's numbers beside another's source. The profiles differ in
 * nt_from, copy_nt_from and the parallel share. Every thread is made
 * before any starts (a barrier). The join is a hang detector:
 * test_hang_seconds.
 */
#include "testutil.h"
#include "profile_files.h"
#include "copy_pattern.h"
#include <errno.h>
#include <pthread.h>

TestSuite(reload, .fini = profile_files_remove);

#define STATES 3                   /* the defaults, profile A, profile B */
#define MAX_THREADS 64
#define RELOADS 2500
static struct cp_policy_info known[STATES];
static char known_source[STATES][128];
static const char *profile_path[2];
static int loads_left_threads;     /* reloaders still loading */
static pthread_barrier_t start;    /* every thread made before any loads */

struct worker {
	pthread_t t;
	unsigned index, reloads, failed;
	unsigned long rounds, seen[STATES];
	char why[320];
};

/* Which known state info is (its source too), or -1. */
static int known_state(const struct cp_policy_info *info)
{
	for (int i = 0; i < STATES; i++) {
		struct cp_policy_info k = known[i];
		k.source = info->source;
		if (info->source && !strcmp(info->source, known_source[i]) &&
		    !memcmp(&k, info, sizeof(k)))
			return i;
	}
	return -1;
}

static void *reloader(void *arg)
{
	struct worker *w = arg;
	pthread_barrier_wait(&start);
	for (unsigned i = 0; i < w->reloads && !w->failed; i++) {
		int r = cp_set_profile(profile_path[(w->index + i) & 1]);
		if (r) {
			w->failed = 1;
			snprintf(w->why, sizeof(w->why), "load %u of %s: %d", i,
				 profile_path[(w->index + i) & 1], r);
		}
	}
	__atomic_sub_fetch(&loads_left_threads, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int check_info(struct worker *w);

/* One random clear or copy in the worker's region, checked; then the info. */
static int one_round(struct worker *w, struct guarded *g, const struct guarded *src,
		     uint64_t seed, uint64_t *rnd)
{
	size_t pages = g->len / PG, n = 1 + random_below(rnd, pages);
	size_t off = random_below(rnd, pages - n + 1) * PG, len = n * PG;
	unsigned char *at = g->mem + off;
	unsigned op = (unsigned)random_below(rnd, 9);
	int r = 0;
	memset(g->mem, FILL, g->len);
	switch (op) {
	case 0: r = cp_clear_pages(at, n); break;
	case 1: r = cp_zero(at, len, 0); break;
	case 2: r = cp_zero(at, len, CP_ZERO_HOT); break;
	case 3: r = cp_zero(at, len, CP_ZERO_COLD); break;
	case 4: r = cp_zero(at, len, CP_ZERO_PARALLEL); break;
	case 5: r = cp_clear_pages_parallel(at, n, 2); break;
	case 6:                       /* byte edges: head and tail by stores */
		off += random_below(rnd, 64);
		len -= (off % PG) + random_below(rnd, 64);
		at = g->mem + off;
		r = cp_zero(at, len, 0);
		break;
	case 7: r = cp_copy_pages(at, src->mem, n); break;
	case 8: r = cp_copy(at, src->mem, len, (unsigned)random_below(rnd, 3)); break;
	}
	if (r) {
		snprintf(w->why, sizeof(w->why), "op %u, %zu bytes at %zu: %d", op, len, off, r);
		return -1;
	}
	char why[240];
	if (op < 7 ? guard_verify(g->mem, g->len, off, len, why, sizeof(why))
		   : pattern_verify(g->mem, g->len, off, off, len, seed, why, sizeof(why))) {
		snprintf(w->why, sizeof(w->why), "op %u (%s), %zu bytes at %zu: %s", op,
			 op < 7 ? "clear" : "copy", len, off, why);
		return -1;
	}
	return check_info(w);
}

/* cp_policy_info and cp_policy_source, each one of the known states'. */
static int check_info(struct worker *w)
{
	struct cp_policy_info info;
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	int r = cp_policy_info(&info), s = known_state(&info);
	if (r || s < 0) {
		static const char *const names[STATES + 1] = { "the defaults'", "A's", "B's",
							       "no state's" };
		int by_source = 0, by_numbers = 0;
		while (by_source < STATES && (!info.source ||
					      strcmp(info.source, known_source[by_source])))
			by_source++;
		for (; by_numbers < STATES; by_numbers++) {
			struct cp_policy_info k = known[by_numbers];
			k.source = info.source;
			if (!memcmp(&k, &info, sizeof(k)))
				break;
		}
		snprintf(w->why, sizeof(w->why), "cp_policy_info = %d, torn: the source %s (%s), "
			 "the thresholds %s (nt_from %zu, copy_nt_from %zu, parallel_min_share "
			 "%zu)", r, names[by_source], info.source ? info.source : "NULL",
			 names[by_numbers], info.nt_from, info.copy_nt_from,
			 info.parallel_min_share);
		return -1;
	}
	w->seen[s]++;
	const char *source = cp_policy_source();
	for (s = 0; s < STATES && strcmp(source, known_source[s]); s++)
		;
	if (s == STATES) {
		snprintf(w->why, sizeof(w->why), "cp_policy_source() = \"%s\": no state's", source);
		return -1;
	}
	return 0;
}

static void *clearer(void *arg)
{
	struct worker *w = arg;
	size_t pages = test_quick() || test_under_valgrind() ? 24 : 64;
	uint64_t seed = 0x2e10adull + w->index, rnd = seed;
	struct guarded g, src;
	if (guard_map(&g, pages) || guard_map(&src, pages)) {
		w->failed = 1;
		snprintf(w->why, sizeof(w->why), "mmap: %s", strerror(errno));
		pthread_barrier_wait(&start);
		return NULL;
	}
	pattern_fill(src.mem, pages, seed);
	pthread_barrier_wait(&start);
	do {       /* the info read more often than the clears: the tear's window is short */
		w->failed = one_round(w, &g, &src, seed, &rnd) != 0;
		for (int i = 0; i < 7 && !w->failed; i++)
			w->failed = check_info(w) != 0;
		w->rounds++;
	} while (!w->failed && __atomic_load_n(&loads_left_threads, __ATOMIC_ACQUIRE));
	guard_unmap(&g);
	guard_unmap(&src);
	return NULL;
}

/* Profile i: BASELINE, BASELINE_NT from 64 KiB << i; parallel shares of
 * 64 KiB for A, none for B. */
static void make_profiles(void)
{
	for (int i = 0; i < 2; i++) {
		char text[512];
		snprintf(text, sizeof(text), "version 2\narch %s\ncpu %s\nband 0 %s\nband %uk %s\n"
			 "parallel %s\nend\n", cp_kernel_find(BASELINE)->arch, profile_this_cpu(),
			 BASELINE, 64u << i, BASELINE_NT, i ? "none" : "64k");
		profile_path[i] = profile_file(text, strlen(text));
	}
}

static void record(int i, const char *path)
{
	cr_assert_eq(cp_set_profile(path), 0, "cp_set_profile(%s)", path ? path : "NULL");
	known[i].size = sizeof(known[i]);
	cr_assert_eq(cp_policy_info(&known[i]), 0);
	snprintf(known_source[i], sizeof(known_source[i]), "%s", known[i].source);
}

Test(reload, many_threads_reload_profiles_against_clears_and_copies, .timeout = 120)
{
	make_profiles();
	record(1, profile_path[0]);
	record(2, profile_path[1]);
	record(0, NULL);                    /* the race starts from the defaults */
	for (int i = 0; i < STATES; i++)
		for (int j = 0; j < i; j++)
			cr_assert(memcmp(&known[i].nt_from, &known[j].nt_from, sizeof(known[i]) -
					 offsetof(struct cp_policy_info, nt_from)),
				  "states %d and %d report the same thresholds: no tear would show",
				  i, j);
	unsigned threads = test_quick() || test_under_valgrind() ? 8 : MAX_THREADS;
	unsigned reloaders = threads / 4, per = RELOADS / reloaders;
	static struct worker w[MAX_THREADS];
	memset(w, 0, sizeof(w));
	loads_left_threads = (int)reloaders;
	cr_assert_eq(pthread_barrier_init(&start, NULL, threads), 0);
	for (unsigned i = 0; i < threads; i++) {
		w[i].index = i;
		w[i].reloads = i < reloaders ? per : 0;
		cr_assert_eq(pthread_create(&w[i].t, NULL, i < reloaders ? reloader : clearer,
					    &w[i]), 0, "pthread_create %u", i);
	}
	unsigned deadline = test_hang_seconds(60);
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += deadline;
	for (unsigned i = 0; i < threads; i++) {
		int jr = pthread_timedjoin_np(w[i].t, NULL, &until);
		cr_assert_eq(jr, 0, "thread %u (%s) not done after %u s: hung (%d reloaders left)", i,
			     i < reloaders ? "reloader" : "clearer", deadline,
			     __atomic_load_n(&loads_left_threads, __ATOMIC_RELAXED));
	}
	unsigned long rounds = 0, seen[STATES] = { 0 };
	for (unsigned i = reloaders; i < threads; i++)      /* the clearers' word first */
		cr_assert(!w[i].failed, "clearer %u: %s", i, w[i].why);
	for (unsigned i = 0; i < threads; i++) {
		cr_assert(!w[i].failed, "reloader %u: %s", i, w[i].why);
		rounds += w[i].rounds;
		for (int s = 0; s < STATES; s++)
			seen[s] += w[i].seen[s];
	}
	cr_log_info("%u threads: %u reloaders made %u loads, %lu checked rounds; infos of the "
		    "defaults %lu, of A %lu, of B %lu", threads, reloaders, reloaders * per, rounds, seen[0],
		    seen[1], seen[2]);
	cr_assert(seen[1] + seen[2] > 0, "no round saw a loaded profile: no race was run");
}
