/* SPDX-License-Identifier: MIT */
/*
 * clearbench calloc's third table: the loop of mimalloc issue #1104, calloc of one size then
 * free, again and again, with nothing touched in between and with every 64-byte line
 * written. mimalloc 2.0.9 unmaps a huge block (past 16 MiB) on free, so the loop would only
 * ever see new memory; with an arena reserved at start (MIMALLOC_RESERVE_OS_MEMORY, twice
 * the block and 256 MiB more) the freed block stays in the arena, dirty, and the next calloc
 * gets it back and zeroes it: the reuse this table is about. Every worker gets the same
 * variable; glibc and jemalloc ignore it.
 *
 * Each mode runs in workers of its own, all alive at once, their samples taken back to back
 * in a shuffled order (as the first table): what a loop leaves resident decides what the next
 * calloc costs, so the two loops must not follow each other in one process.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "calloc.h"
#include "contenders.h"
#include "opts.h"
#include "stats.h"
#include "table.h"

#define LOOP_MODES 2
#define LOOP_ARENA_EXTRA ((size_t)256 << 20)

static const char *const loop_modes[LOOP_MODES] = { "nothing", "every line" };
static const char loop_cmds[LOOP_MODES] = { CALLOC_CMD_LOOP, CALLOC_CMD_LOOPW };

struct loop_samples {
	double g[CALLOC_NALLOC][LOOP_MODES][CALLOC_MAX_SAMPLES];
	size_t n[LOOP_MODES];
};

/* Debian's libjemalloc2 as b[n] when it is installed; else a line saying why not. */
static size_t add_jemalloc(struct alloc *b, size_t n)
{
#if defined(__aarch64__)
	static const char lib[] = "/usr/lib/aarch64-linux-gnu/libjemalloc.so.2";
#else
	static const char lib[] = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2";
#endif
	if (access(lib, R_OK)) {
		fprintf(stderr, "clearbench: calloc: no jemalloc column: %s is not there (Debian's "
			"libjemalloc2%s)\n", lib, bench_hint(", `make deps-test`", ""));
		return n;
	}
	memset(&b[n], 0, sizeof(b[n]));
	snprintf(b[n].name, sizeof(b[n].name), "jemalloc");
	snprintf(b[n].lib, sizeof(b[n].lib), "%s", lib);
	b[n].kind = CK_JEMALLOC;
	return n + 1;
}

/* One round of one mode: a live worker per allocator, reps samples each. */
static int loop_round(const struct alloc *b, size_t nb, size_t size, int mode, size_t reps,
		      int quick, struct loop_samples *s, uint64_t *rng)
{
	struct child c[CALLOC_NALLOC];
	size_t order[CALLOC_NALLOC], started = 0;
	char arena[96];
	int rc = 0;
	snprintf(arena, sizeof(arena), "MIMALLOC_RESERVE_OS_MEMORY=%zuMiB",
		 (2 * size + LOOP_ARENA_EXTRA) >> 20);
	for (; started < nb && !rc; started++) {
		order[started] = started;
		rc = calloc_child_start(&c[started], &b[started], size, quick, 0, arena);
	}
	if (rc)
		started--;
	for (size_t r = 0; r < reps && !rc; r++) {
		bench_shuffle(order, nb, rng);
		for (size_t i = 0; i < nb && !rc; i++)
			rc = calloc_child_ask(&c[order[i]], loop_cmds[mode], size,
					      &s->g[order[i]][mode][s->n[mode]]);
		s->n[mode]++;
	}
	for (size_t i = 0; i < started; i++)
		rc |= calloc_child_finish(&c[i]);
	return rc;
}

/* Column index of the allocator named, or -1. */
static int find(const struct alloc *b, size_t nb, const char *name)
{
	for (size_t i = 0; i < nb; i++)
		if (!strcmp(b[i].name, name))
			return (int)i;
	return -1;
}

/* The median of the pairs' ratios num/den, or n/a when either allocator is missing. */
static void ratio_or_na(struct bench_table *t, const struct loop_samples *s, int num, int den,
			int m, int spread)
{
	if (num < 0 || den < 0) {
		for (int i = 0; i < (spread ? 3 : 1); i++)
			bench_cell_na(t);
		return;
	}
	calloc_ratio_cells(t, s->g[num][m], s->g[den][m], s->n[m], spread);
}

struct bench_table *calloc_loop_table(const struct bench_opts *opts, const struct alloc *a,
				      size_t na, const size_t *sizes, size_t nsizes,
				      size_t rounds)
{
	/* glibc, jemalloc, then the mimalloc builds (the second glibc: too slow for its worth) */
	struct alloc b[CALLOC_NALLOC];
	size_t nb = 0;
	b[nb++] = a[0];
	nb = add_jemalloc(b, nb);
	for (size_t i = 1; i < na && nb < CALLOC_NALLOC; i++)
		if (!a[i].loader[0])
			b[nb++] = a[i];
	int cp = find(b, nb, "mimalloc+cp"), stock = find(b, nb, "mimalloc");
	int fresh = find(b, nb, "+fresh_only"), je = find(b, nb, "jemalloc");
	const char *cols[32] = { "block", "after calloc" };
	size_t nc = 2;
	for (size_t i = 0; i < nb; i++)
		cols[nc++] = b[i].name;
	static const char *const ratio_cols[] = { "cp/stock", "cp/fresh_only",
		"cp/fresh_only q1-q3", "cp/fresh_only min-max", "cp/jemalloc" };
	for (size_t i = 0; i < sizeof(ratio_cols) / sizeof(ratio_cols[0]); i++)
		cols[nc++] = ratio_cols[i];
	char vcols[CALLOC_NALLOC][40];
	for (size_t i = 0; i < nb; i++)
		if (b[i].variant && (int)i != fresh) {
			snprintf(vcols[i], sizeof(vcols[i]), "%s/fresh_only", b[i].name + 1);
			cols[nc++] = vcols[i];
		}
	struct bench_table *t = bench_table_new("calloc + free loop (mimalloc #1104), blocks "
						"reused from an arena: GB/s, median", BT_TEXT | BT_DATA,
						nc, cols);
	uint64_t rng = 0x6a09e667f3bcc909ull;
	static struct loop_samples s;
	int rc = 0;
	for (size_t si = 0; si < nsizes && !rc; si++) {
		size_t size = sizes[si], reps = opts->quick ? 2 : size > ((size_t)16 << 20) ? 3 : 5;
		char blk[16];
		if (!size)
			continue;
		bench_size_str(size, blk, sizeof(blk));
		bench_progress("calloc: loop %s (%zu/%zu)", blk, si + 1, nsizes);
		memset(s.n, 0, sizeof(s.n));
		for (size_t r = 0; r < rounds && !rc; r++)
			for (int m = 0; m < LOOP_MODES && !rc; m++)
				rc = loop_round(b, nb, size, m, reps, opts->quick, &s, &rng);
		for (int m = 0; m < LOOP_MODES && !rc; m++) {
			bench_table_row(t);
			bench_cell_str(t, blk);
			bench_cell_str(t, loop_modes[m]);
			for (size_t i = 0; i < nb; i++)
				bench_cell_num(t, bench_median(s.g[i][m], s.n[m]), "%.2f");
			ratio_or_na(t, &s, cp, stock, m, 0);
			ratio_or_na(t, &s, cp, fresh, m, 1);
			ratio_or_na(t, &s, cp, je, m, 0);
			for (size_t i = 0; i < nb; i++)
				if (b[i].variant && (int)i != fresh)
					ratio_or_na(t, &s, (int)i, fresh, m, 0);
		}
	}
	if (rc) {
		bench_table_free(t);
		return NULL;
	}
	return t;
}
