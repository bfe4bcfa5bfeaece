/*
 * sweep: every usable kernel, auto (cp_clear_pages), memset and page-at-a-time
 * auto at extents from 4 KiB to 1 GiB. Per extent: GB/s median with min and
 * max over interleaved rounds, the best of each row marked, and auto against
 * the fastest kernel and against memset measured in the same rounds.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "clearbench.h"

#define NCONT_MAX (BENCH_MAX_KERNELS + 3)

static size_t default_sizes(const struct bench_opts *opts, size_t *sizes)
{
	size_t n = 0;
	/* 4 KiB to 1 GiB: every power of two; --quick every fourth one to 256 MiB */
	size_t top = opts->quick ? (size_t)256 << 20 : (size_t)1 << 30;
	for (size_t s = 4096; s <= top; s *= opts->quick ? 4 : 2)
		sizes[n++] = s;
	return n;
}

struct row {
	double med[NCONT_MAX], min[NCONT_MAX], max[NCONT_MAX];
	size_t best;            /* fastest contender of the row, auto and memset included */
	size_t best_kernel;     /* fastest kernel: the baseline of auto/best */
	size_t rounds;
};

/* c[0 .. nkernels) are the kernels, then the baselines. */
static void measure(const struct bench_contender *c, size_t n, size_t nkernels, void *buf,
		    size_t bytes, const struct bench_opts *opts, struct row *row)
{
	struct bench_rounds cfg = bench_rounds_for(opts, bytes);
	double *samples = bench_sample(c, n, buf, bytes, &cfg);
	row->best = row->best_kernel = 0;
	row->rounds = cfg.rounds;
	for (size_t i = 0; i < n; i++) {
		const double *s = &samples[i * cfg.rounds];
		/* the median time is the median rate; the fastest sample the max rate */
		row->med[i] = bench_gbs(bytes, bench_median(s, cfg.rounds));
		row->min[i] = bench_gbs(bytes, bench_max(s, cfg.rounds));
		row->max[i] = bench_gbs(bytes, bench_min(s, cfg.rounds));
		if (row->med[i] > row->med[row->best])
			row->best = i;
		if (i < nkernels && row->med[i] > row->med[row->best_kernel])
			row->best_kernel = i;
	}
	free(samples);
}

static size_t find(const struct bench_contender *c, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(c[i].name, name))
			return i;
	return n;
}

int bench_sweep(const struct bench_opts *opts)
{
	size_t sizes[BENCH_MAX_SIZES], nsizes = opts->nsizes;
	if (nsizes)
		memcpy(sizes, opts->sizes, nsizes * sizeof(*sizes));
	else
		nsizes = default_sizes(opts, sizes);
	size_t top = 0;
	for (size_t i = 0; i < nsizes; i++)
		top = sizes[i] > top ? sizes[i] : top;

	struct bench_contender c[NCONT_MAX];
	size_t n = bench_contenders(opts, 1, c);
	size_t i_auto = find(c, n, "auto"), i_memset = find(c, n, "memset");

	const char *wide_cols[24] = { "extent" };
	size_t nw = 1;
	for (size_t i = 0; i < n; i++)
		wide_cols[nw++] = c[i].name;
	wide_cols[nw++] = "best";
	wide_cols[nw++] = "auto/best";
	wide_cols[nw++] = "auto/memset";
	wide_cols[nw++] = "auto picks";
	struct bench_table *wide = bench_table_new("sweep: GB/s, median over rounds (* = best of the row)",
						   BT_TEXT, nw, wide_cols);
	struct bench_table *spread = bench_table_new("sweep: GB/s, min-max over rounds",
						     BT_TEXT, n + 2, wide_cols);
	static const char *const long_cols[] = {
		"extent", "bytes", "contender", "median_gbs", "min_gbs", "max_gbs", "best",
		"rounds", "auto_kernel", "auto_over_best", "auto_over_memset"
	};
	struct bench_table *data = bench_table_new("sweep", BT_DATA, 11, long_cols);
	snprintf(spread->cols[n + 1], sizeof(spread->cols[0]), "rounds");

	void *buf = bench_map(top);
	if (!buf)
		return 1;
	for (size_t si = 0; si < nsizes; si++) {
		size_t bytes = sizes[si];
		char ext[16], cell[40];
		bench_size_str(bytes, ext, sizeof(ext));
		bench_progress("sweep: %s (%zu/%zu)", ext, si + 1, nsizes);
		struct row row = { 0 };
		measure(c, n, opts->nkernels, buf, bytes, opts, &row);
		double vs_best = row.med[i_auto] / row.med[row.best_kernel];
		double vs_memset = row.med[i_auto] / row.med[i_memset];
		const char *pick = cp_kernel_for(bytes / CP_PAGE_SIZE)->name;

		bench_table_row(wide);
		bench_table_row(spread);
		bench_cell_str(wide, ext);
		bench_cell_str(spread, ext);
		for (size_t i = 0; i < n; i++) {
			snprintf(cell, sizeof(cell), "%.2f%s", row.med[i], i == row.best ? "*" : " ");
			bench_cell_str(wide, cell);
			snprintf(cell, sizeof(cell), "%.1f-%.1f", row.min[i], row.max[i]);
			bench_cell_str(spread, cell);

			bench_table_row(data);
			bench_cell_str(data, ext);
			bench_cell_num(data, (double)bytes, "%.0f");
			bench_cell_str(data, c[i].name);
			bench_cell_num(data, row.med[i], "%.3f");
			bench_cell_num(data, row.min[i], "%.3f");
			bench_cell_num(data, row.max[i], "%.3f");
			bench_cell_num(data, i == row.best, "%.0f");
			bench_cell_num(data, (double)row.rounds, "%.0f");
			bench_cell_str(data, pick);
			bench_cell_num(data, vs_best, "%.3f");
			bench_cell_num(data, vs_memset, "%.3f");
		}
		bench_cell_num(spread, (double)row.rounds, "%.0f");
		bench_cell_str(wide, c[row.best].name);
		bench_cell_num(wide, vs_best, "%.2f");
		bench_cell_num(wide, vs_memset, "%.2f");
		bench_cell_str(wide, pick);
	}
	bench_unmap(buf, top);

	bench_table_print(wide);
	bench_table_print(spread);
	printf("\n");
	bench_note("auto = cp_clear_pages(), auto_page = cp_clear_pages() one page per call; "
		   "auto/best = auto against the fastest kernel of the row; "
		   "medians over rounds, each contender warmed up, order shuffled per round.");
	struct bench_table *tables[] = { wide, spread, data };
	int rc = bench_write_outputs(opts, "sweep", tables, 3);
	if (!rc && opts->plot_path)
		rc = bench_plot(opts, "clearbench sweep", "extent (bytes)", data, 1, 2, 3);
	for (size_t i = 0; i < 3; i++)
		bench_table_free(tables[i]);
	return rc;
}
