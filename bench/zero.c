/* SPDX-License-Identifier: MIT */
/*
 * zero (issue "cp_zero ... zeroing by handing whole pages back"): store
 * clearing against discard on private anonymous memory, 2 MiB to 1 GiB.
 * Contenders are cp_zero calls: auto (no flags), temporal (CP_ZERO_HOT),
 * nontemporal (CP_ZERO_COLD) and discard (CP_ZERO_MAY_DISCARD, as a caller
 * gets it: below the policy's discard_from it stores). Three uses of each:
 * the call alone, the call then one write per 64-byte line, the call then
 * the first 10 % of the extent's lines written (a caller using a prefix).
 *
 * Every try starts from the same state: the extent filled (written, so
 * resident and dirty) outside the timing, on a 2 MiB-aligned THP-advised
 * region (the state an allocator's reused block is in). Contenders run in a
 * fresh random order each round (a temporal pass after a non-temporal one
 * runs slow for a while here). The RSS column is the change of the extent's
 * resident bytes (mincore) across the call alone.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "map.h"
#include "opts.h"
#include "plot.h"
#include "scenarios.h"
#include "stats.h"
#include "table.h"
#include "zero_rounds.h"

#define MIB ((size_t)1 << 20)
#define NZ BZ_NCONTENDERS
#define NUSES BZ_NUSES

static const struct bench_zero_contender *const zc = bench_zero_contenders;
static const char *const bench_zero_use_names[BZ_NUSES] = { "call", "call+write", "call+10%" };
static const char *const *const use_names = bench_zero_use_names;

static const size_t default_sizes[] = { 2 * MIB, 8 * MIB, 32 * MIB, 128 * MIB, 512 * MIB,
					1024 * MIB };
static const size_t quick_sizes[] = { 2 * MIB, 8 * MIB, 32 * MIB, 128 * MIB, 1024 * MIB };

static void add_row(struct bench_table *t, size_t bytes, size_t z, const double *ms,
		    const struct bench_zero_try *last, double best_store_call)
{
	char s[16];
	bench_table_row(t);
	bench_cell_str(t, bench_size_str(bytes, s, sizeof(s)));
	bench_cell_num(t, (double)bytes, "%.0f");
	bench_cell_str(t, zc[z].name);
	for (size_t u = 0; u < NUSES; u++)
		bench_cell_num(t, ms[u], "%.3f");
	bench_cell_num(t, last->rss_change / MIB, "%.0f");
	bench_cell_num(t, (double)last->discarded / MIB, "%.0f");
	bench_cell_num(t, best_store_call / ms[0], "%.2f");
}

static int zero_plot(const char *path, const struct bench_table *t)
{
	struct bench_plot_spec p;
	bench_plot_spec_init(&p, path, "clearbench zero: cp_zero on filled private anonymous THP "
			     "memory", "extent", "ms (median)");
	p.x_bytes = 1;
	p.logy = 1;
	size_t scol = bench_table_col(t, "contender"), xcol = bench_table_col(t, "bytes");
	for (size_t u = 0; u < NUSES; u++) {
		char col[32];
		snprintf(col, sizeof(col), "%s_ms", use_names[u]);
		size_t ycol = bench_table_col(t, col);
		for (size_t z = 0; z < NZ; z++) {
			int i = bench_series_add(&p, t, scol, zc[z].name, xcol, ycol, (size_t)-1,
						 (size_t)-1);
			if (i < 0)
				continue;
			snprintf(p.s[i].name, sizeof(p.s[i].name), "%s, %s", zc[z].name, use_names[u]);
			p.s[i].bold = z == 3;
			p.s[i].dashed = u == 1;
		}
	}
	return bench_plot_lines(&p);
}

int bench_zero(const struct bench_opts *opts)
{
	const size_t *sizes = opts->nsizes ? opts->sizes : opts->quick ? quick_sizes : default_sizes;
	size_t nsizes = opts->nsizes ? opts->nsizes :
			opts->quick ? sizeof(quick_sizes) / sizeof(quick_sizes[0]) :
				      sizeof(default_sizes) / sizeof(default_sizes[0]);
	size_t top = 0;
	for (size_t i = 0; i < nsizes; i++)
		top = sizes[i] > top ? sizes[i] : top;
	top = (top + CP_PAGE_SIZE - 1) / CP_PAGE_SIZE * CP_PAGE_SIZE;
	size_t rounds = opts->rounds ? opts->rounds : opts->quick ? 3 : 5;
	unsigned char *buf = bench_map(top);
	if (!buf)
		return 1;
	static const char *const cols[] = { "size", "bytes", "contender", "call_ms", "call+write_ms",
					    "call+10%_ms", "rss_change_mib", "discarded_mib",
					    "best_store_call/call" };
	struct bench_table *t = bench_table_new("zero: cp_zero on filled private anonymous memory, "
						"median ms", BT_TEXT | BT_DATA, 9, cols);
	uint64_t rng = 0x2545f4914f6cdd1dull;
	for (size_t si = 0; si < nsizes; si++) {
		size_t bytes = sizes[si] / CP_PAGE_SIZE * CP_PAGE_SIZE;
		if (!bytes)
			continue;
		bench_progress("zero: %zu of %zu sizes", si + 1, nsizes);
		struct bench_zero_try last[NZ];
		unsigned flags[NZ];
		double ms[NZ][NUSES], best = 0;
		for (size_t z = 0; z < NZ; z++)
			flags[z] = zc[z].flags;
		bench_zero_medians(buf, bytes, flags, NZ, (1u << NUSES) - 1, rounds, &rng, &ms[0][0],
				   last);
		for (size_t z = 0; z < 3; z++)
			best = !best || ms[z][0] < best ? ms[z][0] : best;
		for (size_t z = 0; z < NZ; z++)
			add_row(t, bytes, z, ms[z], &last[z], best);
	}
	bench_unmap(buf, top);
	bench_table_print(t);
	printf("\n");
	bench_note("each try: the extent filled outside the timing (THP advised), then cp_zero "
		   "with the contender's flags; %zu rounds, contenders shuffled each round.", rounds);
	bench_note("call+write: one 8-byte store per 64-byte line after the call; call+10%%: the "
		   "first tenth of the lines. rss_change: resident bytes after the call alone "
		   "minus before. discard stores below the policy's discard_from.");
	bench_note("best_store_call/call: the fastest of auto, temporal and nontemporal (call "
		   "alone) over this contender's call alone.");
	struct bench_table *tables[] = { t };
	int rc = bench_write_outputs(opts, "zero", tables, 1);
	if (!rc && opts->plot_path)
		rc = zero_plot(opts->plot_path, t);
	bench_table_free(t);
	return rc;
}
