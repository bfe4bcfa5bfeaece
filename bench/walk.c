/* SPDX-License-Identifier: MIT */
/*
 * walk (the Linux hugepage zeroing thread's memset experiment): a region
 * (100 MiB, --region) cleared in one shot, forward one 4 KiB page per call,
 * and reverse one page per call, for memset and each kernel. The thread
 * measured reverse at twice the forward time on an arm64 phone (prefetchers follow ascending streams) and one shot fastest of all.
 */
#include <stdlib.h>
#include "contenders.h"
#include "map.h"
#include "opts.h"
#include "plot.h"
#include "rounds.h"
#include "scenarios.h"
#include "stats.h"
#include "table.h"

#define MIB ((size_t)1 << 20)

static const char *const walk_names[] = { "oneshot", "forward", "reverse" };
#define NWALKS 3

/* Time per pass against one shot, per contender and walk, with the thread's
 * two hosts (memset) as the first categories. */
static int walk_plot(const char *path, const struct bench_table *t)
{
	size_t ncat = t->nrows + 2;
	const char *cats[BENCH_MAX_KERNELS + 4];
	double v[3 * (BENCH_MAX_KERNELS + 4)];
	static const char *const sers[] = { "oneshot", "forward", "reverse" };
	static const double pub[2][3] = { { 3203.49, 5766.46, 5187.86 },
					  { 3389.26, 8876.16, 18157.6 } };
	if (ncat > BENCH_MAX_KERNELS + 4)
		ncat = BENCH_MAX_KERNELS + 4;
	cats[0] = "published i7-8700 memset";
	cats[1] = "published SM8150 memset";
	for (size_t w = 0; w < 3; w++) {
		v[w * ncat + 0] = pub[0][w] / pub[0][0];
		v[w * ncat + 1] = pub[1][w] / pub[1][0];
	}
	for (size_t r = 0; r + 2 < ncat; r++) {
		cats[r + 2] = bench_cell_at(t, r, 0)->text;
		for (size_t w = 0; w < 3; w++)
			v[w * ncat + r + 2] = bench_cell_at(t, r, 1 + w)->value /
					      bench_cell_at(t, r, 1)->value;
	}
	return bench_plot_bars(path, "clearbench walk: time per pass over one shot (1.0 = one call "
			       "over the whole region)", "time / one-shot time", ncat, cats, 3, sers,
			       v, 1.0);
}

int bench_walk(const struct bench_opts *opts)
{
	size_t region = opts->region ? opts->region : 100 * MIB;
	size_t nsubj = opts->nkernels + 1;         /* memset, then the kernels */
	size_t n = nsubj * NWALKS;
	struct bench_contender *c = calloc(n, sizeof(*c));
	void *buf = bench_map(region);
	if (!c || !buf)
		return 1;
	for (size_t s = 0; s < nsubj; s++)
		for (size_t w = 0; w < NWALKS; w++)
			bench_contender_batched(&c[s * NWALKS + w], s ? opts->kernels[s - 1] : NULL,
						w ? CP_PAGE_SIZE : 0, w == 2);

	struct bench_rounds cfg = bench_rounds_for(opts, region);
	bench_progress("walk: %zu contenders x %zu rounds", n, cfg.rounds);
	double *samples = bench_sample(c, n, buf, region, &cfg);
	bench_unmap(buf, region);

	static const char *const cols[] = {
		"contender", "oneshot_us", "forward_us", "reverse_us", "oneshot_gbs",
		"forward_gbs", "reverse_gbs", "forward/oneshot", "reverse/oneshot"
	};
	struct bench_table *t = bench_table_new("walk: median time per pass (us) and GB/s",
						BT_TEXT | BT_DATA, 9, cols);
	for (size_t s = 0; s < nsubj; s++) {
		double us[NWALKS];
		for (size_t w = 0; w < NWALKS; w++)
			us[w] = 1e6 * bench_median(&samples[(s * NWALKS + w) * cfg.rounds], cfg.rounds);
		bench_table_row(t);
		bench_cell_str(t, c[s * NWALKS].name);
		for (size_t w = 0; w < NWALKS; w++)
			bench_cell_num(t, us[w], "%.0f");
		for (size_t w = 0; w < NWALKS; w++)
			bench_cell_num(t, bench_gbs(region, us[w] * 1e-6), "%.2f");
		bench_cell_num(t, us[1] / us[0], "%.2f");
		bench_cell_num(t, us[2] / us[0], "%.2f");
	}
	bench_table_print(t);
	printf("\n");
	char r[16];
	bench_note("%s region on THP, %zu rounds; %s / %s / %s = one call / one call per "
		   "4 KiB page ascending / descending.", bench_size_str(region, r, sizeof(r)),
		   cfg.rounds, walk_names[0], walk_names[1], walk_names[2]);
	bench_note("the Linux hugepage zeroing thread (Prathu Baronia; memset of 100 MB, mean of "
		   "100): i7-8700 oneshot 3203 us, forward 5766, reverse 5188; SM8150 (arm64) "
		   "3389 / 8876 / 18158 us.");
	struct bench_table *tables[] = { t };
	int rc = bench_write_outputs(opts, "walk", tables, 1);
	if (!rc && opts->plot_path)
		rc = walk_plot(opts->plot_path, t);
	bench_table_free(t);
	free(samples);
	free(c);
	return rc;
}
