/* SPDX-License-Identifier: MIT */
/*
 * sweep's output: per kind of target a table of medians; a summary, a row per
 * kind and extent: the fastest kernel and auto and cold_call against it (the
 * ratio of medians and paired by round), auto against each memset; what auto
 * and cold_call ran; one data table with a target column for CSV and JSON
 * (compare matches its rows by target, extent and contender; min, max and
 * every ratio are there), and one plot per kind.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "contenders.h"
#include "header.h"
#include "introspect.h"
#include "opts.h"
#include "plot.h"
#include "stats.h"
#include "sweep.h"
#include "table.h"
#include "targets.h"

static const char *const kind_about[BK_NKINDS] = {
	"one buffer cleared again and again",
	"each clear on another slot of a pool not in the cache",
	"cold, then one write per 64-byte line, timed",
};

/* the paired ratios' columns: [0] auto, [1] cold_call; median, interval */
static const char *const paired_cols[2][3] = {
	{ "auto_over_best_paired", "auto_over_best_paired_lo", "auto_over_best_paired_hi" },
	{ "cold_call_over_best_paired", "cold_call_over_best_paired_lo",
	  "cold_call_over_best_paired_hi" },
};

static const char *memset2_name(const struct sweep *sw)
{
	return sw->i_memset2 < sw->n ? sw->c[sw->i_memset2].name : NULL;
}

struct bench_table *sweep_data_table(const struct sweep *sw)
{
	static char vs2[40];
	const char *cols[25] = {
		"target", "extent", "bytes", "contender", "median_gbs", "min_gbs", "max_gbs", "best",
		"rounds", "auto_kernel", "auto_ran", "cold_call_ran", "auto_over_best",
		"auto_over_memset"
	};
	size_t n = 14;
	if (memset2_name(sw)) {
		snprintf(vs2, sizeof(vs2), "auto_over_%.24s", memset2_name(sw));
		cols[n++] = vs2;
	}
	cols[n++] = "cold_call_over_best";
	for (size_t w = 0; w < 2; w++)
		for (size_t v = 0; v < 3; v++)
			cols[n++] = paired_cols[w][v];
	cols[n++] = "fastest_kernel";   /* the divisor of every _over_best */
	return bench_table_new("sweep", BT_DATA, n, cols);
}

void sweep_kind_table(struct sweep_kind *k)
{
	const char *cols[BENCH_MAX_COLS] = { "extent" };
	char title[160];
	for (size_t i = 0; i < k->n; i++)
		cols[i + 1] = k->c[i].name;
	snprintf(title, sizeof(title), "sweep, %s (%s): GB/s, median over rounds (* = the "
		 "fastest of the row)", bench_kind_names[k->kind], kind_about[k->kind]);
	k->wide = bench_table_new(title, BT_TEXT, k->n + 1, cols);
}

void sweep_wide_row(struct sweep_kind *k, const char *ext, const double *med, size_t best)
{
	char cell[40];
	bench_table_row(k->wide);
	bench_cell_str(k->wide, ext);
	for (size_t i = 0; i < k->n; i++) {
		snprintf(cell, sizeof(cell), "%.2f%s", med[i], i == best ? "*" : " ");
		bench_cell_str(k->wide, cell);
	}
}

void sweep_data_row(struct bench_table *data, const struct sweep_kind *k, const char *ext,
		    size_t bytes, size_t i, double med, double min, double max, int best,
		    size_t rounds)
{
	const struct sweep_ratios *q = &k->q[k->nsizes - 1];
	bench_table_row(data);
	bench_cell_str(data, bench_kind_names[k->kind]);
	bench_cell_str(data, ext);
	bench_cell_num(data, (double)bytes, "%.0f");
	bench_cell_str(data, k->c[i].name);
	bench_cell_num(data, med, "%.3f");
	bench_cell_num(data, min, "%.3f");
	bench_cell_num(data, max, "%.3f");
	bench_cell_num(data, best, "%.0f");
	bench_cell_num(data, (double)rounds, "%.0f");
	bench_cell_str(data, q->pick);
	bench_cell_str(data, q->auto_ran);
	bench_cell_str(data, q->cold_ran);
	bench_cell_num(data, q->vs_best, "%.3f");
	bench_cell_num(data, q->vs_memset, "%.3f");
	/* a second memset's column between them (sweep_data_table), NaN on cold and use */
	if (bench_table_col(data, "cold_call_over_best") >
	    bench_table_col(data, "auto_over_memset") + 1)
		bench_cell_num(data, q->vs_memset2, "%.3f");
	bench_cell_num(data, q->cold_vs_best, "%.3f");
	for (size_t w = 0; w < 2; w++) {
		bench_cell_num(data, q->paired[w], "%.3f");
		bench_cell_num(data, q->paired_lo[w], "%.3f");
		bench_cell_num(data, q->paired_hi[w], "%.3f");
	}
	bench_cell_str(data, q->fastest);
}

/* A row per kind and extent: the fastest kernel, auto and cold_call against it
 * (medians; paired by round, with the interval), auto against each memset. */
static struct bench_table *summary_table(const struct sweep *sw)
{
	const char *cols[10] = { "target", "extent", "fastest kernel", "auto/fastest",
				 "auto paired", "cold_call/fastest", "cold_call paired",
				 "auto/memset" };
	char vs2[40];
	size_t n = 8;
	if (memset2_name(sw)) {
		snprintf(vs2, sizeof(vs2), "auto/%.24s", memset2_name(sw));
		cols[n++] = vs2;
	}
	struct bench_table *t = bench_table_new("sweep summary: auto and cold_call against the "
		"fastest kernel of the row; paired: the median of the per-round ratios (~95 % "
		"interval)", BT_TEXT, n, cols);
	for (size_t i = 0; i < sw->nkinds; i++) {
		const struct sweep_kind *k = &sw->kinds[i];
		for (size_t s = 0; s < k->nsizes; s++) {
			const struct sweep_ratios *q = &k->q[s];
			char ext[16], cell[2][40];
			bench_table_row(t);
			bench_cell_str(t, bench_kind_names[k->kind]);
			bench_cell_str(t, bench_size_str(q->bytes, ext, sizeof(ext)));
			bench_cell_str(t, q->fastest);
			for (size_t w = 0; w < 2; w++) {
				snprintf(cell[w], sizeof(cell[w]), "%.2f (%.2f-%.2f)", q->paired[w],
					 q->paired_lo[w], q->paired_hi[w]);
				bench_cell_num(t, w ? q->cold_vs_best : q->vs_best, "%.2f");
				bench_cell_str(t, cell[w]);
			}
			bench_cell_num(t, q->vs_memset, "%.2f");
			if (n > 8)
				bench_cell_num(t, q->vs_memset2, "%.2f");
		}
	}
	return t;
}

/* What auto and cold_call ran per kind and extent, and what the extent alone picks. */
static struct bench_table *ran_table(const struct sweep *sw)
{
	static const char *const cols[] = { "target", "extent", "by extent alone", "auto ran",
					    "cold_call ran" };
	struct bench_table *t = bench_table_new("sweep, what auto and cold_call ran (untimed "
		"calls after the timed rounds) and what the extent alone picks", BT_TEXT, 5, cols);
	for (size_t i = 0; i < sw->nkinds; i++) {
		const struct sweep_kind *k = &sw->kinds[i];
		for (size_t s = 0; s < k->nsizes; s++) {
			char ext[16];
			bench_table_row(t);
			bench_cell_str(t, bench_kind_names[k->kind]);
			bench_cell_str(t, bench_size_str(k->q[s].bytes, ext, sizeof(ext)));
			bench_cell_str(t, k->q[s].pick);
			bench_cell_str(t, k->q[s].auto_ran);
			bench_cell_str(t, k->q[s].cold_ran);
		}
	}
	return t;
}

static void notes(const struct sweep *sw)
{
	const char *m2 = memset2_name(sw);
	char llc[16];
	struct bench_host h;
	bench_host_get(&h);
	bench_note("hot = %s; cold = %s; use = %s.", kind_about[BK_HOT], kind_about[BK_COLD],
		   kind_about[BK_USE]);
	bench_note("auto = cp_clear_pages(), cold_call = cp_zero(.., CP_ZERO_COLD), auto_page = "
		   "cp_clear_pages() one page per call (hot only); auto/fastest and "
		   "cold_call/fastest = against the fastest kernel of the row, named in the "
		   "summary (the CSV's auto_over_best and cold_call_over_best, over its "
		   "fastest_kernel); medians over rounds, each contender warmed up, order shuffled "
		   "per round. Min and max over rounds: the CSV and JSON.");
	bench_note("auto ran, cold_call ran: the kernels each ran in untimed calls right after "
		   "the timed rounds, on targets of the kind (up to 128 calls, 16 MiB in all), "
		   "with the library's policy swapped for one whose kernels count the pages they "
		   "clear; several kernels: the share of bytes each cleared (the residency estimate "
		   "clears the first chunk of each 4 MiB temporally). \"by extent alone\" is "
		   "cp_kernel_for(), the CSV's auto_kernel.");
	if (sw->pool_bytes)
		bench_note("cold and use: a %zu MiB pool (LLC %s by CPUID), 2 MiB aligned, THP "
			   "advised and collapsed (MADV_COLLAPSE; %ld MiB huge), faulted in and "
			   "written three times over its 2 MiB pages in random order before any "
			   "timing; each pass clears the next slot of a shuffled order of all "
			   "extent-sized slots, reshuffled when used up, never one slot twice in a "
			   "row.%s%s", sw->pool_bytes >> 20,
			   bench_size_str(h.llc_bytes, llc, sizeof(llc)),
			   sw->pool_thp_kib >= 0 ? sw->pool_thp_kib >> 10 : -1,
			   sw->pool_why[0] ? " " : "", sw->pool_why);
	if (sw->pool_bytes && sw->pool_bytes < 4 * h.llc_bytes)
		bench_note("the pool is under four times the LLC: part of what cold and use "
			   "clear may still be cached (a test-sized --pool).");
	if (m2)
		bench_note("memset = glibc %s (this process); %s = glibc %s's memset in a helper "
			   "process started by that libc's loader, timed the same way in the same "
			   "shuffled rounds (the memset of Debian 13), on hot targets only: on a cold "
			   "pool of its own the helper's figures did not match those of the same "
			   "memset measured in this process.", bench_libc_version(), m2, m2 + 7);
	else
		bench_note("memset = glibc %s; a second glibc's memset joins the sweep %s",
			   bench_libc_version(), bench_hint("once `make bench-libc` has fetched "
			   "Debian 13's into .deps/trixie-libc of the source tree.", "with "
			   "CLEARBENCH_LIBC2=DIR, DIR holding Debian 13's libc6 unpacked (clearbench(1), "
			   "ENVIRONMENT)."));
}

/* The reader looks for three lines: auto, memset and the best kernel (the
 * highest geometric mean over the extents): those bold; non-temporal kernels
 * (and cold_call, which uses them) dashed; a mark wherever auto changes kernel. */
static int kind_plot(const char *path, const struct sweep_kind *k, const struct bench_table *t)
{
	static struct bench_plot_spec p;
	char title[160];
	snprintf(title, sizeof(title), "clearbench sweep, %s (%s): GB/s median, bars min-max",
		 bench_kind_names[k->kind], kind_about[k->kind]);
	bench_plot_spec_init(&p, path, title, "extent", "GB/s (10^9 bytes/s)");
	p.x_bytes = p.logy = 1;
	size_t best = k->n, sc = bench_table_col(t, "contender"), xc = bench_table_col(t, "bytes");
	size_t yc = bench_table_col(t, "median_gbs");
	double best_score = 0;
	for (size_t i = 0; i < k->n; i++) {
		int s = bench_series_add(&p, t, sc, k->c[i].name, xc, yc, yc + 1, yc + 2);
		if (s < 0)
			continue;
		struct bench_series *se = &p.s[s];
		const struct cp_kernel *kn = k->c[i].kernel;
		se->dashed = (kn && (kn->flags & CP_NONTEMPORAL)) || i == k->i_cold;
		se->bold = i == k->i_auto || !strncmp(k->c[i].name, "memset", 6);
		double lg = 0;
		for (size_t j = 0; j < se->n; j++)
			lg += log(se->y[j]);
		if (kn && se->n == k->nsizes && (best == k->n || lg > best_score)) {
			best = (size_t)s;
			best_score = lg;
		}
	}
	if (best < k->n) {
		char name[48];
		p.s[best].bold = 1;
		snprintf(name, sizeof(name), "%s (best kernel)", p.s[best].name);
		snprintf(p.s[best].name, sizeof(p.s[best].name), "%s", name);
	}
	/* where auto switches kernels: on cold and use targets the uncached
	 * bands' switches, which the estimate takes there */
	size_t from[BENCH_MAX_BANDS];
	const struct cp_kernel *kb[BENCH_MAX_BANDS];
	size_t nb = k->kind == BK_HOT ? bench_auto_bands(from, kb, BENCH_MAX_BANDS) :
		    bench_bands_of(bench_uncached_kernel, from, kb, BENCH_MAX_BANDS);
	for (size_t i = 1; i < nb && p.nmarks < 16; i++) {
		p.mark_x[p.nmarks] = (double)from[i] * CP_PAGE_SIZE;
		snprintf(p.mark_label[p.nmarks++], sizeof(p.mark_label[0]), "auto: %s", kb[i]->name);
	}
	return bench_plot_lines(&p);
}

/* --plot FILE.png: FILE-hot.png, FILE-cold.png, FILE-use.png for the kinds
 * measured, and FILE.png the first of them (hot by default), as before. */
static int sweep_plots(const struct bench_opts *opts, const struct sweep *sw,
		       const struct bench_table *data)
{
	int rc = 0;
	size_t l = strlen(opts->plot_path) - 4;   /* the option parser saw ".png" */
	for (size_t i = 0; i < sw->nkinds && !rc; i++) {
		const struct sweep_kind *k = &sw->kinds[i];
		struct bench_table *t = bench_plot_rows_of(data, "target", bench_kind_names[k->kind]);
		char path[4096];
		snprintf(path, sizeof(path), "%.*s-%s.png", (int)l, opts->plot_path,
			 bench_kind_names[k->kind]);
		rc = kind_plot(path, k, t);
		if (!rc && i == 0)
			rc = kind_plot(opts->plot_path, k, t);
		bench_table_free(t);
	}
	return rc;
}

int sweep_output(const struct bench_opts *opts, const struct sweep *sw, struct bench_table *data)
{
	struct bench_table *tables[BK_NKINDS + 3];
	size_t nt = 0;
	for (size_t i = 0; i < sw->nkinds; i++)
		tables[nt++] = sw->kinds[i].wide;
	tables[nt++] = summary_table(sw);
	tables[nt++] = ran_table(sw);
	for (size_t i = 0; i < nt; i++)
		bench_table_print(tables[i]);
	printf("\n");
	tables[nt++] = data;
	notes(sw);
	int rc = bench_write_outputs(opts, "sweep", tables, nt);
	if (!rc && opts->plot_path)
		rc = sweep_plots(opts, sw, data);
	bench_table_free(tables[nt - 3]);
	bench_table_free(tables[nt - 2]);
	return rc;
}
