/* SPDX-License-Identifier: MIT */
/*
 * copy: every copy kernel of cp_copy_kernels(), auto (cp_copy_pages) and
 * glibc memcpy at sweep's extents, 4 KiB to 1 GiB, on sweep's three kinds of
 * target: hot, one source copied onto one destination again and again; cold,
 * each copy from one slot of a pool not in the cache onto another; use, cold
 * and then the destination read once per 64-byte line, timed. GB/s (bytes
 * copied per second) as medians over shuffled rounds, a table per kind; auto
 * against the fastest copy kernel (named) and memcpy of each row; the summary
 * gives both at their lowest from 64 KiB. Then the huge-page copy of the
 * Linux hugepage zeroing & copying thread (copy_huge.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "contenders.h"
#include "copy.h"
#include "introspect.h"
#include "map.h"
#include "opts.h"
#include "plot.h"
#include "rounds.h"
#include "scenarios.h"
#include "stats.h"
#include "table.h"
#include "targets.h"

#define NCONT (BENCH_MAX_KERNELS + 2)
#define SUMMARY_FROM ((size_t)64 << 10)   /* the summary's extents: from 64 KiB */

static const char *const kind_about[BK_NKINDS] = {
	"one source copied onto one destination again and again",
	"each copy between two slots of a pool not in the cache",
	"cold, then the destination read once per 64-byte line, timed",
};

/* The lowest auto/best and auto/memcpy of a kind from SUMMARY_FROM on. */
struct low {
	double vs_best, vs_memcpy;
	size_t at_best, at_memcpy;     /* where (bytes) */
};

struct copy_run {
	struct bench_contender c[NCONT];
	size_t n, i_auto, i_memcpy;    /* auto and memcpy: the last two */
	struct bench_table *data;      /* every row, a target column (CSV, JSON, plots) */
	struct bench_table *wide[BK_NKINDS];
	struct bench_table *ratios;    /* a row per kind and extent: auto against the fastest */
	struct low low[BK_NKINDS];
	unsigned kinds;                /* measured: 1 << BK_* */
};

static struct bench_table *wide_table(const struct copy_run *r, enum bench_kind kind)
{
	const char *cols[BENCH_MAX_COLS] = { "extent" };
	char title[160];
	for (size_t i = 0; i < r->n; i++)
		cols[i + 1] = r->c[i].name;
	snprintf(title, sizeof(title), "copy, %s (%s): GB/s copied, median over rounds "
		 "(* = the fastest of the row)", bench_kind_names[kind], kind_about[kind]);
	return bench_table_new(title, BT_TEXT, r->n + 1, cols);
}

static struct bench_table *data_table(void)
{
	static const char *const cols[] = {
		"target", "extent", "bytes", "contender", "median_gbs", "min_gbs", "max_gbs", "best",
		"rounds", "over_best", "over_memcpy", "auto_kernel", "fastest_kernel"
	};
	return bench_table_new("copy", BT_DATA, sizeof(cols) / sizeof(cols[0]), cols);
}

static struct bench_table *ratios_table(void)
{
	static const char *const cols[] = { "target", "extent", "fastest kernel", "auto/fastest",
					    "auto/memcpy", "auto picks" };
	return bench_table_new("copy, auto against the fastest copy kernel of the row and "
			       "against memcpy", BT_TEXT, 6, cols);
}

/* What auto ran: untimed passes right after the timed rounds, on targets of
 * the kind, under the recording policy (introspect.h); below 16 MiB several
 * (at most 128, 16 MiB in all), so that the copy history's timed calls show
 * as a share. */
static void ran_auto(const struct copy_run *r, const struct bench_opts *opts, enum bench_kind kind,
		     size_t bytes, void *dst, void *src, struct bench_pool *pool, char *out,
		     size_t len)
{
	const size_t most = (size_t)16 << 20;
	struct bench_rounds cfg = bench_rounds_for_kind(opts, bytes, kind, pool);
	cfg.src = src;
	cfg.warmup = 0;
	cfg.reps = bytes >= most ? 1 : most / bytes > 128 ? 128 : most / bytes;
	struct bench_ran ran = { 0 };
	size_t slot = 0;
	if (!bench_record_start()) {
		bench_time_passes(&r->c[r->i_auto], dst, bytes, &cfg, &slot);
		bench_record_stop(&ran);
	}
	bench_ran_str(&ran, out, len);
}

/* One extent of one kind: the rounds, then its row of the kind's table and a
 * data row per contender. */
static void measure(struct copy_run *r, const struct bench_opts *opts, enum bench_kind kind,
		    size_t bytes, void *dst, void *src, struct bench_pool *pool)
{
	struct bench_rounds cfg = bench_rounds_for_kind(opts, bytes, kind, pool);
	cfg.src = src;
	double *samples = bench_sample(r->c, r->n, dst, bytes, &cfg);
	double med[NCONT], lo[NCONT], hi[NCONT];
	size_t best = 0, best_kernel = 0;
	for (size_t i = 0; i < r->n; i++) {
		const double *s = &samples[i * cfg.rounds];
		med[i] = bench_gbs(bytes, bench_median(s, cfg.rounds));
		lo[i] = bench_gbs(bytes, bench_max(s, cfg.rounds));
		hi[i] = bench_gbs(bytes, bench_min(s, cfg.rounds));
		best = med[i] > med[best] ? i : best;
		if (r->c[i].copy_kernel && med[i] > med[best_kernel])
			best_kernel = i;
	}
	free(samples);
	char ext[16], cell[32], pick[96];
	ran_auto(r, opts, kind, bytes, dst, src, pool, pick, sizeof(pick));
	bench_size_str(bytes, ext, sizeof(ext));
	for (size_t i = 0; i < r->n; i++) {
		bench_table_row(r->data);
		bench_cell_str(r->data, bench_kind_names[kind]);
		bench_cell_str(r->data, ext);
		bench_cell_num(r->data, (double)bytes, "%.0f");
		bench_cell_str(r->data, r->c[i].name);
		bench_cell_num(r->data, med[i], "%.3f");
		bench_cell_num(r->data, lo[i], "%.3f");
		bench_cell_num(r->data, hi[i], "%.3f");
		bench_cell_num(r->data, i == best, "%.0f");
		bench_cell_num(r->data, (double)cfg.rounds, "%.0f");
		bench_cell_num(r->data, med[i] / med[best_kernel], "%.3f");
		bench_cell_num(r->data, med[i] / med[r->i_memcpy], "%.3f");
		bench_cell_str(r->data, pick);
		bench_cell_str(r->data, r->c[best_kernel].name);
	}
	struct bench_table *w = r->wide[kind], *q = r->ratios;
	double vs_best = med[r->i_auto] / med[best_kernel];
	double vs_memcpy = med[r->i_auto] / med[r->i_memcpy];
	bench_table_row(w);
	bench_cell_str(w, ext);
	for (size_t i = 0; i < r->n; i++) {
		snprintf(cell, sizeof(cell), "%.2f%s", med[i], i == best ? "*" : " ");
		bench_cell_str(w, cell);
	}
	bench_table_row(q);
	bench_cell_str(q, bench_kind_names[kind]);
	bench_cell_str(q, ext);
	bench_cell_str(q, r->c[best_kernel].name);
	bench_cell_num(q, vs_best, "%.2f");
	bench_cell_num(q, vs_memcpy, "%.2f");
	bench_cell_str(q, pick);
	struct low *l = &r->low[kind];
	if (bytes >= SUMMARY_FROM && !(vs_best >= l->vs_best)) {
		l->vs_best = vs_best;
		l->at_best = bytes;
	}
	if (bytes >= SUMMARY_FROM && !(vs_memcpy >= l->vs_memcpy)) {
		l->vs_memcpy = vs_memcpy;
		l->at_memcpy = bytes;
	}
}

static int run_kind(struct copy_run *r, const struct bench_opts *opts, enum bench_kind kind,
		    struct bench_pool *pool)
{
	size_t sizes[BENCH_MAX_SIZES], nsizes = bench_kind_sizes(opts, kind, sizes);
	size_t top = bench_largest(sizes, nsizes);
	void *dst = NULL, *src = NULL;
	char sz[16];
	if (kind == BK_HOT)
		bench_progress("copy hot: mapping two of %s", bench_size_str(top, sz, sizeof(sz)));
	if (kind == BK_HOT && (!(dst = bench_map(top)) || !(src = bench_map(top)))) {
		bench_unmap(dst, top);
		return 1;
	}
	if (src)
		memset(src, 0x5a, top);   /* a source of data, not of zero pages */
	r->wide[kind] = wide_table(r, kind);
	r->low[kind] = (struct low){ NAN, NAN, 0, 0 };
	r->kinds |= 1u << kind;
	for (size_t s = 0; s < nsizes; s++) {
		char ext[16];
		bench_progress("copy %s: %s (%zu/%zu)", bench_kind_names[kind],
			       bench_size_str(sizes[s], ext, sizeof(ext)), s + 1, nsizes);
		measure(r, opts, kind, sizes[s], dst, src, pool);
	}
	bench_unmap(dst, top);
	bench_unmap(src, top);
	return 0;
}

/* One line per kind: the figures the library is held to from 64 KiB on. */
static struct bench_table *summary_table(const struct copy_run *r)
{
	static const char *const cols[] = {
		"target", "auto/fastest min", "at (fastest)", "auto/memcpy min", "at (memcpy)",
		"auto >= 0.95 x fastest", "auto >= memcpy"
	};
	struct bench_table *t = bench_table_new("copy summary: auto against the fastest copy "
		"kernel and against memcpy, lowest over the extents from 64 KiB",
		BT_TEXT | BT_DATA, 7, cols);
	bench_table_csv_suffix(t, "summary");
	for (unsigned k = 0; k < BK_NKINDS; k++) {
		const struct low *l = &r->low[k];
		char a[16], b[16];
		if (!(r->kinds & 1u << k))
			continue;
		bench_table_row(t);
		bench_cell_str(t, bench_kind_names[k]);
		bench_cell_num(t, l->vs_best, "%.2f");
		bench_cell_str(t, l->at_best ? bench_size_str(l->at_best, a, sizeof(a)) : "-");
		bench_cell_num(t, l->vs_memcpy, "%.2f");
		bench_cell_str(t, l->at_memcpy ? bench_size_str(l->at_memcpy, b, sizeof(b)) : "-");
		bench_cell_str(t, isnan(l->vs_best) ? "-" : l->vs_best >= 0.95 ? "yes" : "no");
		bench_cell_str(t, isnan(l->vs_memcpy) ? "-" : l->vs_memcpy >= 1.0 ? "yes" : "no");
	}
	return t;
}

/* A kind's plot: a line per contender with min-max bars; auto, memcpy and the
 * best kernel (highest geometric mean) bold, non-temporal kernels dashed. */
static int kind_plot(const struct copy_run *r, enum bench_kind kind, const char *path)
{
	static struct bench_plot_spec p;
	char title[200];
	struct bench_table *t = bench_plot_rows_of(r->data, "target", bench_kind_names[kind]);
	snprintf(title, sizeof(title), "clearbench copy, %s (%s): GB/s median, bars min-max",
		 bench_kind_names[kind], kind_about[kind]);
	bench_plot_spec_init(&p, path, title, "extent", "GB/s copied (10^9 bytes/s)");
	p.x_bytes = p.logy = 1;
	size_t yc = bench_table_col(t, "median_gbs"), best = r->n;
	double top = -INFINITY;
	for (size_t i = 0; i < r->n; i++) {
		int s = bench_series_add(&p, t, bench_table_col(t, "contender"), r->c[i].name,
					 bench_table_col(t, "bytes"), yc, yc + 1, yc + 2);
		if (s < 0)
			continue;
		const struct cp_copy_kernel *k = r->c[i].copy_kernel;
		double lg = 0;
		for (size_t j = 0; j < p.s[s].n; j++)
			lg += log(p.s[s].y[j]) / (double)p.s[s].n;
		p.s[s].dashed = k && (k->flags & CP_NONTEMPORAL);
		p.s[s].bold = !k;
		if (k && lg > top) {
			top = lg;
			best = (size_t)s;
		}
	}
	if (best < r->n) {
		p.s[best].bold = 1;
		size_t l = strlen(p.s[best].name);
		snprintf(p.s[best].name + l, sizeof(p.s[best].name) - l, " (best kernel)");
	}
	bench_table_free(t);
	return bench_plot_lines(&p);
}

/* --plot FILE.png: FILE-hot.png, FILE-cold.png, FILE-use.png for the kinds
 * measured, FILE.png the first of them, as sweep writes them. */
static int plots(const struct copy_run *r, const char *path)
{
	int rc = 0, first = 1;
	size_t stem = strlen(path) - 4;   /* the option parser saw ".png" */
	for (unsigned k = 0; k < BK_NKINDS && !rc; k++) {
		char one[4096];
		if (!(r->kinds & 1u << k))
			continue;
		snprintf(one, sizeof(one), "%.*s-%s.png", (int)stem, path, bench_kind_names[k]);
		rc = kind_plot(r, k, one) || (first && kind_plot(r, k, path));
		first = 0;
	}
	return rc;
}

static void notes(const struct bench_pool *pool, long thp_kib, const char *why)
{
	struct bench_host h;
	char llc[16];
	bench_host_get(&h);
	bench_note("hot = %s; cold = %s; use = %s.", kind_about[BK_HOT], kind_about[BK_COLD],
		   kind_about[BK_USE]);
	bench_note("auto = cp_copy_pages(), memcpy = glibc %s memcpy; the others are the copy "
		   "kernels of cp_copy_kernels(), each called once over the extent. GB/s = bytes "
		   "copied per second (10^9); fastest = the fastest copy kernel of the row (the "
		   "CSV's over_best is over its fastest_kernel); auto picks = what cp_copy_pages() "
		   "ran in untimed passes after the rounds, by pages copied. Medians over rounds, each contender warmed up, order shuffled "
		   "per round. Min and max over rounds: the CSV and JSON.", bench_libc_version());
	if (pool->bytes)
		bench_note("cold and use: a %zu MiB pool (LLC %s by CPUID; %ld MiB huge), THP "
			   "advised, warmed by three passes; each copy reads the next slot of a "
			   "shuffled order and writes the one after it, never one slot twice in a "
			   "row.%s%s%s", pool->bytes >> 20, bench_size_str(h.llc_bytes, llc, sizeof(llc)),
			   thp_kib >= 0 ? thp_kib >> 10 : -1, why[0] ? " " : "", why,
			   pool->bytes < 4 * h.llc_bytes ? " The pool is under four times the LLC: "
			   "part of it may still be cached (a test-sized --pool)." : "");
}

int bench_copy(const struct bench_opts *opts)
{
	static struct copy_run r;
	struct bench_pool pool = { 0 };
	char why[160] = "";
	long thp_kib = -1;
	unsigned targets = opts->targets ? opts->targets : BK_ALL;
	int rc = bench_check_pool(opts, targets);
	if (rc)
		return rc;
	memset(&r, 0, sizeof(r));
	r.n = bench_copy_contenders(r.c, NCONT);
	r.i_auto = r.n - 2;
	r.i_memcpy = r.n - 1;
	r.data = data_table();
	r.ratios = ratios_table();
	for (unsigned k = 0; k < BK_NKINDS && !rc; k++) {
		if (!(targets & 1u << k))
			continue;
		if (k != BK_HOT && !pool.base) {
			size_t sizes[BENCH_MAX_SIZES];
			size_t top = bench_largest(sizes, bench_kind_sizes(opts, k, sizes));
			/* the huge-page copy's 2 MiB pairs come from this pool too */
			top = top > COPY_HUGE_BYTES ? top : COPY_HUGE_BYTES;
			rc = bench_pool_open_for(&pool, opts, top, why, sizeof(why), &thp_kib);
		}
		if (!rc)
			rc = run_kind(&r, opts, k, k == BK_HOT ? NULL : &pool);
	}
	struct bench_table *tables[BK_NKINDS + 3 + COPY_HUGE_TABLES];
	size_t nt = 0;
	for (unsigned k = 0; k < BK_NKINDS && !rc; k++)
		if (r.kinds & 1u << k) {
			bench_table_print(r.wide[k]);
			tables[nt++] = r.wide[k];
		}
	tables[nt++] = r.ratios;
	if (!rc) {
		bench_table_print(r.ratios);
		tables[nt++] = r.data;   /* NAME.csv; the summary NAME-summary.csv */
		tables[nt++] = summary_table(&r);
		bench_table_print(tables[nt - 1]);
		rc = copy_huge(opts, targets, pool.base ? &pool : NULL, tables, &nt);
	}
	printf("\n");
	notes(&pool, thp_kib, why);
	if (!rc)
		rc = bench_write_outputs(opts, "copy", tables, nt);
	if (!rc && opts->plot_path)
		rc = plots(&r, opts->plot_path);
	if (pool.base)
		bench_pool_close(&pool);
	for (size_t i = 0; i < nt; i++)
		bench_table_free(tables[i]);
	return rc;
}
