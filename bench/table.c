/* SPDX-License-Identifier: MIT */
/* Result tables: aligned text on stdout, CSV (one file per table) and JSON
 * files, and the copies the report keeps. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "header.h"
#include "json.h"
#include "opts.h"
#include "stats.h"
#include "table.h"

#define MAX_NOTES 64
static char *notes[MAX_NOTES];   /* whole lines, however long */
static size_t nnotes;
static struct bench_capture *capture;

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		fprintf(stderr, "clearbench: out of memory\n");
		exit(1);
	}
	return p;
}

struct bench_table *bench_table_new(const char *title, unsigned flags, size_t ncols,
				    const char *const *cols)
{
	struct bench_table *t = xrealloc(NULL, sizeof(*t));
	memset(t, 0, sizeof(*t));
	snprintf(t->title, sizeof(t->title), "%s", title);
	t->flags = flags;
	if (ncols > BENCH_MAX_COLS) {
		fprintf(stderr, "clearbench: internal error: %zu columns in '%s'\n", ncols, title);
		abort();
	}
	t->ncols = ncols;
	for (size_t i = 0; i < t->ncols; i++)
		snprintf(t->cols[i], sizeof(t->cols[i]), "%s", cols[i]);
	return t;
}

void bench_table_row(struct bench_table *t)
{
	if (t->nrows == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 16;
		t->cells = xrealloc(t->cells, t->cap * t->ncols * sizeof(*t->cells));
	}
	memset(&t->cells[t->nrows * t->ncols], 0, t->ncols * sizeof(*t->cells));
	t->nrows++;
	t->filled = 0;
}

static struct bench_cell *next_cell(struct bench_table *t)
{
	if (t->nrows == 0 || t->filled >= t->ncols) {
		fprintf(stderr, "clearbench: internal error: too many cells in '%s'\n", t->title);
		abort();
	}
	return &t->cells[(t->nrows - 1) * t->ncols + t->filled++];
}

void bench_cell_str(struct bench_table *t, const char *s)
{
	struct bench_cell *c = next_cell(t);
	snprintf(c->text, sizeof(c->text), "%s", s);
}

void bench_cell_num(struct bench_table *t, double v, const char *fmt)
{
	struct bench_cell *c = next_cell(t);
	if (isnan(v)) {
		snprintf(c->text, sizeof(c->text), "n/a");
		return;
	}
	snprintf(c->text, sizeof(c->text), fmt, v);
	c->value = v;
	c->is_num = 1;
}

void bench_cell_na(struct bench_table *t)
{
	bench_cell_num(t, NAN, "");
}

const struct bench_cell *bench_cell_at(const struct bench_table *t, size_t row, size_t col)
{
	return &t->cells[row * t->ncols + col];
}

/* Column 0 and columns [c0, c1) of the names, then of every row, right-aligned. */
static void print_cols(const struct bench_table *t, const size_t *w, size_t c0, size_t c1)
{
	for (size_t r = 0; r <= t->nrows; r++) {
		for (size_t c = 0; c < c1; c = c ? c + 1 : c0)
			printf("%s%*s", c ? "  " : "", (int)w[c],
			       r ? bench_cell_at(t, r - 1, c)->text : t->cols[c]);
		putchar('\n');
	}
}

void bench_table_print(const struct bench_table *t)
{
	size_t w[BENCH_MAX_COLS];
	for (size_t c = 0; c < t->ncols; c++) {
		w[c] = strlen(t->cols[c]);
		for (size_t r = 0; r < t->nrows; r++) {
			size_t l = strlen(bench_cell_at(t, r, c)->text);
			w[c] = l > w[c] ? l : w[c];
		}
	}
	printf("\n%s\n", t->title);   /* under 160 characters (its buffer) */
	/* wider than a terminal: in blocks of columns, each after the first one */
	size_t c0 = 1;
	do {
		size_t c1 = c0, width = w[0];
		while (c1 < t->ncols && (c1 == c0 || width + 2 + w[c1] <= BENCH_TABLE_WIDTH))
			width += 2 + w[c1++];
		if (c0 > 1)
			printf("\n%.140s (continued)\n", t->title);
		print_cols(t, w, c0, c1);
		c0 = c1;
	} while (c0 < t->ncols);
}

void bench_table_free(struct bench_table *t)
{
	if (t) {
		free(t->cells);
		free(t);
	}
}

static struct bench_table *bench_table_clone(const struct bench_table *t)
{
	struct bench_table *c = xrealloc(NULL, sizeof(*c));
	*c = *t;
	c->cap = t->nrows ? t->nrows : 1;
	c->cells = xrealloc(NULL, c->cap * t->ncols * sizeof(*c->cells));
	if (t->nrows)
		memcpy(c->cells, t->cells, t->nrows * t->ncols * sizeof(*c->cells));
	return c;
}

void bench_table_csv_suffix(struct bench_table *t, const char *suffix)
{
	snprintf(t->csv_suffix, sizeof(t->csv_suffix), "%s", suffix);
}

size_t bench_table_col(const struct bench_table *t, const char *name)
{
	size_t c = 0;
	while (c < t->ncols && strcmp(t->cols[c], name))
		c++;
	return c;
}

void bench_note(const char *fmt, ...)
{
	char *line;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&line, fmt, ap) < 0)
		abort();
	va_end(ap);
	bench_print_wrapped(stdout, "", 2, line);
	if (nnotes < MAX_NOTES)
		notes[nnotes++] = line;
	else
		free(line);
}

void bench_capture_start(struct bench_capture *cap)
{
	memset(cap, 0, sizeof(*cap));
	for (size_t i = 0; i < nnotes; i++)
		free(notes[i]);
	nnotes = 0;
	capture = cap;
}

void bench_capture_stop(void)
{
	capture = NULL;
}

void bench_capture_free(struct bench_capture *cap)
{
	for (size_t i = 0; i < cap->ntables; i++)
		bench_table_free(cap->tables[i]);
	for (size_t i = 0; i < cap->nnotes; i++)
		free(cap->notes[i]);
	memset(cap, 0, sizeof(*cap));
}

/* Numbers in CSV and JSON: full precision, no padding. */
static void put_num(FILE *f, const struct bench_cell *c)
{
	if (c->value == (double)(long long)c->value && fabs(c->value) < 1e15)
		fprintf(f, "%lld", (long long)c->value);
	else
		fprintf(f, "%.6g", c->value);
}

void bench_put_quoted(FILE *f, const char *s, char quote)
{
	fputc(quote, f);
	for (; *s; s++) {
		if (*s == quote)
			fputc(quote, f);
		fputc(*s, f);
	}
	fputc(quote, f);
}

static void put_csv_str(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n"))
		fputs(s, f);
	else
		bench_put_quoted(f, s, '"');
}

static void write_csv(FILE *f, const struct bench_table *t)
{
	for (size_t c = 0; c < t->ncols; c++) {
		fputs(c ? "," : "", f);
		put_csv_str(f, t->cols[c]);
	}
	fputc('\n', f);
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t c = 0; c < t->ncols; c++) {
			const struct bench_cell *cell = bench_cell_at(t, r, c);
			fputs(c ? "," : "", f);
			if (cell->is_num)
				put_num(f, cell);
			else if (strcmp(cell->text, "n/a"))
				put_csv_str(f, cell->text);
		}
		fputc('\n', f);
	}
}

const char *bench_csv_path(const char *path, const struct bench_table *t, size_t i, char *buf,
			   size_t len)
{
	/* --csv NAME.csv or NAME: the first data table in NAME.csv, the others in
	 * NAME-<suffix>.csv, so every file holds one table */
	size_t l = strlen(path);
	int ext = l >= 4 && !strcmp(path + l - 4, ".csv");
	if (i == 0)
		snprintf(buf, len, "%.*s.csv", (int)(ext ? l - 4 : l), path);
	else if (t && t->csv_suffix[0])
		snprintf(buf, len, "%.*s-%s.csv", (int)(ext ? l - 4 : l), path, t->csv_suffix);
	else
		snprintf(buf, len, "%.*s-%zu.csv", (int)(ext ? l - 4 : l), path, i + 1);
	return buf;
}


static const struct bench_opts *json_opts;

static void write_json(FILE *f, const char *scenario, struct bench_table *const *tables, size_t n)
{
	fprintf(f, "{\n  \"scenario\": ");
	bench_json_str(f, scenario);
	fprintf(f, ",\n  \"host\": ");
	bench_header_json(f, json_opts);
	fprintf(f, ",\n  \"notes\": [");
	for (size_t i = 0; i < nnotes; i++) {
		fputs(i ? ", " : "", f);
		bench_json_str(f, notes[i]);
	}
	fprintf(f, "],\n  \"tables\": [");
	int first = 1;
	for (size_t i = 0; i < n; i++) {
		const struct bench_table *t = tables[i];
		if (!(t->flags & BT_DATA))
			continue;
		fprintf(f, "%s\n    {\"title\": ", first ? "" : ",");
		first = 0;
		bench_json_str(f, t->title);
		fprintf(f, ", \"name\": ");
		bench_json_str(f, t->csv_suffix);
		fprintf(f, ", \"rows\": [");
		for (size_t r = 0; r < t->nrows; r++) {
			fprintf(f, "%s\n      {", r ? "," : "");
			for (size_t c = 0; c < t->ncols; c++) {
				const struct bench_cell *cell = bench_cell_at(t, r, c);
				fputs(c ? ", " : "", f);
				bench_json_str(f, t->cols[c]);
				fputs(": ", f);
				if (cell->is_num)
					put_num(f, cell);
				else if (!strcmp(cell->text, "n/a"))
					fputs("null", f);
				else
					bench_json_str(f, cell->text);
			}
			fputc('}', f);
		}
		fprintf(f, "\n    ]}");
	}
	fprintf(f, "\n  ]\n}\n");
}

static FILE *open_out(const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "clearbench: cannot write %s: %s\n", path, strerror(errno));
	return f;
}

static int close_out(FILE *f, const char *path)
{
	if (fclose(f)) {
		fprintf(stderr, "clearbench: error writing %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

int bench_write_outputs(const struct bench_opts *opts, const char *scenario,
			struct bench_table *const *tables, size_t ntables)
{
	int rc = 0, unprinted = 0;
	char where[8192] = "";   /* the files written, for the last line */
	size_t wl = 0;
	/* every scenario ends here: the header warned, the closing note repeats it */
	if (opts->emulated)
		bench_note("emulated run: figures measure qemu, not the CPU.");
	json_opts = opts;
	for (size_t t = 0; t < ntables; t++)
		unprinted |= (tables[t]->flags & (BT_DATA | BT_TEXT)) == BT_DATA;
	if (opts->csv_path) {
		size_t i = 0;
		for (size_t t = 0; t < ntables; t++) {
			char path[4096];
			FILE *f;
			if (!(tables[t]->flags & BT_DATA))
				continue;
			bench_csv_path(opts->csv_path, tables[t], i++, path, sizeof(path));
			if (wl < sizeof(where))
				wl += (size_t)snprintf(where + wl, sizeof(where) - wl, "%s%s",
						       wl ? ", " : "", path);
			if (!(f = open_out(path))) {
				rc = 1;
				continue;
			}
			write_csv(f, tables[t]);
			rc |= close_out(f, path);
		}
	}
	if (opts->json_path) {
		FILE *f = open_out(opts->json_path);
		if (f) {
			write_json(f, scenario, tables, ntables);
			rc |= close_out(f, opts->json_path);
		} else {
			rc = 1;
		}
		if (wl < sizeof(where))
			snprintf(where + wl, sizeof(where) - wl, "%s%s", wl ? ", " : "",
				 opts->json_path);
	}
	/* where the tables went: the terminal shows the summary, the files every row */
	if (where[0])
		bench_print_wrapped(stdout, "tables written: ", 2, where);
	else if (unprinted)
		printf("every row in full (min, max, rounds, each ratio): --csv FILE, --json FILE\n");
	if (capture) {
		for (size_t t = 0; t < ntables && capture->ntables < 16; t++)
			capture->tables[capture->ntables++] = bench_table_clone(tables[t]);
		for (size_t i = 0; i < nnotes && capture->nnotes < 64; i++)
			capture->notes[capture->nnotes++] = strdup(notes[i]);
	}
	return rc;
}
