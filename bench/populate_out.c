/* SPDX-License-Identifier: MIT */
/*
 * populate's outputs: a table per target and mapping (each contender on each
 * thread count, whether it zeroes, against the fastest contender that does and
 * against memset on one thread), the summary (cp_zero_res_par's two ratios per
 * cell), the data table every CSV row comes from (the scaling curves), and a
 * plot per target and mapping: GB/s against threads at the largest extent.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "plot.h"
#include "populate.h"
#include "stats.h"
#include "table.h"

/* "yes", "no", "unavailable (-EINVAL)" or "FAILED". */
static const char *zero_text(const struct bench_pop_cell *cell, const struct bench_pop_entry *e)
{
	if (e->failed)
		return "FAILED";
	if (e->err == -EINVAL)
		return "unavailable (-EINVAL)";
	return bench_pop_zeroes(e->c, cell->s) ? "yes" : "no";
}

/* The fastest entry that zeroes in this state (NULL: none ran). */
static const struct bench_pop_entry *best_zeroing(const struct bench_pop_cell *cell)
{
	const struct bench_pop_entry *best = NULL;
	for (size_t i = 0; i < cell->n; i++) {
		const struct bench_pop_entry *e = &cell->e[i];
		if (!isnan(e->gbs) && !e->failed && bench_pop_zeroes(e->c, cell->s) &&
		    (!best || e->gbs > best->gbs))
			best = e;
	}
	return best;
}

static const struct bench_pop_entry *find(const struct bench_pop_cell *cell,
					  enum bench_pop_contender c, unsigned threads)
{
	for (size_t i = 0; i < cell->n; i++)
		if (cell->e[i].c == c && cell->e[i].threads == threads)
			return &cell->e[i];
	return NULL;
}

/* v / base, n/a where either is missing */
static void cell_ratio(struct bench_table *t, double v, const struct bench_pop_entry *base)
{
	if (base && !isnan(base->gbs) && !base->failed && !isnan(v))
		bench_cell_num(t, v / base->gbs, "%.2f");
	else
		bench_cell_na(t);
}

static void threads_text(const struct bench_pop_entry *e, size_t bytes, char *buf, size_t len)
{
	unsigned ran = e->c == BP_QEMU ? bench_pop_qemu_threads(e->threads, bytes) : e->threads;
	if (!e->threads)
		snprintf(buf, len, "own");
	else if (ran != e->threads)
		snprintf(buf, len, "%u (%u)", e->threads, ran);
	else
		snprintf(buf, len, "%u", e->threads);
}

/* One row of the cell into the text table (text) or the data table. */
static void add_row(struct bench_table *t, const struct bench_pop_cell *cell,
		    const struct bench_pop_entry *e, int data)
{
	const struct bench_pop_entry *best = best_zeroing(cell), *m1 = find(cell, BP_MEMSET, 1);
	char s[16], th[24];
	bench_table_row(t);
	if (data) {
		bench_cell_str(t, bench_state_names[cell->s]);
		bench_cell_str(t, bench_mapping_names[cell->m]);
	}
	bench_cell_str(t, bench_size_str(cell->bytes, s, sizeof(s)));
	if (data)
		bench_cell_num(t, (double)cell->bytes, "%.0f");
	bench_cell_str(t, bench_pop_names[e->c]);
	if (data) {
		if (e->threads)
			bench_cell_num(t, e->threads, "%.0f");
		else
			bench_cell_na(t);
		if (e->threads)
			bench_cell_num(t, e->c == BP_QEMU ? bench_pop_qemu_threads(e->threads,
				       cell->bytes) : e->threads, "%.0f");
		else
			bench_cell_na(t);
	} else {
		threads_text(e, cell->bytes, th, sizeof(th));
		bench_cell_str(t, th);
	}
	bench_cell_num(t, e->failed ? NAN : e->gbs, "%.2f");
	bench_cell_str(t, zero_text(cell, e));
	cell_ratio(t, e->failed ? NAN : e->gbs, best);
	cell_ratio(t, e->failed ? NAN : e->gbs, m1);
}

static struct bench_table *state_table(const struct bench_pop_cell *cells, size_t ncells,
				       enum bench_state s, enum bench_mapping m, size_t rounds)
{
	static const char *const cols[] = { "size", "contender", "threads", "GB/s", "zero",
					    "/best", "/memset 1t" };
	char title[128];
	snprintf(title, sizeof(title), "populate, %s, %s: GB/s, median of %zu tries",
		 bench_state_names[s], bench_mapping_names[m], rounds);
	struct bench_table *t = bench_table_new(title, BT_TEXT, 7, cols);
	for (size_t i = 0; i < ncells; i++)
		for (size_t k = 0; cells[i].s == s && cells[i].m == m && k < cells[i].n; k++)
			add_row(t, &cells[i], &cells[i].e[k], 0);
	return t;
}

static struct bench_table *data_table(const struct bench_pop_cell *cells, size_t ncells)
{
	static const char *const cols[] = { "target", "mapping", "size", "bytes", "contender",
					    "threads", "ran", "gbs", "zero", "over_best",
					    "over_memset1" };
	struct bench_table *t = bench_table_new("populate: every cell, GB/s median", BT_DATA, 11,
						cols);
	for (size_t i = 0; i < ncells; i++)
		for (size_t k = 0; k < cells[i].n; k++)
			add_row(t, &cells[i], &cells[i].e[k], 1);
	return t;
}

static struct bench_table *summary_table(const struct bench_pop_cell *cells, size_t ncells)
{
	static const char *const cols[] = { "target", "map", "size", "best zeroing", "GB/s",
					    "memset 1t", "res_par", "/best", "/memset" };
	struct bench_table *t = bench_table_new("populate summary: cp_zero_res_par against the "
						"fastest that zeroes and memset on one thread",
						BT_TEXT | BT_DATA, 9, cols);
	bench_table_csv_suffix(t, "summary");
	for (size_t i = 0; i < ncells; i++) {
		const struct bench_pop_cell *c = &cells[i];
		const struct bench_pop_entry *best = best_zeroing(c), *m1 = find(c, BP_MEMSET, 1);
		const struct bench_pop_entry *rp = find(c, BP_CP_ZERO_RES_PAR, 0);
		double rp_gbs = rp && !rp->failed ? rp->gbs : NAN;
		char s[16], name[40];
		bench_table_row(t);
		bench_cell_str(t, bench_state_names[c->s]);
		bench_cell_str(t, bench_mapping_names[c->m]);
		bench_cell_str(t, bench_size_str(c->bytes, s, sizeof(s)));
		if (best && best->c < BP_NTHREADED)
			snprintf(name, sizeof(name), "%s/%ut", bench_pop_names[best->c], best->threads);
		else
			snprintf(name, sizeof(name), "%s", best ? bench_pop_names[best->c] : "none");
		bench_cell_str(t, name);
		bench_cell_num(t, best ? best->gbs : NAN, "%.2f");
		bench_cell_num(t, m1 && !m1->failed ? m1->gbs : NAN, "%.2f");
		bench_cell_num(t, rp_gbs, "%.2f");
		cell_ratio(t, rp_gbs, best);
		cell_ratio(t, rp_gbs, m1);
	}
	return t;
}

/* GB/s against threads at the largest extent of this target and mapping. */
static int state_plot(const char *path, const struct bench_pop_cell *cells, size_t ncells,
		      enum bench_state s, enum bench_mapping m)
{
	const struct bench_pop_cell *cell = NULL;
	for (size_t i = 0; i < ncells; i++)
		if (cells[i].s == s && cells[i].m == m && (!cell || cells[i].bytes > cell->bytes))
			cell = &cells[i];
	if (!cell)
		return 0;
	static struct bench_plot_spec p;
	char title[128], sz[16];
	snprintf(title, sizeof(title), "clearbench populate: %s %s memory, %s, made zero and "
		 "resident", bench_state_names[s], bench_mapping_names[m],
		 bench_size_str(cell->bytes, sz, sizeof(sz)));
	bench_plot_spec_init(&p, path, title, "threads", "GB/s (median)");
	double lo = INFINITY, hi = 0;
	for (size_t i = 0; i < cell->n; i++)
		if (cell->e[i].threads) {
			lo = cell->e[i].threads < lo ? cell->e[i].threads : lo;
			hi = cell->e[i].threads > hi ? cell->e[i].threads : hi;
		}
	p.logx = hi >= 4 * lo;
	for (unsigned c = 0; c < BP_NCONTENDERS && p.nseries < BENCH_PLOT_MAX_SERIES; c++) {
		struct bench_series *ser = &p.s[p.nseries];
		memset(ser, 0, sizeof(*ser));
		int zeroes = bench_pop_zeroes((enum bench_pop_contender)c, s);
		snprintf(ser->name, sizeof(ser->name), "%s%s%s", bench_pop_names[c],
			 c == BP_CP_ZERO_RES_PAR ? " (its own threads)" :
			 c >= BP_NTHREADED ? " (one thread)" : "", zeroes ? "" : " (not zero)");
		for (size_t i = 0; i < cell->n && ser->n < BENCH_MAX_SIZES; i++) {
			const struct bench_pop_entry *e = &cell->e[i];
			if (e->c != c || e->failed || isnan(e->gbs))
				continue;
			ser->x[ser->n] = e->threads ? e->threads : lo;
			ser->y[ser->n++] = e->gbs;
			if (!e->threads && hi > lo) {   /* the library's count: a level line */
				ser->x[ser->n] = hi;
				ser->y[ser->n++] = e->gbs;
			}
		}
		ser->bold = c == BP_CP_ZERO_RES_PAR;
		ser->dashed = !zeroes;
		if (ser->n)
			p.nseries++;
	}
	return p.nseries ? bench_plot_lines(&p) : 0;
}

static int plots(const struct bench_opts *opts, const struct bench_pop_cell *cells,
		 size_t ncells)
{
	size_t l = strlen(opts->plot_path) - 4;   /* the option parser saw ".png" */
	int rc = 0, first = 1;
	for (unsigned s = 0; s < BS_NSTATES && !rc; s++)
		for (unsigned m = 0; m < BM_NMAPPINGS && !rc; m++) {
			char path[4096];
			size_t i = 0;
			while (i < ncells && (cells[i].s != s || cells[i].m != m))
				i++;
			if (i == ncells)
				continue;
			snprintf(path, sizeof(path), "%.*s-%s-%s.png", (int)l, opts->plot_path,
				 bench_state_names[s], bench_mapping_names[m]);
			rc = state_plot(path, cells, ncells, s, m);
			if (!rc && first)
				rc = state_plot(opts->plot_path, cells, ncells, s, m);
			first = 0;
		}
	return rc;
}

static void thp_mode(char *buf, size_t len)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	if (!f || !fgets(buf, (int)len, f))
		snprintf(buf, len, "unknown");
	buf[strcspn(buf, "\n")] = '\0';
	if (f)
		fclose(f);
}

static void notes(size_t rounds)
{
	char thp[96];
	thp_mode(thp, sizeof(thp));
	bench_note("GB/s: the extent over the contender's time (its threads' start and join "
		   "included),");
	bench_note("median of %zu tries, each on memory mapped anew and brought to the "
		   "target's state", rounds);
	bench_note("outside the timing; contenders in a new random order each round. "
		   "THP: %s.", thp);
	bench_note("zero: no = a store per page, populate and qemu keep what written pages "
		   "hold.");
	bench_note("/best: over the fastest contender that zeroes (summary: best zeroing); "
		   "/memset 1t: over");
	bench_note("memset on one thread. cp_zero: flags 0 (stores); cp_zero_res: "
		   "CP_ZERO_RESIDENT;");
	bench_note("cp_zero_res_par: CP_ZERO_RESIDENT | CP_ZERO_PARALLEL on the library's "
		   "threads ('own').");
	bench_note("unavailable (-EINVAL): this library does not take the flag.");
	bench_note("qemu: QEMU's preallocation, at most 16 threads and one per 64 MiB; "
		   "'N (M)': M ran.");
	bench_note("Every try verified: every page resident (mincore); where it zeroes, "
		   "each page's first");
	bench_note("and last 8 bytes and one random word read 0.");
}

int bench_pop_output(const struct bench_opts *opts, const struct bench_pop_cell *cells,
		     size_t ncells, size_t rounds)
{
	struct bench_table *tables[BS_NSTATES * BM_NMAPPINGS + 2];
	size_t nt = 0;
	for (unsigned s = 0; s < BS_NSTATES; s++)
		for (unsigned m = 0; m < BM_NMAPPINGS; m++) {
			struct bench_table *t = state_table(cells, ncells, s, m, rounds);
			if (t->nrows) {
				bench_table_print(t);
				tables[nt++] = t;
			} else {
				bench_table_free(t);
			}
		}
	tables[nt] = summary_table(cells, ncells);
	bench_table_print(tables[nt++]);
	printf("\n");
	notes(rounds);
	/* the data table first: FILE.csv holds every cell, FILE-summary.csv the summary */
	struct bench_table *out[BS_NSTATES * BM_NMAPPINGS + 2];
	out[0] = data_table(cells, ncells);
	memcpy(&out[1], tables, nt * sizeof(*tables));
	int rc = bench_write_outputs(opts, "populate", out, nt + 1);
	if (!rc && opts->plot_path)
		rc = plots(opts, cells, ncells);
	for (size_t i = 0; i < nt + 1; i++)
		bench_table_free(out[i]);
	return rc;
}
