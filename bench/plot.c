/* Plots through gnuplot (pngcairo): one line per series, log axes (GB/s spans 5 to 300). The data
 * goes inline as gnuplot datablocks, so no temporary files. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include "clearbench.h"
#include "testhooks.h"

#define MAX_SERIES 48

int bench_no_plot(const struct bench_opts *opts, const char *scenario)
{
	if (!opts->plot_path)
		return 0;
	fprintf(stderr, "clearbench: --plot: %s has no plot (sweep and batch have)\n", scenario);
	return 2;
}

int bench_plot(const struct bench_opts *opts, const char *title, const char *xlabel,
	       const struct bench_table *t, size_t xcol, size_t scol, size_t ycol)
{
	const char *series[MAX_SERIES];
	size_t nseries = 0;
	for (size_t r = 0; r < t->nrows; r++) {
		const char *s = bench_cell_at(t, r, scol)->text;
		size_t i = 0;
		while (i < nseries && strcmp(series[i], s))
			i++;
		if (i == nseries && nseries < MAX_SERIES)
			series[nseries++] = s;
	}
	FILE *g = popen("gnuplot", "w");
	if (!g) {
		fprintf(stderr, "clearbench: --plot: cannot run gnuplot\n");
		return 1;
	}
	for (size_t i = 0; i < nseries; i++) {
		fprintf(g, "$s%zu << EOD\n", i);
		for (size_t r = 0; r < t->nrows; r++) {
			const struct bench_cell *y = bench_cell_at(t, r, ycol);
			if (strcmp(bench_cell_at(t, r, scol)->text, series[i]) || !y->is_num)
				continue;
			fprintf(g, "%.17g %.6g\n", bench_cell_at(t, r, xcol)->value, y->value);
		}
		fprintf(g, "EOD\n");
	}
	fprintf(g, "set terminal pngcairo size 1200,720 noenhanced\n");
	fprintf(g, "set output '%s'\n", opts->plot_path);
	/* the title names the machine: a plot travels without its header */
	fprintf(g, "set title '%s on %s%s'\n", title, cp__state()->cpu.model,
		opts->emulated ? " (EMULATED: the figures mean nothing)" : "");
	fprintf(g, "set xlabel '%s'\nset ylabel 'GB/s (median)'\n", xlabel);
	fprintf(g, "set logscale x 2\nset logscale y\nset grid\nset key outside right\n");
	/* binary-prefixed tick labels: 4K ... 1G */
	fprintf(g, "set xtics ('4K' 4096, '64K' 65536, '1M' 1048576, '16M' 16777216, "
		   "'256M' 268435456, '1G' 1073741824)\n");
	fprintf(g, "plot ");
	for (size_t i = 0; i < nseries; i++)
		fprintf(g, "%s$s%zu using 1:2 with linespoints title '%s'", i ? ", " : "", i, series[i]);
	fprintf(g, "\n");
	int st = pclose(g);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "clearbench: --plot: gnuplot failed (is gnuplot-nox installed?)\n");
		return 1;
	}
	return 0;
}
