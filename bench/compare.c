/* SPDX-License-Identifier: MIT */
/*
 * compare A.json B.json [--plot FILE.png]: two results of one scenario (two
 * runs, or two hosts) side by side, row by row, with the ratio B/A of each
 * figure; the plot shows the ratios. Bad or mismatched input: one line, 2.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "json.h"
#include "opts.h"
#include "plot.h"
#include "scenarios.h"
#include "table.h"

/* Which columns name a row and which hold its figures, per table; a table
 * not listed: its text columns name the row, its numbers are the figures.
 * KEY=VALUE: a row without that column has VALUE there (sweeps from before
 * the target column measured hot only). */
static const struct { const char *title, *keys, *values; } specs[] = {
	{ "sweep", "target=hot,extent,contender", "median_gbs" },
	{ "batch: GB/s (median", "kernel,batch", "median_gbs" },
	{ "walk", "contender", "oneshot_gbs,forward_gbs,reverse_gbs" },
	{ "latency: clearing", "contender,mode", "mean_us,p99_us" },
	{ "latency: distribution", "contender,mode,percentile", "us" },
	{ "fault", "phase,order", "stime_ms,utime_ms,total_ms" },
	{ "parallel: ", "extent,threads", "GB/s" },
	{ "parallel threshold", "extent", "1 thread,split" },
	{ "populate: every cell", "target,mapping,size,contender,threads", "gbs" },
	{ "populate summary", "target,map,size", "res_par,GB/s,memset 1t" },
};

static int bad(const char *file, const char *why)
{
	fprintf(stderr, "clearbench: compare: %s: %s\n", file, why);
	return 2;
}

/* Is name in the comma-separated list (an item's "=VALUE" aside)? */
static int in_list(const char *list, const char *name)
{
	size_t l = strlen(name);
	for (const char *p = list; p && *p;) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		const char *eq = memchr(p, '=', n);
		if (eq)
			n = (size_t)(eq - p);
		if (n == l && !strncmp(p, name, l))
			return 1;
		p = e ? e + 1 : NULL;
	}
	return 0;
}

static void key_part(char *buf, size_t len, const struct json *v, const char *dflt)
{
	size_t l = strlen(buf);
	const char *sep = l ? " / " : "";
	if (!v)
		snprintf(buf + l, len - l, "%s%s", sep, dflt);
	else if (v->type == J_STRING)
		snprintf(buf + l, len - l, "%s%s", sep, v->str);
	else
		snprintf(buf + l, len - l, "%s%g", sep, v->num);
}

/* The row's key: its key columns' values joined by " / ", in the order of
 * keys (every text column, in the row's order, without keys). */
static void row_key(const struct json *row, const char *keys, char *buf, size_t len)
{
	buf[0] = '\0';
	if (!keys) {
		for (size_t i = 0; i < row->n; i++)
			if (row->items[i].type == J_STRING)
				key_part(buf, len, &row->items[i], "");
		return;
	}
	for (const char *p = keys; p && *p;) {
		const char *e = strchr(p, ','), *end = e ? e : p + strlen(p);
		const char *eq = memchr(p, '=', (size_t)(end - p));
		char name[64], dflt[64] = "";
		snprintf(name, sizeof(name), "%.*s", (int)((eq ? eq : end) - p), p);
		if (eq)
			snprintf(dflt, sizeof(dflt), "%.*s", (int)(end - eq - 1), eq + 1);
		const struct json *v = json_get(row, name);
		if (v || eq)
			key_part(buf, len, v, dflt);
		p = e ? e + 1 : NULL;
	}
}

static const struct json *find_row(const struct json *rows, const char *keys, const char *key)
{
	char k[256];
	for (size_t i = 0; rows && i < rows->n; i++) {
		row_key(&rows->items[i], keys, k, sizeof(k));
		if (!strcmp(k, key))
			return &rows->items[i];
	}
	return NULL;
}

static const struct json *table_named(const struct json *tables, const char *title)
{
	for (size_t i = 0; tables && i < tables->n; i++) {
		const char *t = json_str(json_get(&tables->items[i], "title"));
		if (t && !strcmp(t, title))
			return &tables->items[i];
	}
	return NULL;
}

static double num_of(const struct json *row, const char *col)
{
	const struct json *v = json_get(row, col);
	return v && v->type == J_NUMBER ? v->num : NAN;
}

static const char *host_line(const struct json *doc, char *buf, size_t len)
{
	const struct json *h = json_get(doc, "host");
	const char *id = json_str(json_get(h, "host_id")), *model = json_str(json_get(h, "model"));
	snprintf(buf, len, "%s%s%s%s", model ? model : "unknown host", id ? " (" : "",
		 id ? id : "", id ? ")" : "");
	return buf;
}

static struct json *load(const char *path, int *rc)
{
	char err[200];
	struct json *doc = json_read_file(path, err, sizeof(err));
	if (!doc) {
		*rc = bad(path, err);
		return NULL;
	}
	const struct json *t = json_get(doc, "tables");
	if (!json_str(json_get(doc, "scenario")) || !t || t->type != J_ARRAY) {
		*rc = bad(path, "not a clearbench result (no scenario or tables)");
		json_free(doc);
		return NULL;
	}
	return doc;
}

/* A plot line per contender (or kernel), per kind of target beyond hot. */
static const char *series_of(const struct json *row, const char *col)
{
	static char buf[96];
	const struct json *who = json_get(row, "contender");
	const char *target = json_str(json_get(row, "target"));
	if (!who)
		who = json_get(row, "kernel");
	snprintf(buf, sizeof(buf), "%s%s%s", json_str(who) ? json_str(who) : col,
		 target && strcmp(target, "hot") ? " " : "", target && strcmp(target, "hot") ?
		 target : "");
	return buf;
}

/* The plot: ratio B/A of the first figure of the first table; against bytes
 * when the rows have them (one line per other key), else as bars. */
static int compare_plot(const char *path, const struct bench_table *t, const char *scenario)
{
	static struct bench_plot_spec p;
	char title[256];
	snprintf(title, sizeof(title), "clearbench compare (%s): B/A of %s per row", scenario,
		 t->nrows ? bench_cell_at(t, 0, 1)->text : "");
	size_t xcol = bench_table_col(t, "x");
	int have_x = 0;
	for (size_t r = 0; r < t->nrows; r++)
		have_x |= bench_cell_at(t, r, xcol)->is_num;
	if (have_x) {
		bench_plot_spec_init(&p, path,
				     title,
				     "extent", "B / A");
		p.x_bytes = 1;
		p.hline = 1.0;
		size_t scol = bench_table_col(t, "series");
		for (size_t r = 0; r < t->nrows; r++) {
			const char *name = bench_cell_at(t, r, scol)->text;
			int seen = 0;
			for (size_t i = 0; i < p.nseries; i++)
				seen |= !strcmp(p.s[i].name, name);
			if (!seen) {
				int s = bench_series_add(&p, t, scol, name, xcol, 4, (size_t)-1, (size_t)-1);
				if (s >= 0)
					p.s[s].bold = !strcmp(name, "auto") || !strncmp(name, "auto ", 5) ||
						      !strncmp(name, "memset", 6);
			}
		}
		return bench_plot_lines(&p);
	}
	size_t n = t->nrows < 64 ? t->nrows : 64;
	const char *cats[64];
	double v[64];
	static const char *const sers[] = { "B / A" };
	for (size_t r = 0; r < n; r++) {
		cats[r] = bench_cell_at(t, r, 0)->text;
		v[r] = bench_cell_at(t, r, 4)->value;
	}
	return bench_plot_bars(path, title, "B / A", n, cats, 1, sers, v, 1.0);
}

int bench_compare(const struct bench_opts *opts)
{
	int rc = 0;
	const char *fa = opts->args[0], *fb = opts->args[1];
	struct json *a = load(fa, &rc), *b = a ? load(fb, &rc) : NULL;
	if (!a || !b) {
		json_free(a);
		return rc;
	}
	const char *sa = json_str(json_get(a, "scenario")), *sb = json_str(json_get(b, "scenario"));
	if (strcmp(sa, sb)) {
		char why[128];
		snprintf(why, sizeof(why), "scenario %s, but %s is %s: nothing to compare", sb, fa, sa);
		json_free(a);
		json_free(b);
		return bad(fb, why);
	}
	char ha[160], hb[160], scenario[64];
	snprintf(scenario, sizeof(scenario), "%s", sa);
	printf("clearbench compare: %s\n  A = %s: %s\n  B = %s: %s\n", sa, fa,
	       host_line(a, ha, sizeof(ha)), fb, host_line(b, hb, sizeof(hb)));
	const struct json *ta = json_get(a, "tables"), *tb = json_get(b, "tables");
	static const char *const cols[] = { "row", "figure", "A", "B", "B/A", "x", "series" };
	struct bench_table *first = NULL;
	size_t matched = 0;
	for (size_t i = 0; i < ta->n; i++) {
		const struct json *t1 = &ta->items[i];
		const char *title = json_str(json_get(t1, "title"));
		const struct json *t2 = title ? table_named(tb, title) : NULL;
		const struct json *r1 = json_get(t1, "rows"), *r2 = json_get(t2, "rows");
		if (!t2 || !r1 || !r2 || r1->type != J_ARRAY || r2->type != J_ARRAY)
			continue;
		const char *keys = NULL, *values = NULL;
		for (size_t s = 0; s < sizeof(specs) / sizeof(specs[0]); s++)
			if (!strncmp(title, specs[s].title, strlen(specs[s].title))) {
				keys = specs[s].keys;
				values = specs[s].values;
				break;
			}
		char ttl[200];
		snprintf(ttl, sizeof(ttl), "%s: A against B", title);
		struct bench_table *t = bench_table_new(ttl, BT_TEXT, 5, cols);
		struct bench_table *plot = bench_table_new(ttl, BT_DATA, 7, cols);
		double log_sum = 0;
		size_t nratio = 0, only_a = 0;
		for (size_t r = 0; r < r1->n; r++) {
			const struct json *row = &r1->items[r];
			char key[256];
			row_key(row, keys, key, sizeof(key));
			const struct json *other = find_row(r2, keys, key);
			if (!other) {
				only_a++;
				continue;
			}
			for (size_t c = 0; c < row->n; c++) {
				const char *col = row->keys[c];
				if (row->items[c].type != J_NUMBER || (values ? !in_list(values, col)
							       : keys ? in_list(keys, col) : 0))
					continue;
				double va = row->items[c].num, vb = num_of(other, col);
				double ratio = va != 0 ? vb / va : NAN;
				struct bench_table *both[] = { t, plot };
				for (size_t k = 0; k < 2; k++) {
					bench_table_row(both[k]);
					bench_cell_str(both[k], key);
					bench_cell_str(both[k], col);
					bench_cell_num(both[k], va, "%.2f");
					bench_cell_num(both[k], vb, "%.2f");
					bench_cell_num(both[k], ratio, "%.2f");
				}
				/* the plot's x: bytes where the rows have them */
				double x = num_of(row, "bytes");
				if (isnan(x))
					x = num_of(row, "batch_bytes");
				bench_cell_num(plot, x, "%g");
				bench_cell_str(plot, series_of(row, col));
				if (ratio > 0) {
					log_sum += log(ratio);
					nratio++;
				}
			}
		}
		if (t->nrows) {
			matched++;
			bench_table_print(t);
			printf("geometric mean of B/A: %.2f over %zu figures%s\n",
			       nratio ? exp(log_sum / (double)nratio) : NAN, nratio,
			       only_a ? " (rows only in A left out)" : "");
		}
		bench_table_free(t);
		if (!first && plot->nrows)
			first = plot;
		else
			bench_table_free(plot);
	}
	json_free(a);
	json_free(b);
	if (!matched) {
		bench_table_free(first);
		return bad(fb, "no table rows in common with A: nothing to compare");
	}
	char sub[400];
	snprintf(sub, sizeof(sub), "A = %s, B = %s", ha, hb);
	bench_plot_subtitle(sub);
	if (opts->plot_path && first)
		rc = compare_plot(opts->plot_path, first, scenario);
	bench_table_free(first);
	return rc;
}
