/* SPDX-License-Identifier: MIT */
/*
 * sweep: every usable kernel, auto (cp_clear_pages), memset and page-at-a-time
 * auto at extents from 4 KiB to 1 GiB; memset also from a second glibc where
 * one is fetched (the memset users get on Debian 13). Per extent: GB/s median
 * with min and max over interleaved rounds, the best of each row marked, and
 * auto against the fastest kernel and against each memset, all measured in
 * the same rounds.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "clearbench.h"

#define NCONT_MAX (BENCH_MAX_KERNELS + 4)

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

/* The reader looks for three lines: auto, memset and the best kernel (the
 * highest geometric mean over the extents): those bold; non-temporal kernels
 * dashed; a mark wherever auto changes kernel. */
static int sweep_plot(const struct bench_opts *opts, const struct bench_table *data,
		      const struct bench_contender *c, size_t n, size_t nsizes)
{
	static struct bench_plot_spec p;
	bench_plot_spec_init(&p, opts->plot_path,
			     "clearbench sweep: GB/s median, bars min-max over rounds",
			     "extent", "GB/s (10^9 bytes/s)");
	p.x_bytes = p.logy = 1;
	size_t best = n;
	double best_score = 0;
	for (size_t i = 0; i < n; i++) {
		int s = bench_series_add(&p, data, 2, c[i].name, 1, 3, 4, 5);
		if (s < 0)
			continue;
		struct bench_series *se = &p.s[s];
		se->dashed = c[i].kernel && (c[i].kernel->flags & CP_NONTEMPORAL);
		se->bold = !strcmp(c[i].name, "auto") || !strncmp(c[i].name, "memset", 6);
		double lg = 0;
		for (size_t j = 0; j < se->n; j++)
			lg += log(se->y[j]);
		if (c[i].kernel && se->n == nsizes && (best == n || lg > best_score)) {
			best = (size_t)s;
			best_score = lg;
		}
	}
	if (best < n) {
		p.s[best].bold = 1;
		char name[48];
		snprintf(name, sizeof(name), "%s (best kernel)", p.s[best].name);
		snprintf(p.s[best].name, sizeof(p.s[best].name), "%s", name);
	}
	size_t from[BENCH_MAX_BANDS];
	const struct cp_kernel *k[BENCH_MAX_BANDS];
	size_t nb = bench_auto_bands(from, k, BENCH_MAX_BANDS);
	for (size_t i = 1; i < nb && p.nmarks < 16; i++) {
		p.mark_x[p.nmarks] = (double)from[i] * CP_PAGE_SIZE;
		snprintf(p.mark_label[p.nmarks++], sizeof(p.mark_label[0]), "auto: %s", k[i]->name);
	}
	return bench_plot_lines(&p);
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
	size_t i_memset2 = n;
	if (bench_memset_other_libc(opts, &c[n]))
		i_memset2 = n++;
	const char *memset2 = i_memset2 < n ? c[i_memset2].name : "memset2";
	char vs_memset2_col[32], vs_memset2_data[40];
	snprintf(vs_memset2_col, sizeof(vs_memset2_col), "auto/%.24s", memset2);
	snprintf(vs_memset2_data, sizeof(vs_memset2_data), "auto_over_%.24s", memset2);

	const char *wide_cols[BENCH_MAX_COLS] = { "extent" };
	size_t nw = 1;
	for (size_t i = 0; i < n; i++)
		wide_cols[nw++] = c[i].name;
	wide_cols[nw++] = "best";
	wide_cols[nw++] = "auto/best";
	wide_cols[nw++] = "auto/memset";
	if (i_memset2 < n)
		wide_cols[nw++] = vs_memset2_col;
	wide_cols[nw++] = "auto picks";
	struct bench_table *wide = bench_table_new("sweep: GB/s, median over rounds (* = best of the row)",
						   BT_TEXT, nw, wide_cols);
	struct bench_table *spread = bench_table_new("sweep: GB/s, min-max over rounds",
						     BT_TEXT, n + 2, wide_cols);
	const char *long_cols[] = {
		"extent", "bytes", "contender", "median_gbs", "min_gbs", "max_gbs", "best",
		"rounds", "auto_kernel", "auto_over_best", "auto_over_memset", vs_memset2_data
	};
	struct bench_table *data = bench_table_new("sweep", BT_DATA, i_memset2 < n ? 12 : 11,
						   long_cols);
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
		double vs_memset2 = i_memset2 < n ? row.med[i_auto] / row.med[i_memset2] : 0;
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
			if (i_memset2 < n)
				bench_cell_num(data, vs_memset2, "%.3f");
		}
		bench_cell_num(spread, (double)row.rounds, "%.0f");
		bench_cell_str(wide, c[row.best].name);
		bench_cell_num(wide, vs_best, "%.2f");
		bench_cell_num(wide, vs_memset, "%.2f");
		if (i_memset2 < n)
			bench_cell_num(wide, vs_memset2, "%.2f");
		bench_cell_str(wide, pick);
	}
	bench_unmap(buf, top);
	bench_memset_other_libc_stop();

	bench_table_print(wide);
	bench_table_print(spread);
	printf("\n");
	bench_note("auto = cp_clear_pages(), auto_page = cp_clear_pages() one page per call; "
		   "auto/best = auto against the fastest kernel of the row; "
		   "medians over rounds, each contender warmed up, order shuffled per round.");
	if (i_memset2 < n)
		bench_note("memset = glibc %s (this process); %s = glibc %s's memset in a helper "
			   "process started by that libc's loader, timed the same way in the same "
			   "shuffled rounds (the memset of Debian 13).", bench_libc_version(),
			   memset2, memset2 + 7);
	else
		bench_note("memset = glibc %s; a second glibc's memset joins the sweep once "
			   "bench/trixie-libc.sh has fetched Debian 13's (make bench-libc).",
			   bench_libc_version());
	struct bench_table *tables[] = { wide, spread, data };
	int rc = bench_write_outputs(opts, "sweep", tables, 3);
	if (!rc && opts->plot_path)
		rc = sweep_plot(opts, data, c, n, nsizes);
	for (size_t i = 0; i < 3; i++)
		bench_table_free(tables[i]);
	return rc;
}
