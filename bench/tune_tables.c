/* SPDX-License-Identifier: MIT */
/*
 * tune's tables of the hot fit: the medians per kernel with the picks, every
 * cell with its interval (what the derivation saw; tests/data holds some),
 * the note on re-measured extents, and the CSV files, one table each.
 */
#include <math.h>
#include <string.h>
#include "derive.h"
#include "opts.h"
#include "stats.h"
#include "table.h"
#include "tune.h"

/* Median and its ~95 % distribution-free interval (ranks n/2 -+ 0.98 sqrt n)
 * in GB/s from per-pass seconds: an interval that narrows with more rounds,
 * which a spread of the samples would not. */
struct derive_cell tune_cell_of(const double *seconds, size_t n, size_t bytes)
{
	double s[1024];
	size_t m = n < 1024 ? n : 1024;
	memcpy(s, seconds, m * sizeof(*s));
	for (size_t i = 1; i < m; i++)   /* insertion sort: a few dozen samples */
		for (size_t j = i; j > 0 && s[j] < s[j - 1]; j--) {
			double x = s[j]; s[j] = s[j - 1]; s[j - 1] = x;
		}
	double half = 0.98 * sqrt((double)m);
	double lo_rank = floor((double)m / 2 - half), hi_rank = ceil((double)m / 2 + half);
	size_t fast = lo_rank < 1 ? 0 : (size_t)lo_rank - 1;
	size_t slow = hi_rank > (double)m ? m - 1 : (size_t)hi_rank - 1;
	return (struct derive_cell){ bench_gbs(bytes, bench_median(s, m)),
				     bench_gbs(bytes, s[slow]), bench_gbs(bytes, s[fast]) };
}

struct bench_table *tune_medians_table(const struct tune *t, const struct derive_result *r)
{
	const char *cols[24] = { "extent" };
	size_t ncols = 1, shown = t->in.nkernels < 21 ? t->in.nkernels : 21;
	for (size_t k = 0; k < shown; k++)
		cols[ncols++] = t->in.names[k];
	cols[ncols++] = "noise";
	cols[ncols++] = "best";
	cols[ncols++] = "tuned";
	struct bench_table *tb = bench_table_new("tune: GB/s median per kernel (* re-measured)",
						 BT_TEXT, ncols, cols);
	for (size_t i = 0; i < t->in.nsizes; i++) {
		char ext[16];
		bench_table_row(tb);
		bench_cell_str(tb, bench_size_str(t->in.pages[i] * CP_PAGE_SIZE, ext, sizeof(ext)));
		for (size_t k = 0; k < shown; k++)
			bench_cell_num(tb, t->in.cell[i][k].median, t->remeasured[i][k] ? "%.2f*" : "%.2f");
		bench_cell_num(tb, t->in.size_noise[i] * 100, "%.1f%%");
		bench_cell_str(tb, t->in.names[r->best[i]]);
		bench_cell_str(tb, t->in.names[r->pick[i]]);
	}
	return tb;
}

/* Every cell with its interval: what the derivation saw (tests/data holds some). */
struct bench_table *tune_cells_table(const struct tune *t)
{
	static const char *const cols[] = { "extent", "kernel", "nontemporal", "GB/s", "low",
					    "high", "rounds", "default", "noise" };
	struct bench_table *tb = bench_table_new(
		"tune: GB/s median per kernel and extent, ~95 % interval of the median",
		BT_DATA, 9, cols);
	for (size_t i = 0; i < t->in.nsizes; i++)
		for (size_t k = 0; k < t->in.nkernels; k++) {
			char ext[16];
			const struct derive_cell *c = &t->in.cell[i][k];
			bench_table_row(tb);
			bench_cell_str(tb, bench_size_str(t->in.pages[i] * CP_PAGE_SIZE, ext, sizeof(ext)));
			bench_cell_str(tb, t->in.names[k]);
			bench_cell_num(tb, t->k[k]->flags & CP_NONTEMPORAL ? 1 : 0, "%.0f");
			bench_cell_num(tb, c->median, "%.2f");
			bench_cell_num(tb, c->lo, "%.2f");
			bench_cell_num(tb, c->hi, "%.2f");
			bench_cell_num(tb, (double)t->rounds[i][k], "%.0f");
			bench_cell_num(tb, t->in.default_kernel[i] == (int)k, "%.0f");
			bench_cell_num(tb, t->in.size_noise[i], "%.4f");
		}
	return tb;
}

/* Where the first fit was level with a rival, and where it still is. */
void tune_note_remeasured(const struct tune *t, const struct derive_result *r)
{
	char list[2][512] = { "", "" }, ext[16];
	for (size_t i = 0; i < t->in.nsizes; i++)
		for (int still = 0; still < 2; still++) {
			int hit = still ? r->remeasure[i] != 0 : 0;
			for (size_t k = 0; !still && k < t->in.nkernels; k++)
				hit |= t->remeasured[i][k];
			size_t l = strlen(list[still]);
			if (hit)
				snprintf(list[still] + l, sizeof(list[0]) - l, " %s",
					 bench_size_str(t->in.pages[i] * CP_PAGE_SIZE, ext, sizeof(ext)));
		}
	if (list[0][0])
		bench_note("re-measured with %dx rounds, the pick level with a rival:%s.",
			   TUNE_REMEASURE_FACTOR, list[0]);
	if (list[1][0])
		bench_note("still level:%s (a draw keeps the defaults' kernel where the bands "
			   "allow).", list[1]);
	bench_note("noise: how far the defaults' kernel, measured twice in the same rounds, "
		   "differs from itself; intervals are widened to at least it.");
}

/* One table per CSV file: the cells to --csv NAME.csv, the others to
 * NAME-<suffix>.csv (verify, cold, use); the JSON holds them all. */
int tune_write_outputs(const struct bench_opts *opts, struct bench_table *const *tables,
		       size_t n)
{
	struct bench_opts o = *opts;
	o.csv_path = NULL;
	int rc = bench_write_outputs(&o, "tune", tables, n);
	if (!opts->csv_path)
		return rc;
	o = *opts;
	o.json_path = NULL;
	o.emulated = 0;   /* its note is in already */
	rc |= bench_write_outputs(&o, "tune", tables, 1);
	size_t l = strlen(opts->csv_path);
	if (l > 4 && !strcmp(opts->csv_path + l - 4, ".csv"))
		l -= 4;
	for (size_t i = 1; i < n; i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%.*s-%s.csv", (int)l, opts->csv_path,
			 tables[i]->csv_suffix);
		o.csv_path = path;
		rc |= bench_write_outputs(&o, "tune", tables + i, 1);
	}
	return rc;
}

