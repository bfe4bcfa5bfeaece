/* SPDX-License-Identifier: MIT */
/*
 * latency (the Linux hugepage zeroing threads' clear_huge_page profile):
 * samples of the time to clear one 2 MiB huge page, page-at-a-time (512
 * kernel calls) against one shot (one call) for each kernel, and auto
 * (cp_clear_pages) both ways: mean, stddev, p50, p99 and the distribution. Each
 * sample clears the next 2 MiB of a larger region, so the target is not the
 * page the previous sample left in cache.
 */
#include <stdlib.h>
#include <string.h>
#include "contenders.h"
#include "map.h"
#include "opts.h"
#include "plot.h"
#include "rounds.h"
#include "scenarios.h"
#include "stats.h"
#include "table.h"

#define HUGE_2M ((size_t)2 << 20)
#define MIB ((size_t)1 << 20)

/* The distribution as percentile against latency, one line per contender and
 * mode: one shot solid, page-at-a-time dashed, auto bold. */
static int latency_plot(const char *path, const struct bench_table *cdf,
			const struct bench_contender *c, const char *const *mode, size_t n)
{
	static struct bench_plot_spec p;
	static struct bench_table *one;
	bench_plot_spec_init(&p, path,
		     "clearbench latency: clearing one 2 MiB page, distribution of the samples",
			     "microseconds (log scale)", "percentile of samples");
	p.logx = 1;
	for (size_t i = 0; i < n && p.nseries < BENCH_PLOT_MAX_SERIES; i++) {
		/* the rows of this contender and mode, as x = us, y = percentile */
		static const char *const cols[] = { "us", "percentile" };
		one = bench_table_new("one", BT_DATA, 2, cols);
		const char *name = c[i].kernel ? c[i].name : "auto";
		for (size_t r = 0; r < cdf->nrows; r++)
			if (!strcmp(bench_cell_at(cdf, r, 0)->text, name) &&
			    !strcmp(bench_cell_at(cdf, r, 1)->text, mode[i])) {
				bench_table_row(one);
				bench_cell_num(one, bench_cell_at(cdf, r, 3)->value, "%g");
				bench_cell_num(one, bench_cell_at(cdf, r, 2)->value, "%g");
			}
		char label[64];
		snprintf(label, sizeof(label), "%s, %s", name, mode[i]);
		int s = bench_series_add(&p, one, (size_t)-1, label, 0, 1, (size_t)-1, (size_t)-1);
		if (s >= 0) {
			p.s[s].dashed = !strcmp(mode[i], "page-at-a-time");
			p.s[s].bold = !c[i].kernel;
		}
		bench_table_free(one);
	}
	return bench_plot_lines(&p);
}

int bench_latency(const struct bench_opts *opts)
{
	size_t region = opts->region ? opts->region : 256 * MIB;
	if (region < HUGE_2M)
		region = HUGE_2M;
	region -= region % HUGE_2M;
	/* per kernel: page-at-a-time then one shot; then auto_page and auto */
	size_t n = 2 * opts->nkernels + 2;
	struct bench_contender *c = calloc(n, sizeof(*c));
	void *buf = bench_map(region);
	if (!c || !buf)
		return 1;
	const char *mode[BENCH_MAX_KERNELS * 2 + 2];
	for (size_t k = 0; k < opts->nkernels; k++)
		for (int one_shot = 0; one_shot <= 1; one_shot++) {
			size_t i = 2 * k + (size_t)one_shot;
			bench_contender_batched(&c[i], opts->kernels[k], one_shot ? 0 : CP_PAGE_SIZE, 0);
			mode[i] = one_shot ? "one shot" : "page-at-a-time";
		}
	/* bench_contenders() lists the kernels, then auto, memset, auto_page */
	struct bench_contender *all = calloc(opts->nkernels + 3, sizeof(*all));
	if (!all)
		abort();
	size_t nall = bench_contenders(opts, 1, all);
	c[n - 2] = all[nall - 1];
	mode[n - 2] = "page-at-a-time";
	c[n - 1] = all[nall - 3];
	mode[n - 1] = "one shot";
	free(all);

	struct bench_rounds cfg = { opts->rounds ? opts->rounds : opts->quick ? 50 : 200, 1, 1,
				    region, BK_HOT, NULL, NULL, NULL };
	bench_progress("latency: %zu contenders x %zu samples", n, cfg.rounds);
	double *samples = bench_sample(c, n, buf, HUGE_2M, &cfg);
	bench_unmap(buf, region);

	static const char *const cols[] = {
		"contender", "mode", "samples", "mean_us", "stddev_us", "p50_us", "p99_us", "min_us"
	};
	struct bench_table *t = bench_table_new("latency: clearing one 2 MiB page (us)",
						BT_TEXT | BT_DATA, 8, cols);
	for (size_t i = 0; i < n; i++) {
		double *s = &samples[i * cfg.rounds], mean, sd;
		for (size_t r = 0; r < cfg.rounds; r++)
			s[r] *= 1e6;
		bench_mean_stddev(s, cfg.rounds, &mean, &sd);
		bench_table_row(t);
		bench_cell_str(t, c[i].kernel ? c[i].name : "auto");
		bench_cell_str(t, mode[i]);
		bench_cell_num(t, (double)cfg.rounds, "%.0f");
		bench_cell_num(t, mean, "%.1f");
		bench_cell_num(t, sd, "%.1f");
		bench_cell_num(t, bench_percentile(s, cfg.rounds, 50), "%.1f");
		bench_cell_num(t, bench_percentile(s, cfg.rounds, 99), "%.1f");
		bench_cell_num(t, bench_min(s, cfg.rounds), "%.1f");
	}
	/* the distribution: latency at every 5th percentile (and 1st, 99th) */
	static const char *const cdf_cols[] = { "contender", "mode", "percentile", "us" };
	struct bench_table *cdf = bench_table_new("latency: distribution (us at each percentile)",
						  BT_DATA, 4, cdf_cols);
	bench_table_csv_suffix(cdf, "distribution");
	static const double pct[] = { 0, 1, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60, 65,
				      70, 75, 80, 85, 90, 95, 99, 100 };
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < sizeof(pct) / sizeof(pct[0]); j++) {
			bench_table_row(cdf);
			bench_cell_str(cdf, c[i].kernel ? c[i].name : "auto");
			bench_cell_str(cdf, mode[i]);
			bench_cell_num(cdf, pct[j], "%.0f");
			bench_cell_num(cdf, bench_percentile(&samples[i * cfg.rounds], cfg.rounds,
							     pct[j]), "%.1f");
		}
	bench_table_print(t);
	printf("\n");
	char r[16];
	bench_note("each sample clears the next 2 MiB of a %s region (THP), contenders "
		   "shuffled per round, one untimed clear before each sample.",
		   bench_size_str(region, r, sizeof(r)));
	bench_note("the Linux hugepage zeroing thread (Prathu Baronia; Qualcomm SM8150, ftrace of "
		   "clear_huge_page): page at a time 242 +- 45 us (CPU0), one memset 112 +- 0.3 us.");
	struct bench_table *tables[] = { t, cdf };
	int rc = bench_write_outputs(opts, "latency", tables, 2);
	if (!rc && opts->plot_path)
		rc = latency_plot(opts->plot_path, cdf, c, mode, n);
	bench_table_free(t);
	bench_table_free(cdf);
	free(samples);
	free(c);
	return rc;
}
