/*
 * latency (seed 004): samples of the time to clear one 2 MiB huge page,
 * page-at-a-time (512 kernel calls) against one shot (one call) for each
 * kernel, and auto (cp_clear_pages) both ways: mean, stddev, p50, p99. Each
 * sample clears the next 2 MiB of a larger region, so the target is not the
 * page the previous sample left in cache.
 */
#include <stdlib.h>
#include "clearbench.h"

#define HUGE_2M ((size_t)2 << 20)
#define MIB ((size_t)1 << 20)

int bench_latency(const struct bench_opts *opts)
{
	if (bench_no_plot(opts, "latency"))
		return 2;
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
				    region };
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
	bench_table_print(t);
	printf("\n");
	char r[16];
	bench_note("each sample clears the next 2 MiB of a %s region (THP), contenders "
		   "shuffled per round, one untimed clear before each sample.",
		   bench_size_str(region, r, sizeof(r)));
	bench_note("seed 004 (SM8150, ftrace of clear_huge_page): page-at-a-time 242 +- 45 us "
		   "(CPU0), one-shot memset 112 +- 0.3 us.");
	struct bench_table *tables[] = { t };
	int rc = bench_write_outputs(opts, "latency", tables, 1);
	bench_table_free(t);
	free(samples);
	free(c);
	return rc;
}
