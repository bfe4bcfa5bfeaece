/* SPDX-License-Identifier: MIT */
/* Plots through gnuplot, pngcairo (plot.c). */
#ifndef CLEARBENCH_PLOT_H
#define CLEARBENCH_PLOT_H

#include <stddef.h>
#include "opts.h"
#include "table.h"

#define BENCH_PLOT_MAX_SERIES 48
struct bench_series {
	char name[48];
	int bold;                  /* a line the reader looks for: thick */
	int dashed;                /* non-temporal kernels, published figures */
	size_t n;
	double x[BENCH_MAX_SIZES], y[BENCH_MAX_SIZES];
	double lo[BENCH_MAX_SIZES], hi[BENCH_MAX_SIZES];  /* min-max bars when has_bars */
	int has_bars;
};
struct bench_plot_spec {
	const char *path, *title, *xlabel, *ylabel;
	int x_bytes;               /* x is bytes: log2 axis, 4K..1G ticks, one at the last x */
	int logx, logy;
	double hline;              /* a reference line at this y (speed-up 1.0); 0 = none */
	size_t nmarks;             /* vertical marks (where auto switches kernels) */
	double mark_x[16];
	char mark_label[16][48];
	size_t nseries;
	struct bench_series s[BENCH_PLOT_MAX_SERIES];
};
void bench_plot_spec_init(struct bench_plot_spec *p, const char *path, const char *title,
			  const char *xlabel, const char *ylabel);
/* Lines (linespoints, min-max bars where given); one x value: a bar chart. 0 or 1. */
int bench_plot_lines(const struct bench_plot_spec *p);
/* Clustered bars: ncat categories (x), nser series; v[ser * ncat + cat], NAN = none. */
int bench_plot_bars(const char *path, const char *title, const char *ylabel,
		    size_t ncat, const char *const *cats, size_t nser, const char *const *sers,
		    const double *v, double hline);
/* The title suffix naming the machine (a plot travels without its header). */
const char *bench_plot_host(void);
/* A second title line instead of this host's name (compare: the two hosts). */
void bench_plot_subtitle(const char *s);
/* Series from a table: rows with the series name in scol, x in xcol, y in ycol,
 * min/max in locol/hicol (or (size_t)-1). Returns the series index or -1. */
int bench_series_add(struct bench_plot_spec *p, const struct bench_table *t, size_t scol,
		     const char *name, size_t xcol, size_t ycol, size_t locol, size_t hicol);

/* The rows of t whose column col reads value (one kind of target of a data
 * table with a target column), for a plot of them; the caller frees it. */
struct bench_table *bench_plot_rows_of(const struct bench_table *t, const char *col,
				       const char *value);
/* For scenarios without a plot: with --plot, one line on stderr and 2; else 0. */
int bench_no_plot(const struct bench_opts *opts, const char *scenario);

#endif
