/* SPDX-License-Identifier: MIT */
/* Text tables, CSV and JSON outputs, notes, report's capture (table.c). */
#ifndef CLEARBENCH_TABLE_H
#define CLEARBENCH_TABLE_H

#include <stddef.h>
#include <stdio.h>
#include "opts.h"

enum { BT_TEXT = 1, BT_DATA = 2 };   /* printed on stdout / written to CSV and JSON */
struct bench_cell {
	char text[64];             /* as printed */
	double value;              /* as written, when is_num */
	int is_num;
};
#define BENCH_MAX_COLS 48
struct bench_table {
	char title[160];
	char csv_suffix[32];       /* second and later data tables: NAME-<suffix>.csv */
	unsigned flags;
	size_t ncols, nrows, cap;
	size_t filled;             /* cells filled in the last row */
	char cols[BENCH_MAX_COLS][32];
	struct bench_cell *cells;  /* nrows * ncols */
};
struct bench_table *bench_table_new(const char *title, unsigned flags, size_t ncols,
				    const char *const *cols);
/* Start a row, then fill it left to right. */
void bench_table_row(struct bench_table *t);
void bench_cell_str(struct bench_table *t, const char *s);
void bench_cell_num(struct bench_table *t, double v, const char *fmt);  /* fmt for text */
void bench_cell_na(struct bench_table *t);          /* "n/a" text, JSON null, empty CSV */
const struct bench_cell *bench_cell_at(const struct bench_table *t, size_t row, size_t col);
/* On stdout: the title, then the columns aligned, in blocks that repeat the first column
 * where the table is wider than BENCH_TABLE_WIDTH (a terminal of 160 columns). */
#define BENCH_TABLE_WIDTH 160
void bench_table_print(const struct bench_table *t);
/* s between two `quote` characters, each quote inside doubled (CSV fields with
 * '"', gnuplot strings with '\''). */
void bench_put_quoted(FILE *f, const char *s, char quote);
void bench_table_free(struct bench_table *t);
/* The CSV file of a second or later data table is --csv's NAME-<suffix>.csv. */
void bench_table_csv_suffix(struct bench_table *t, const char *suffix);
/* Column index by name, or ncols. */
size_t bench_table_col(const struct bench_table *t, const char *name);
/* Lines printed under the tables and stored in the JSON "notes". */
void bench_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Write the BT_DATA tables to --csv / --json; 0 or 1 after a message. */
int bench_write_outputs(const struct bench_opts *opts, const char *scenario,
			struct bench_table *const *tables, size_t ntables);
/* --csv's file for data table i (0: PATH.csv, then PATH-<suffix or i+1>.csv). */
const char *bench_csv_path(const char *path, const struct bench_table *t, size_t i, char *buf,
			   size_t len);
/* report: keep a copy of every table and note bench_write_outputs sees. */
struct bench_capture {
	struct bench_table *tables[16];
	size_t ntables;
	char *notes[64];
	size_t nnotes;
};
void bench_capture_start(struct bench_capture *cap);   /* also forgets earlier notes */
void bench_capture_stop(void);
void bench_capture_free(struct bench_capture *cap);

#endif
