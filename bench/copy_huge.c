/* SPDX-License-Identifier: MIT */
/*
 * copy's huge-page part (the Linux hugepage zeroing & copying thread, which
 * made copy_user_huge_page one memcpy): a 2 MiB huge page copied onto another
 * page at a time (cp_copy_huge_opts, CP_ORDER_PAGE_AT_A_TIME: 512 kernel
 * calls), in one shot (CP_ORDER_SEQUENTIAL) and with the target subpage last
 * (CP_ORDER_NEIGHBOURHOOD_LAST, the hot page in the middle, at either end or
 * drawn at random per copy), each with the library's choice and with
 * rep_movsb (memcpy's way on x86; elsewhere the first copy kernel listed).
 * Cold: a fresh 2 MiB pair from the pool per copy, as a copy-on-write fault
 * meets it; hot: one pair again and again. The thread published clear
 * figures only (published.c): ours beside theirs, one shot / page at a time.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "contenders.h"
#include "copy.h"
#include "map.h"
#include "opts.h"
#include "published.h"
#include "rounds.h"
#include "stats.h"
#include "table.h"
#include "targets.h"

#define NPAGES (COPY_HUGE_BYTES / CP_PAGE_SIZE)

struct huge_case {
	const char *order;
	enum cp_order o;
	long hot;                  /* the hot subpage; -1: drawn per copy */
};
static const struct huge_case cases[] = {
	{ "page-at-a-time", CP_ORDER_PAGE_AT_A_TIME, 0 },
	{ "one shot", CP_ORDER_SEQUENTIAL, 0 },
	{ "target last", CP_ORDER_NEIGHBOURHOOD_LAST, NPAGES / 2 },
	{ "target last", CP_ORDER_NEIGHBOURHOOD_LAST, 0 },
	{ "target last", CP_ORDER_NEIGHBOURHOOD_LAST, NPAGES - 1 },
	{ "target last", CP_ORDER_NEIGHBOURHOOD_LAST, -1 },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))
#define NCONT (2 * NCASES)    /* per case: auto, then the memcpy-like kernel */

static void copy_huge_page(const struct bench_contender *c, void *dst, const void *src,
			   size_t bytes)
{
	static uint64_t rng = 0x853c49e6748fea9bull;
	const struct huge_case *h = c->ctx;
	size_t n = bytes / CP_PAGE_SIZE;
	struct cp_huge_opts o = CP_HUGE_OPTS_INIT;
	o.order = h->o;
	size_t hot = h->hot < 0 ? (size_t)(bench_random(&rng) % n) : (size_t)h->hot;
	if (cp_copy_huge_opts(dst, src, n, hot, &o, c->copy_kernel))
		abort();   /* aligned, apart, hot in range: never refused */
}

/* rep_movsb where there is one, else the first copy kernel (temporal first) */
static const struct cp_copy_kernel *memcpy_like(void)
{
	const struct cp_copy_kernel *const *list;
	const struct cp_copy_kernel *k = cp_copy_kernel_find("rep_movsb");
	return k ? k : cp_copy_kernels(&list) ? list[0] : NULL;
}

static void hot_str(const struct huge_case *h, char *buf, size_t len)
{
	if (h->o != CP_ORDER_NEIGHBOURHOOD_LAST)
		snprintf(buf, len, "-");
	else if (h->hot < 0)
		snprintf(buf, len, "random");
	else
		snprintf(buf, len, "%d", (int)h->hot);
}

/* The rounds of one kind; adds its rows, and its one-shot / page-at-a-time
 * lines to ratio. */
static void measure_kind(const struct bench_opts *opts, enum bench_kind kind,
			 struct bench_pool *pool, void *dst, void *src,
			 const struct bench_contender *c, struct bench_table *t,
			 struct bench_table *ratio)
{
	struct bench_rounds cfg = { opts->rounds ? opts->rounds : opts->quick ? 50 : 200, 1, 1,
				    COPY_HUGE_BYTES, kind, pool, NULL, src };
	bench_progress("copy %s: 2 MiB huge page, %zu contenders x %zu samples",
		       bench_kind_names[kind], NCONT, cfg.rounds);
	double *samples = bench_sample(c, NCONT, dst, COPY_HUGE_BYTES, &cfg);
	double median[NCONT];
	for (size_t i = 0; i < NCONT; i++) {
		double *s = &samples[i * cfg.rounds], mean, sd;
		char hot[16];
		for (size_t r = 0; r < cfg.rounds; r++)
			s[r] *= 1e6;
		bench_mean_stddev(s, cfg.rounds, &mean, &sd);
		median[i] = bench_median(s, cfg.rounds);
		hot_str(c[i].ctx, hot, sizeof(hot));
		bench_table_row(t);
		bench_cell_str(t, bench_kind_names[kind]);
		bench_cell_str(t, c[i].name);
		bench_cell_str(t, ((const struct huge_case *)c[i].ctx)->order);
		bench_cell_str(t, hot);
		bench_cell_num(t, (double)cfg.rounds, "%.0f");
		bench_cell_num(t, mean, "%.1f");
		bench_cell_num(t, sd, "%.1f");
		bench_cell_num(t, median[i], "%.1f");
		bench_cell_num(t, bench_percentile(s, cfg.rounds, 99), "%.1f");
		bench_cell_num(t, bench_gbs(COPY_HUGE_BYTES, median[i] * 1e-6), "%.2f");
		/* against page-at-a-time with the same kernel choice: cases[0] */
		bench_cell_num(t, median[i] / median[i % 2], "%.2f");
	}
	free(samples);
	for (size_t k = 0; k < 2; k++) {   /* one shot is cases[1] */
		char what[64];
		snprintf(what, sizeof(what), "this host, copy, %.8s, %.23s", bench_kind_names[kind],
			 c[k].name);
		bench_table_row(ratio);
		bench_cell_str(ratio, what);
		bench_cell_num(ratio, median[2 + k], "%.1f");
		bench_cell_num(ratio, median[k], "%.1f");
		bench_cell_num(ratio, median[2 + k] / median[k], "%.2f");
	}
}

/* The thread's rows (clear figures) beside ours; the caption says whose. */
static void published_rows(struct bench_table *ratio)
{
	const struct bench_published *p;
	size_t n = bench_published_for("copy", &p);
	for (size_t i = 0; i < n; i++)
		for (size_t r = 0; r < p[i].nrows; r++) {
			char what[160];
			snprintf(what, sizeof(what), "published clear: %s", p[i].rows[r][0]);
			bench_table_row(ratio);
			bench_cell_str(ratio, what);
			for (size_t col = 1; col < 4; col++)
				bench_cell_num(ratio, strtod(p[i].rows[r][col], NULL),
					       col < 3 ? "%.1f" : "%.2f");
		}
}

int copy_huge(const struct bench_opts *opts, unsigned targets, struct bench_pool *pool,
	      struct bench_table **tables, size_t *nt)
{
	static struct bench_contender c[NCONT];
	const struct cp_copy_kernel *like = memcpy_like();
	for (size_t i = 0; i < NCONT; i++) {
		memset(&c[i], 0, sizeof(c[i]));
		c[i].copy = copy_huge_page;
		c[i].ctx = &cases[i / 2];
		c[i].copy_kernel = i % 2 ? like : NULL;
		snprintf(c[i].name, sizeof(c[i].name), "%s", i % 2 && like ? like->name : "auto");
	}
	static const char *const cols[] = {
		"target", "kernel", "order", "hot page", "samples", "mean_us", "stddev_us",
		"median_us", "p99_us", "median_gbs", "over_page_at_a_time"
	};
	static const char *const rcols[] = {
		"what", "one shot us", "page at a time us", "one shot / page at a time"
	};
	struct bench_table *t = bench_table_new("copy, one 2 MiB huge page (THP) onto another: "
		"us per 2 MiB by order", BT_TEXT | BT_DATA, 11, cols);
	struct bench_table *ratio = bench_table_new("copy, 2 MiB: one shot against page at a "
		"time (median us), beside the thread's published clear figures", BT_TEXT | BT_DATA,
		4, rcols);
	bench_table_csv_suffix(t, "huge");
	bench_table_csv_suffix(ratio, "huge-ratio");
	int rc = 0;
	if (targets & 1u << BK_HOT) {
		void *dst = bench_map(COPY_HUGE_BYTES), *src = bench_map(COPY_HUGE_BYTES);
		if (dst && src) {
			memset(src, 0x5a, COPY_HUGE_BYTES);
			measure_kind(opts, BK_HOT, NULL, dst, src, c, t, ratio);
		} else {
			rc = 1;
		}
		bench_unmap(dst, COPY_HUGE_BYTES);
		bench_unmap(src, COPY_HUGE_BYTES);
	}
	if (!rc && pool)
		measure_kind(opts, BK_COLD, pool, NULL, NULL, c, t, ratio);
	published_rows(ratio);
	bench_table_print(t);
	bench_table_print(ratio);
	tables[(*nt)++] = t;
	tables[(*nt)++] = ratio;
	const struct bench_published *p;
	if (bench_published_for("copy", &p))
		bench_note("published: %s (%s; %s): %s.", p->thread, p->author, p->host, p->what);
	bench_note("huge page: target last = CP_ORDER_NEIGHBOURHOOD_LAST (the hot page's "
		   "neighbourhood last, with the temporal kernel under auto), hot page = its "
		   "index of 0-%zu (random: drawn per copy); one shot = CP_ORDER_SEQUENTIAL; "
		   "page-at-a-time = one kernel call per 4 KiB page. cold: each copy reads one 2 "
		   "MiB slot of the pool and writes another; hot: one pair again and again.",
		   NPAGES - 1);
	return rc;
}
