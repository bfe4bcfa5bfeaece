/* SPDX-License-Identifier: MIT */
/*
 * batch (the Linux clear_pages batching thread): a region (1 GiB, --region)
 * cleared in kernel calls of 4 KiB, 2 MiB, 8 MiB, 32 MiB, 64 MiB or the whole
 * region, for each kernel: GB/s and L1-dcache-loads per 64 B. AMD Zen elides
 * cacheline allocation only for extents past about LLC size (the thread, on
 * AMD EPYC Genoa: rep stosb 26.88 / 38.69 / 46.91 / 58.68 GB/s at 8M / 32M /
 * 64M / 1G batches), so the batch size matters.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "contenders.h"
#include "map.h"
#include "opts.h"
#include "perf.h"
#include "plot.h"
#include "rounds.h"
#include "scenarios.h"
#include "stats.h"
#include "table.h"

#define MIB ((size_t)1 << 20)

/* GB/s against the batch size, one line per kernel (non-temporal dashed), and
 * the thread's published rep stosb curve beside them. */
static int batch_plot(const char *path, const struct bench_table *t,
		      const struct bench_opts *opts, size_t region)
{
	static const double pub_x[] = { 8 * MIB, 32 * MIB, 64 * MIB, 1024 * MIB };
	static const double pub_y[] = { 26.88, 38.69, 46.91, 58.68 };
	static struct bench_plot_spec p;
	bench_plot_spec_init(&p, path,
			     "clearbench batch: GB/s median against the batch size, bars min-max",
			     "batch (bytes per kernel call; the last is the whole region)",
			     "GB/s (10^9 bytes/s)");
	p.x_bytes = p.logy = 1;
	for (size_t k = 0; k < opts->nkernels; k++) {
		int s = bench_series_add(&p, t, 0, opts->kernels[k]->name, 2, 3, 4, 5);
		if (s >= 0) {
			p.s[s].dashed = (opts->kernels[k]->flags & CP_NONTEMPORAL) != 0;
			p.s[s].bold = !strcmp(opts->kernels[k]->name, "rep_stosb");
		}
	}
	struct bench_series *pub = &p.s[p.nseries++];
	memset(pub, 0, sizeof(*pub));
	snprintf(pub->name, sizeof(pub->name), "published: rep stosb, AMD EPYC Genoa");
	pub->dashed = pub->bold = 1;
	(void)region;   /* the published whole batch is 1 GiB, drawn there */
	for (size_t i = 0; i < 4; i++) {
		pub->x[pub->n] = pub_x[i];
		pub->y[pub->n++] = pub_y[i];
	}
	return bench_plot_lines(&p);
}

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
	const char *wide_cols[BENCH_MAX_COLS] = { "batch" };
	size_t nw = opts->nkernels + 1 < BENCH_MAX_COLS ? opts->nkernels + 1 : BENCH_MAX_COLS;
	for (size_t k = 0; k + 1 < nw; k++)
		wide_cols[k + 1] = opts->kernels[k]->name;
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
	bench_note("the Linux clear_pages batching thread (Ankur Arora; AMD EPYC Genoa, 1 GiB "
		   "pages): rep stosb 26.88 / 38.69 / 46.91 / 58.68 GB/s at 8M / 32M / 64M / 1G "
		   "batches, L1-dcache-loads/64B 2.00 / 0.79 / 0.28 / 0.024.");
	struct bench_table *tables[] = { t, wide };
	int rc = bench_write_outputs(opts, "batch", tables, 2);
	if (!rc && opts->plot_path)
		rc = batch_plot(opts->plot_path, t, opts, region);
	bench_table_free(t);
	bench_table_free(wide);
	free(samples);
	free(c);
	return rc;
}
