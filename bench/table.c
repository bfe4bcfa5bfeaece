/* Result tables: aligned text on stdout, CSV and JSON files. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "clearbench.h"

#define MAX_NOTES 32
static char notes[MAX_NOTES][200];
static size_t nnotes;

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
	t->ncols = ncols < 24 ? ncols : 24;
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

void bench_table_print(const struct bench_table *t)
{
	size_t w[24];
	for (size_t c = 0; c < t->ncols; c++) {
		w[c] = strlen(t->cols[c]);
		for (size_t r = 0; r < t->nrows; r++) {
			size_t l = strlen(bench_cell_at(t, r, c)->text);
			w[c] = l > w[c] ? l : w[c];
		}
	}
	printf("\n%s\n", t->title);
	for (size_t c = 0; c < t->ncols; c++)
		printf("%s%*s", c ? "  " : "", (int)w[c], t->cols[c]);
	putchar('\n');
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t c = 0; c < t->ncols; c++)
			printf("%s%*s", c ? "  " : "", (int)w[c], bench_cell_at(t, r, c)->text);
		putchar('\n');
	}
}

void bench_table_free(struct bench_table *t)
{
	if (t) {
		free(t->cells);
		free(t);
	}
}

void bench_note(const char *fmt, ...)
{
	char line[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	printf("%s\n", line);
	if (nnotes < MAX_NOTES)
		memcpy(notes[nnotes++], line, sizeof(line));
}

/* Numbers in CSV and JSON: full precision, no padding. */
static void put_num(FILE *f, const struct bench_cell *c)
{
	if (c->value == (double)(long long)c->value && fabs(c->value) < 1e15)
		fprintf(f, "%lld", (long long)c->value);
	else
		fprintf(f, "%.6g", c->value);
}

static void put_csv_str(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void write_csv(FILE *f, struct bench_table *const *tables, size_t n)
{
	int first = 1;
	for (size_t i = 0; i < n; i++) {
		const struct bench_table *t = tables[i];
		if (!(t->flags & BT_DATA))
			continue;
		if (!first)
			fprintf(f, "\n# %s\n", t->title);   /* further tables: a blank line and a title */
		first = 0;
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
}

void bench_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static void write_json(FILE *f, const char *scenario, struct bench_table *const *tables, size_t n)
{
	fprintf(f, "{\n  \"scenario\": ");
	bench_json_str(f, scenario);
	fprintf(f, ",\n  \"host\": ");
	bench_header_json(f);
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

static int write_file(const char *path, const char *scenario, struct bench_table *const *tables,
		      size_t n, int json)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "clearbench: cannot write %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (json)
		write_json(f, scenario, tables, n);
	else
		write_csv(f, tables, n);
	if (fclose(f)) {
		fprintf(stderr, "clearbench: error writing %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}

int bench_write_outputs(const struct bench_opts *opts, const char *scenario,
			struct bench_table *const *tables, size_t ntables)
{
	int rc = 0;
	/* every scenario ends here: the header warned, the closing note repeats it */
	if (opts->emulated)
		bench_note("emulated run: figures measure qemu, not the CPU.");
	if (opts->csv_path)
		rc |= write_file(opts->csv_path, scenario, tables, ntables, 0);
	if (opts->json_path)
		rc |= write_file(opts->json_path, scenario, tables, ntables, 1);
	return rc;
}
