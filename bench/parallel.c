/* SPDX-License-Identifier: MIT */
/*
 * parallel: cp_clear_pages_parallel with 1..N threads (N = --threads, else the
 * CPUs this process may run on) at 64 MiB, 256 MiB and 1 GiB (--sizes): GB/s
 * median, speed-up and scaling efficiency against one thread measured in the
 * same rounds. Then the threshold below which the library stays on the calling
 * thread: one thread against N shares at small extents, with the smallest
 * share lowered to one page so that the split happens at every extent.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "contenders.h"
#include "introspect.h"
#include "map.h"
#include "opts.h"
#include "plot.h"
#include "rounds.h"
#include "scenarios.h"
#include "stats.h"
#include "table.h"

#define MAX_CONTENDERS 64

/* Contender i splits into shares_of[i] shares of at least min_share_of[i] pages. */
static struct bench_contender cont[MAX_CONTENDERS];
static unsigned shares_of[MAX_CONTENDERS];
static size_t min_share_of[MAX_CONTENDERS];

static void clear_parallel(const struct bench_contender *c, void *buf, size_t bytes)
{
	size_t i = (size_t)(c - cont);
	if (min_share_of[i])
		bench_clear_parallel_min(buf, bytes / CP_PAGE_SIZE, shares_of[i], min_share_of[i]);
	else
		cp_clear_pages_parallel(buf, bytes / CP_PAGE_SIZE, shares_of[i]);
}

static void add_contender(size_t i, unsigned shares, size_t min_share, const char *name)
{
	memset(&cont[i], 0, sizeof(cont[i]));
	snprintf(cont[i].name, sizeof(cont[i].name), "%s", name);
	cont[i].clear = clear_parallel;
	shares_of[i] = shares;
	min_share_of[i] = min_share;
}

/* Median GB/s of each of the first n contenders at `bytes`. */
static void medians(size_t n, void *buf, size_t bytes, const struct bench_opts *opts,
		    double *gbs)
{
	struct bench_rounds cfg = bench_rounds_for(opts, bytes);
	double *samples = bench_sample(cont, n, buf, bytes, &cfg);
	for (size_t i = 0; i < n; i++)
		gbs[i] = bench_gbs(bytes, bench_median(&samples[i * cfg.rounds], cfg.rounds));
	free(samples);
}

static unsigned max_threads(const struct bench_opts *opts)
{
	cpu_set_t set;
	unsigned n = opts->threads;
	if (!n)
		n = sched_getaffinity(0, sizeof(set), &set) ? 1 : (unsigned)CPU_COUNT(&set);
	return n < MAX_CONTENDERS ? n : MAX_CONTENDERS;
}

static struct bench_table *scaling(const struct bench_opts *opts, unsigned nthreads,
				   const size_t *sizes, size_t nsizes, void *buf)
{
	static const char *const cols[] = { "extent", "threads", "GB/s", "speed-up", "efficiency" };
	struct bench_table *t = bench_table_new(
		"parallel: cp_clear_pages_parallel, GB/s median; efficiency = speed-up / threads",
		BT_TEXT | BT_DATA, 5, cols);
	for (unsigned k = 0; k < nthreads; k++) {
		char name[24];
		snprintf(name, sizeof(name), "%u thread%s", k + 1, k ? "s" : "");
		add_contender(k, k + 1, 0, name);
	}
	for (size_t si = 0; si < nsizes; si++) {
		char ext[16];
		double gbs[MAX_CONTENDERS];
		bench_size_str(sizes[si], ext, sizeof(ext));
		bench_progress("parallel: %s (%zu/%zu)", ext, si + 1, nsizes);
		medians(nthreads, buf, sizes[si], opts, gbs);
		for (unsigned k = 0; k < nthreads; k++) {
			bench_table_row(t);
			bench_cell_str(t, ext);
			bench_cell_num(t, k + 1, "%.0f");
			bench_cell_num(t, gbs[k], "%.2f");
			bench_cell_num(t, gbs[k] / gbs[0], "%.2f");
			bench_cell_num(t, gbs[k] / gbs[0] / (k + 1), "%.2f");
		}
	}
	return t;
}

/* The threshold table runs from 128 KiB up to this. */
static size_t threshold_top(const struct bench_opts *opts)
{
	return opts->quick ? (size_t)4 << 20 : (size_t)64 << 20;
}

/* One thread against nthreads one-page-minimum shares, at small extents. */
static struct bench_table *threshold(const struct bench_opts *opts, unsigned nthreads,
				     void *buf)
{
	static const char *const cols[] = { "extent", "1 thread", "split", "split/1",
					    "library uses" };
	char title[96];
	snprintf(title, sizeof(title), "parallel threshold: GB/s median, 1 thread vs %u shares",
		 nthreads);
	struct bench_table *t = bench_table_new(title, BT_TEXT | BT_DATA, 5, cols);
	bench_table_csv_suffix(t, "threshold");
	add_contender(0, 1, 0, "1 thread");
	add_contender(1, nthreads, 1, "split");
	size_t step = opts->quick ? 4 : 2;
	for (size_t bytes = (size_t)128 << 10; bytes <= threshold_top(opts); bytes *= step) {
		char ext[16];
		double gbs[2];
		bench_size_str(bytes, ext, sizeof(ext));
		bench_progress("parallel threshold: %s", ext);
		medians(2, buf, bytes, opts, gbs);
		bench_table_row(t);
		bench_cell_str(t, ext);
		bench_cell_num(t, gbs[0], "%.2f");
		bench_cell_num(t, gbs[1], "%.2f");
		bench_cell_num(t, gbs[1] / gbs[0], "%.2f");
		size_t share = bench_parallel_min_share_pages();
		bench_cell_str(t, share && bytes / CP_PAGE_SIZE / share >= 2
				  ? "threads" : "caller only");
	}
	return t;
}

/* Speed-up against threads, one line per extent, with the 1.0 line (one thread). */
static int parallel_plot(const char *path, const struct bench_table *t, const size_t *sizes,
			 size_t nsizes)
{
	static struct bench_plot_spec p;
	bench_plot_spec_init(&p, path,
		     "clearbench parallel: cp_clear_pages_parallel speed-up against one thread",
			     "threads", "speed-up (GB/s over one thread's, same rounds)");
	p.hline = 1.0;
	for (size_t i = 0; i < nsizes; i++) {
		char ext[16];
		bench_size_str(sizes[i], ext, sizeof(ext));
		int s = bench_series_add(&p, t, 0, ext, 1, 3, (size_t)-1, (size_t)-1);
		if (s >= 0)
			p.s[s].bold = 1;
	}
	return bench_plot_lines(&p);
}

int bench_parallel(const struct bench_opts *opts)
{
	int rc;
	size_t sizes[BENCH_MAX_SIZES], nsizes = opts->nsizes;
	if (nsizes) {
		memcpy(sizes, opts->sizes, nsizes * sizeof(*sizes));
	} else {
		sizes[nsizes++] = (size_t)64 << 20;
		sizes[nsizes++] = (size_t)256 << 20;
		if (!opts->quick)
			sizes[nsizes++] = (size_t)1 << 30;
	}
	size_t top = threshold_top(opts);
	for (size_t i = 0; i < nsizes; i++)
		top = sizes[i] > top ? sizes[i] : top;
	unsigned nthreads = max_threads(opts);
	void *buf = bench_map(top);
	if (!buf)
		return 1;
	struct bench_table *tables[2];
	tables[0] = scaling(opts, nthreads, sizes, nsizes, buf);
	tables[1] = threshold(opts, nthreads > 1 ? nthreads : 2, buf);
	bench_unmap(buf, top);

	bench_table_print(tables[0]);
	bench_table_print(tables[1]);
	printf("\n");
	bench_note("%u thread(s) at most (--threads, else the CPUs this process may run on); "
		   "the caller's thread clears one share; medians over shuffled, warmed-up rounds.",
		   nthreads);
	bench_note("threshold: 'split' lowers the smallest share to one page; the library "
		   "splits only into shares of %zu pages or more (0: never; policy %s).",
		   bench_parallel_min_share_pages(), cp_policy_source());
	rc = bench_write_outputs(opts, "parallel", tables, 2);
	if (!rc && opts->plot_path)
		rc = parallel_plot(opts->plot_path, tables[0], sizes, nsizes);
	bench_table_free(tables[0]);
	bench_table_free(tables[1]);
	return rc;
}
