/* SPDX-License-Identifier: MIT */
/*
 * Plots through gnuplot (pngcairo): lines (log axes, min-max bars, bold lines
 * for what the reader looks for, dashed for non-temporal or published series,
 * marks where auto switches kernels) and clustered bars. The data goes inline
 * as gnuplot datablocks, so no temporary files.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include "header.h"
#include "introspect.h"
#include "opts.h"
#include "plot.h"
#include "stats.h"
#include "table.h"

/* Distinct colours; with 15 point types beside them no two of the first 240
 * series look alike. */
static const char *const colours[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
	"#7f7f7f", "#bcbd22", "#000000", "#aec7e8", "#98df8a", "#ff9896", "#c5b0d5", "#6b3d00",
};
#define NCOLOURS (sizeof(colours) / sizeof(colours[0]))

int bench_no_plot(const struct bench_opts *opts, const char *scenario)
{
	if (!opts->plot_path)
		return 0;
	fprintf(stderr, "clearbench: --plot: %s has no plot\n", scenario);
	return 2;
}

static const char *subtitle;

void bench_plot_subtitle(const char *s)
{
	subtitle = s;
}

const char *bench_plot_host(void)
{
	static char buf[160];
	struct bench_host h;
	bench_host_get(&h);
	snprintf(buf, sizeof(buf), "%s (%s)%s", h.model, h.host_id,
		 bench_emulated() ? " - EMULATED: the figures are qemu's" : "");
	return buf;
}

/* A gnuplot single-quoted string: ' doubled. */
static void gp_str(FILE *g, const char *s)
{
	bench_put_quoted(g, s, '\'');
}

static FILE *gp_open(const char *path, const char *title)
{
	FILE *g = popen("gnuplot", "w");
	if (!g) {
		fprintf(stderr, "clearbench: plot: cannot run gnuplot\n");
		return NULL;
	}
	fprintf(g, "set terminal pngcairo size 1200,720 noenhanced font ',11'\nset output ");
	gp_str(g, path);
	fprintf(g, "\nset title ");
	char t[400];
	if (subtitle)
		snprintf(t, sizeof(t), "%s\\n%s", title, subtitle);
	else
		snprintf(t, sizeof(t), "%s\\non %s", title, bench_plot_host());
	fprintf(g, "\"%s\"\n", t);   /* double quotes: the \n breaks the line */
	fprintf(g, "set grid\nset key outside right top\nset datafile missing '?'\n");
	return g;
}

static int gp_close(FILE *g, const char *path)
{
	int st = pclose(g);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "clearbench: plot %s: gnuplot failed (is gnuplot-nox installed?)\n",
			path);
		return 1;
	}
	return 0;
}

void bench_plot_spec_init(struct bench_plot_spec *p, const char *path, const char *title,
			  const char *xlabel, const char *ylabel)
{
	memset(p, 0, sizeof(*p));
	p->path = path;
	p->title = title;
	p->xlabel = xlabel;
	p->ylabel = ylabel;
}

int bench_series_add(struct bench_plot_spec *p, const struct bench_table *t, size_t scol,
		     const char *name, size_t xcol, size_t ycol, size_t locol, size_t hicol)
{
	if (p->nseries == BENCH_PLOT_MAX_SERIES)
		return -1;
	struct bench_series *s = &p->s[p->nseries];
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->has_bars = locol < t->ncols && hicol < t->ncols;
	for (size_t r = 0; r < t->nrows && s->n < BENCH_MAX_SIZES; r++) {
		if (scol < t->ncols && strcmp(bench_cell_at(t, r, scol)->text, name))
			continue;
		const struct bench_cell *x = bench_cell_at(t, r, xcol), *y = bench_cell_at(t, r, ycol);
		if (!x->is_num || !y->is_num)
			continue;
		s->x[s->n] = x->value;
		s->y[s->n] = y->value;
		if (s->has_bars) {
			s->lo[s->n] = bench_cell_at(t, r, locol)->value;
			s->hi[s->n] = bench_cell_at(t, r, hicol)->value;
		}
		s->n++;
	}
	if (!s->n)
		return -1;
	return (int)p->nseries++;
}

static const char *size_label(double bytes, char *buf, size_t len)
{
	return bench_size_str((size_t)bytes, buf, len);
}

/* Ticks on a log axis fitted to [lo, hi]: 1-2-5 per decade, or every step of
 * 1..9 when the range is under a decade. */
static void log_ticks(FILE *g, const char *axis, double lo, double hi)
{
	static const double coarse[] = { 1, 2, 5 }, fine[] = { 1, 1.5, 2, 3, 4, 5, 6, 7, 8, 9 };
	int narrow = hi / lo < 10;
	const double *m = narrow ? fine : coarse;
	size_t nm = narrow ? 10 : 3, n = 0;
	fprintf(g, "set %stics (", axis);
	for (double dec = pow(10, floor(log10(lo))); dec <= hi; dec *= 10)
		for (size_t i = 0; i < nm; i++) {
			double v = m[i] * dec;
			if (v >= lo && v <= hi)
				fprintf(g, "%s'%g' %g", n++ ? ", " : "", v, v);
		}
	fprintf(g, ")\n");
}

static int plot_single_x(const struct bench_plot_spec *p)
{
	/* one extent only: a bar per series, not an empty line plot */
	FILE *g = gp_open(p->path, p->title);
	if (!g)
		return 1;
	char x[16];
	fprintf(g, "$bars << EOD\n");
	int bars = 0;
	for (size_t i = 0; i < p->nseries; i++) {
		const struct bench_series *s = &p->s[i];
		fprintf(g, "%zu \"%s\" %.6g %d %.6g %.6g\n", i, s->name, s->y[0],
			(int)strtol(colours[i % NCOLOURS] + 1, NULL, 16),
			s->has_bars ? s->lo[0] : s->y[0], s->has_bars ? s->hi[0] : s->y[0]);
		bars |= s->has_bars;
	}
	fprintf(g, "EOD\nset style fill solid 0.8\nset boxwidth 0.7\nset key off\n");
	fprintf(g, "set xrange [-0.6:%zu.6]\n", p->nseries - 1);
	fprintf(g, "set xlabel '%s %s'\nset ylabel ", p->xlabel,
		p->x_bytes ? size_label(p->s[0].x[0], x, sizeof(x)) : "");
	gp_str(g, p->ylabel);
	fprintf(g, "\nset yrange [0:*]\nset xtics rotate by -45\n");
	fprintf(g, "plot $bars using 1:3:4:xtic(2) with boxes lc rgb variable notitle, "
		   "$bars using 1:3:(sprintf('%%.1f', $3)) with labels offset 0,0.7 notitle%s\n",
		bars ? ", $bars using 1:3:5:6 with yerrorbars lc rgb 'black' pt 0 notitle" : "");
	return gp_close(g, p->path);
}

int bench_plot_lines(const struct bench_plot_spec *p)
{
	double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
	size_t nx = 0;
	double firstx = NAN;
	for (size_t i = 0; i < p->nseries; i++)
		for (size_t j = 0; j < p->s[i].n; j++) {
			const struct bench_series *s = &p->s[i];
			/* fitted to the medians: a preempted round's bar may leave the frame */
			double lo = s->y[j], hi = s->y[j];
			if (!(isnan(firstx) || s->x[j] == firstx))
				nx = 2;
			if (isnan(firstx))
				firstx = s->x[j];
			xmin = fmin(xmin, s->x[j]);
			xmax = fmax(xmax, s->x[j]);
			if (lo > 0 || !p->logy)
				ymin = fmin(ymin, lo);
			ymax = fmax(ymax, hi);
		}
	if (!p->nseries || isinf(xmin)) {
		fprintf(stderr, "clearbench: plot %s: nothing to plot\n", p->path);
		return 1;
	}
	if (nx < 2)
		return plot_single_x(p);
	if (p->hline > 0) {
		ymin = fmin(ymin, p->hline);
		ymax = fmax(ymax, p->hline);
	}
	FILE *g = gp_open(p->path, p->title);
	if (!g)
		return 1;
	for (size_t i = 0; i < p->nseries; i++) {
		const struct bench_series *s = &p->s[i];
		fprintf(g, "$s%zu << EOD\n", i);
		for (size_t j = 0; j < s->n; j++)
			fprintf(g, "%.17g %.6g %.6g %.6g\n", s->x[j], s->y[j],
				s->has_bars ? s->lo[j] : s->y[j], s->has_bars ? s->hi[j] : s->y[j]);
		fprintf(g, "EOD\n");
	}
	fprintf(g, "set xlabel ");
	gp_str(g, p->xlabel);
	fprintf(g, "\nset ylabel ");
	gp_str(g, p->ylabel);
	fputc('\n', g);
	if (p->x_bytes || p->logx) {
		fprintf(g, "set logscale x 2\nset xrange [%.17g:%.17g]\n", xmin / 1.25, xmax * 1.25);
		if (p->x_bytes) {
			/* a tick every factor 4 from the first extent, and one at the last */
			char lab[16];
			fprintf(g, "set xtics (");
			double v = xmin;
			for (; v < xmax; v *= 4)
				fprintf(g, "'%s' %.17g, ", size_label(v, lab, sizeof(lab)), v);
			fprintf(g, "'%s' %.17g)\n", size_label(xmax, lab, sizeof(lab)), xmax);
		}
	} else {
		fprintf(g, "set xrange [%g:%g]\nset xtics 1\n", xmin - 0.5, xmax + 0.5);
	}
	if (p->logy && ymin > 0) {
		double lo = ymin / 1.15, hi = ymax * 1.15;
		fprintf(g, "set logscale y\nset yrange [%g:%g]\n", lo, hi);
		log_ticks(g, "y", lo, hi);
	} else {
		double pad = (ymax - ymin) * 0.08 + 1e-9;
		fprintf(g, "set yrange [%g:%g]\n", ymin - pad > 0 || ymin < 0 ? ymin - pad : 0,
			ymax + pad);
	}
	for (size_t m = 0; m < p->nmarks; m++) {
		fprintf(g, "set arrow from %.17g, graph 0 to %.17g, graph 1 nohead dt 3 lw 1.5 "
			   "lc rgb '#555555'\n", p->mark_x[m], p->mark_x[m]);
		fprintf(g, "set label ");
		gp_str(g, p->mark_label[m]);
		fprintf(g, " at %.17g, graph 0.02 rotate by 90 left offset -0.8,0 tc rgb '#555555' "
			   "font ',9'\n", p->mark_x[m]);
	}
	fprintf(g, "plot ");
	for (size_t i = 0; i < p->nseries; i++) {
		const struct bench_series *s = &p->s[i];
		const char *c = colours[i % NCOLOURS];
		int pt = (int)(i % 15) + 1;
		double lw = s->bold ? 3.5 : 1.2;
		if (s->has_bars)
			fprintf(g, "%s$s%zu using 1:2:3:4 with yerrorbars lc rgb '%s' pt %d ps 0.6 "
				   "lw 1 notitle, ", i ? ", " : "", i, c, pt);
		else if (i)
			fprintf(g, ", ");
		fprintf(g, "$s%zu using 1:2 with linespoints lc rgb '%s' lw %.1f dt %d pt %d "
			   "ps %.1f title ", i, c, lw, s->dashed ? 2 : 1, pt, s->bold ? 1.4 : 0.9);
		gp_str(g, s->name);
	}
	if (p->hline > 0)
		fprintf(g, ", %g with lines lc rgb 'black' lw 2 dt 4 title '%.1f'", p->hline, p->hline);
	fprintf(g, "\n");
	return gp_close(g, p->path);
}

int bench_plot_bars(const char *path, const char *title, const char *ylabel,
		    size_t ncat, const char *const *cats, size_t nser, const char *const *sers,
		    const double *v, double hline)
{
	FILE *g = gp_open(path, title);
	if (!g)
		return 1;
	fprintf(g, "$d << EOD\n\"category\"");
	for (size_t s = 0; s < nser; s++) {
		fputc(' ', g);
		fputc('"', g);
		fputs(sers[s], g);
		fputc('"', g);
	}
	fputc('\n', g);
	for (size_t c = 0; c < ncat; c++) {
		fprintf(g, "\"%s\"", cats[c]);
		for (size_t s = 0; s < nser; s++) {
			double x = v[s * ncat + c];
			if (isnan(x))
				fprintf(g, " ?");
			else
				fprintf(g, " %.6g", x);
		}
		fputc('\n', g);
	}
	fprintf(g, "EOD\nset style data histograms\nset style histogram clustered gap 1\n"
		   "set style fill solid 0.85 border -1\nset boxwidth 0.9\nset yrange [0:*]\n"
		   "set xtics rotate by -30 nomirror\nset ylabel ");
	gp_str(g, ylabel);
	fputc('\n', g);
	if (hline > 0)
		fprintf(g, "set arrow from graph 0, first %g to graph 1, first %g nohead lw 2 "
			   "dt 4 lc rgb 'black'\n", hline, hline);
	fprintf(g, "plot ");
	for (size_t s = 0; s < nser; s++)
		fprintf(g, "%s$d using %zu:xtic(1) lc rgb '%s' title columnheader(%zu)", s ? ", " : "",
			s + 2, colours[s % NCOLOURS], s + 2);
	fputc('\n', g);
	return gp_close(g, path);
}

struct bench_table *bench_plot_rows_of(const struct bench_table *t, const char *col,
				       const char *value)
{
	const char *cols[BENCH_MAX_COLS];
	for (size_t c = 0; c < t->ncols; c++)
		cols[c] = t->cols[c];
	struct bench_table *o = bench_table_new(t->title, 0, t->ncols, cols);
	size_t tc = bench_table_col(t, col);
	for (size_t r = 0; r < t->nrows; r++) {
		if (strcmp(bench_cell_at(t, r, tc)->text, value))
			continue;
		bench_table_row(o);
		memcpy(&o->cells[(o->nrows - 1) * o->ncols], bench_cell_at(t, r, 0),
		       t->ncols * sizeof(*o->cells));
		o->filled = o->ncols;
	}
	return o;
}
