/* SPDX-License-Identifier: MIT */
/*
 * cp_stress: every CPU clears random ranges of its own guard-paged region for
 * a bounded time, through every entry point and random kernels of
 * cp_kernels(), verifying every byte of the region after each clear.
 *
 *   cp_stress [SECONDS [THREADS]]     defaults: 20 s, the online CPUs
 *
 * One check per thread and entry point: passed when it ran and every clear
 * verified. Last line: "N passed, N failed[, N skipped]".
 */
#include "../models/plain.h"
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#define PG ((size_t)CP_PAGE_SIZE)
#define REGION_PAGES 1100      /* 4.3 MiB each: extents up to a few MiB */

struct worker {
	pthread_t thread;
	unsigned id;
	double deadline;
	unsigned long ops[OP_KINDS];
	int failed_kind;                /* -1: none */
	char why[512];
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Mostly small extents (where the kernels' edges are), now and then large ones. */
static size_t random_pages(uint64_t *rng)
{
	size_t cap = random_below(rng, 8) ? 64 : REGION_PAGES;
	return 1 + random_below(rng, cap);
}

static void random_op(uint64_t *rng, struct clear_op *op)
{
	const struct cp_kernel *const *list;
	size_t nk = cp_kernels(&list);
	static const size_t radii[] = { 0, 1, 2, 7, SIZE_MAX };

	memset(op, 0, sizeof(*op));
	op->kind = (enum clear_kind)random_below(rng, OP_KINDS);
	if (op->kind == OP_CLEAR) {
		op->len = 1 + random_below(rng, random_below(rng, 4) ? 3 * PG : REGION_PAGES * PG);
		op->start = random_below(rng, REGION_PAGES * PG - op->len + 1);
		return;
	}
	size_t n = random_pages(rng);
	op->len = n * PG;
	op->start = random_below(rng, REGION_PAGES - n + 1) * PG;
	op->kernel = list[random_below(rng, nk)];
	if (op->kind == OP_HUGE) {
		if (random_below(rng, 3) == 0)
			op->kernel = NULL;      /* the library's choice per range */
		op->order = (enum cp_order)random_below(rng, CP_ORDER_HOT_RANGE_LAST + 1);
		op->hot = random_below(rng, n);
		op->radius = radii[random_below(rng, sizeof(radii) / sizeof(radii[0]))];
		op->batch = random_below(rng, 2) ? 0 : random_below(rng, 9);
	}
}

static void *stress(void *arg)
{
	struct worker *w = arg;
	uint64_t rng = 0xc1ea2u * (w->id + 1);
	char current[256];
	struct guarded r;

	w->failed_kind = -1;
	if (region_map(&r, REGION_PAGES)) {
		snprintf(w->why, sizeof(w->why), "mmap: %s", strerror(errno));
		w->failed_kind = OP_CLEAR;
		return NULL;
	}
	current_check = current;
	while (now() < w->deadline) {
		struct clear_op op;
		char why[256];
		random_op(&rng, &op);
		snprintf(current, sizeof(current), "thread %u: ", w->id);
		describe_op(&op, current + strlen(current), sizeof(current) - strlen(current));
		if (check_clear_op(&r, &op, why, sizeof(why))) {
			snprintf(w->why, sizeof(w->why), "%s: %s", current, why);
			w->failed_kind = (int)op.kind;
			break;
		}
		w->ops[op.kind]++;
	}
	guard_unmap(&r);
	return NULL;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 20;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned nthreads = argc > 2 ? (unsigned)atoi(argv[2]) : (unsigned)(cpus > 0 ? cpus : 1);
	if (seconds <= 0 || nthreads == 0 || nthreads > 256) {
		fprintf(stderr, "usage: %s [SECONDS [THREADS]]\n", argv[0]);
		return 2;
	}
	catch_fatal_signals();
	const struct cp_kernel *const *list;
	size_t nk = cp_kernels(&list);
	printf("stress: %u threads for %.0f s over %zu kernels, %u pages each\n",
	       nthreads, seconds, nk, REGION_PAGES);

	struct worker *w = calloc(nthreads, sizeof(*w));
	double deadline = now() + seconds;
	for (unsigned i = 0; i < nthreads; i++) {
		w[i].id = i;
		w[i].deadline = deadline;
		int rc = pthread_create(&w[i].thread, NULL, stress, &w[i]);
		if (rc) {       /* pthread_create returns its error, errno is untouched */
			check_fail("start a thread", strerror(rc));
			nthreads = i;
		}
	}
	unsigned long total = 0;
	for (unsigned i = 0; i < nthreads; i++) {
		pthread_join(w[i].thread, NULL);
		for (int kind = 0; kind < OP_KINDS; kind++) {
			char what[96];
			snprintf(what, sizeof(what), "thread %u %s: %lu clears verified", i,
				 clear_kind_name[kind], w[i].ops[kind]);
			total += w[i].ops[kind];
			if (w[i].failed_kind == kind)
				check_fail(what, w[i].why);
			else if (w[i].ops[kind] == 0)
				check_skip(what, w[i].failed_kind >= 0 ?
					   "the thread stopped at its first failure" :
					   "not drawn in the time given");
			else
				check_pass(what);
		}
	}
	printf("stress: %lu clears in all\n", total);
	free(w);
	return finish_tally();
}
