/*
 * batch (seed 001): a region (1 GiB, --region) cleared in kernel calls of 4 KiB,
 * 2 MiB, 8 MiB, 32 MiB, 64 MiB or the whole region, for each kernel: GB/s and
 * L1-dcache-loads per 64 B. AMD Zen elides cacheline allocation only for
 * extents past about LLC size (seed 001: rep stosb 8.8 / 13.3 / 18.7 / 35.9 GB/s
 * at 8 / 32 / 64 MiB / whole on an EPYC host), so the batch size matters.
 */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include "clearbench.h"

#define MIB ((size_t)1 << 20)

int bench_batch(const struct bench_opts *opts)
{
	size_t region = opts->region ? opts->region : opts->quick ? 256 * MIB : 1024 * MIB;
	const size_t steps[] = { 4096, 2 * MIB, 8 * MIB, 32 * MIB, 64 * MIB };
	size_t batches[8], nb = 0;
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (steps[i] < region)
			batches[nb++] = steps[i];
	batches[nb++] = region;                    /* whole: one call */

	size_t n = opts->nkernels * nb;
	struct bench_contender *c = calloc(n, sizeof(*c));
	double *samples = NULL;
	void *buf = bench_map(region);
	if (!c || !buf)
		return 1;
	for (size_t k = 0; k < opts->nkernels; k++)
		for (size_t b = 0; b < nb; b++)
			bench_contender_batched(&c[k * nb + b], opts->kernels[k], batches[b], 0);

	struct bench_rounds cfg = bench_rounds_for(opts, region);
	bench_progress("batch: %zu kernels x %zu batch sizes, %zu rounds", opts->nkernels, nb,
		       cfg.rounds);
	samples = bench_sample(c, n, buf, region, &cfg);

	/* Counters on one extra pass each, outside the timed rounds. */
	int fd = bench_l1d_loads_open();
	static const char *const cols[] = {
		"kernel", "batch", "batch_bytes", "median_gbs", "min_gbs", "max_gbs",
		"l1d_loads_per_64B"
	};
	struct bench_table *t = bench_table_new("batch: GB/s (median, min, max over rounds), "
						"L1-dcache-loads per 64 B cleared",
						BT_TEXT | BT_DATA, 7, cols);
	const char *wide_cols[24] = { "batch" };
	for (size_t k = 0; k < opts->nkernels && k < 23; k++)
		wide_cols[k + 1] = opts->kernels[k]->name;
	size_t nw = opts->nkernels < 23 ? opts->nkernels + 1 : 24;
	struct bench_table *wide = bench_table_new("batch: GB/s, median (rows: batch size)",
						   BT_TEXT, nw, wide_cols);
	for (size_t i = 0; i < n; i++) {
		const double *s = &samples[i * cfg.rounds];
		char name[16];
		bench_size_str(c[i].batch_bytes, name, sizeof(name));
		double loads = bench_l1d_loads_of(fd, &c[i], buf, region);
		bench_table_row(t);
		bench_cell_str(t, c[i].name);
		bench_cell_str(t, c[i].batch_bytes == region ? "whole" : name);
		bench_cell_num(t, (double)c[i].batch_bytes, "%.0f");
		bench_cell_num(t, bench_gbs(region, bench_median(s, cfg.rounds)), "%.2f");
		bench_cell_num(t, bench_gbs(region, bench_max(s, cfg.rounds)), "%.2f");
		bench_cell_num(t, bench_gbs(region, bench_min(s, cfg.rounds)), "%.2f");
		bench_cell_num(t, loads / ((double)region / 64), "%.3f");
	}
	for (size_t b = 0; b < nb; b++) {
		char name[16];
		bench_table_row(wide);
		bench_cell_str(wide, b + 1 == nb ? "whole" : bench_size_str(batches[b], name, 16));
		for (size_t k = 0; k + 1 < nw; k++)
			bench_cell_num(wide, bench_gbs(region, bench_median(
				&samples[(k * nb + b) * cfg.rounds], cfg.rounds)), "%.2f");
	}
	if (fd >= 0)
		close(fd);
	bench_unmap(buf, region);

	bench_table_print(t);
	bench_table_print(wide);
	printf("\n");
	char r[16];
	bench_note("region %s on THP, %zu rounds; L1-dcache-loads: %s.",
		   bench_size_str(region, r, sizeof(r)), cfg.rounds,
		   fd >= 0 ? "user-space loads counted by perf_event_open on one extra pass"
			   : "n/a, perf_event_open gives no hardware counters here");
	bench_note("seed 001 (AMD EPYC, rep stosb): 8.8 / 13.3 / 18.7 / 35.9 GB/s at "
		   "8M / 32M / 64M / whole; clzero about 38 from 8M.");
	struct bench_table *tables[] = { t, wide };
	int rc = bench_write_outputs(opts, "batch", tables, 2);
	if (!rc && opts->plot_path)
		rc = bench_plot(opts, "clearbench batch", "batch (bytes)", t, 2, 0, 3);
	bench_table_free(t);
	bench_table_free(wide);
	free(samples);
	free(c);
	return rc;
}
