/* SPDX-License-Identifier: MIT */
/*
 * The report's page: one self-contained index.html (inline style, plots as
 * PNG files beside it): the host, then per scenario what it measures, the
 * Linux thread's published figures beside this host's, the plot, every table
 * and the notes. A small script at the end records whether every image loaded
 * and every table has rows (the browser test reads it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "header.h"
#include "opts.h"
#include "plot.h"
#include "published.h"
#include "report.h"
#include "table.h"
#include "targets.h"

static const struct { const char *scenario, *title, *what; } about[] = {
	{ "sweep", "Sweep: every kernel, auto and memset, 4 KiB to 1 GiB, hot, cold and in use",
	  "GB/s of each kernel called once over the extent, of auto (cp_clear_pages, the "
	  "library's choice), cold_call (cp_zero with CP_ZERO_COLD), memset (glibc) and auto_page "
	  "(cp_clear_pages one page per call), on three kinds of target: hot (one buffer "
	  "cleared again and again, so it stays cached), cold (each clear on another slot of a "
	  "pool not in the cache, as allocators and VMMs meet memory) and use (cold, then one "
	  "write per 64-byte line inside the timing). \"auto ran\" and \"cold_call ran\": "
	  "the kernels those calls ran on that kind, by share of bytes. One plot per kind. "
	  "Bold lines: auto, "
	  "memset and the best kernel; dashed: non-temporal kernels and cold_call; dotted "
	  "marks: where auto switches kernels." },
	{ "batch", "Batch: one region cleared in calls of 4 KiB to the whole region",
	  "The Linux clear_pages batching thread found that AMD Zen elides cacheline allocation "
	  "only for calls past about the LLC size, so rep stosb gets faster with the batch size." },
	{ "walk", "Walk: 100 MiB in one shot, forward and reverse per 4 KiB page",
	  "The Linux hugepage zeroing thread found one memset of the whole region fastest, and "
	  "reverse page order twice as slow as forward on arm64 (prefetchers follow ascending "
	  "streams)." },
	{ "latency", "Latency: clearing one 2 MiB page",
	  "Time to clear a 2 MiB huge page page-at-a-time (512 calls) against one call, per "
	  "kernel and for auto; the plot shows the whole distribution of the samples." },
	{ "fault", "Fault: anon-w-seq on 2 MiB pages, per clearing order",
	  "vm-scalability's anon-w-seq emulated in user space: clear each huge page in one of "
	  "the orders (stime), then write it sequentially (utime); plus neighbourhood-last with "
	  "the far ranges non-temporal (mixed) against all-temporal." },
	{ "parallel", "Parallel: cp_clear_pages_parallel with 1..N threads",
	  "GB/s and speed-up over one thread measured in the same rounds, and the extent below "
	  "which the library stays on the calling thread." },
	{ "zero", "Zero: cp_zero's stores against discard, 2 MiB to 1 GiB",
	  "cp_zero on filled private anonymous memory with no flags (auto), CP_ZERO_HOT, "
	  "CP_ZERO_COLD and CP_ZERO_MAY_DISCARD (madvise(MADV_DONTNEED) of whole huge pages from "
	  "the policy's discard_from): the call alone, then one write per line, then the first "
	  "10 % of lines, and the resident-set change of the call." },
	{ "populate", "Populate: memory made zero and resident",
	  "Fresh (never touched), half-written and written private anonymous memory, on 4 KiB "
	  "pages and THP, made zero and resident by memset, a store per page, "
	  "MADV_POPULATE_WRITE and QEMU's preallocation on 1..N threads, and by cp_zero with "
	  "CP_ZERO_RESIDENT (one thread, and with CP_ZERO_PARALLEL); a store per page, populate "
	  "and QEMU's preallocation keep written data, so they count on fresh memory only. "
	  "Its short run (64 MiB); the plot: GB/s against threads." },
	{ "tune", "Tune: a profile measured here, verified against the defaults",
	  "Every kernel from 4 KiB to 1 GiB on hot, cold and use targets, the profile derived "
	  "from it (bands from hot, uncached bands from use, the residency threshold from hot "
	  "and cold), and tuned against default in the same run." },
};

static const char *about_of(const char *scenario, int title)
{
	for (size_t i = 0; i < sizeof(about) / sizeof(about[0]); i++)
		if (!strcmp(about[i].scenario, scenario))
			return title ? about[i].title : about[i].what;
	return scenario;
}

static const struct bench_table *find_table(const struct bench_report_part *p, const char *prefix,
					    unsigned flags)
{
	for (size_t i = 0; i < p->cap.ntables; i++)
		if (!strncmp(p->cap.tables[i]->title, prefix, strlen(prefix)) &&
		    (p->cap.tables[i]->flags & flags))
			return p->cap.tables[i];
	return NULL;
}

/* The value of column `col` in the first row whose key columns match. */
static double lookup(const struct bench_table *t, const char *k1col, const char *k1,
		     const char *k2col, const char *k2, const char *col)
{
	if (!t)
		return NAN;
	size_t c1 = bench_table_col(t, k1col), c2 = k2col ? bench_table_col(t, k2col) : 0;
	size_t c = bench_table_col(t, col);
	if (c1 == t->ncols || c == t->ncols || (k2col && c2 == t->ncols))
		return NAN;
	for (size_t r = 0; r < t->nrows; r++)
		if (!strcmp(bench_cell_at(t, r, c1)->text, k1) &&
		    (!k2col || !strcmp(bench_cell_at(t, r, c2)->text, k2)))
			return bench_cell_at(t, r, c)->is_num ? bench_cell_at(t, r, c)->value : NAN;
	return NAN;
}

static void cell(FILE *f, const char *s)
{
	fputs("<td>", f);
	bench_html_text(f, s);
	fputs("</td>", f);
}

static void cellf(FILE *f, double v, const char *fmt)
{
	char buf[64];
	if (isnan(v))
		snprintf(buf, sizeof(buf), "n/a");
	else
		snprintf(buf, sizeof(buf), fmt, v);
	cell(f, buf);
}

static void head_row(FILE *f, const char *const *cols, size_t n)
{
	fputs("<thead><tr>", f);
	for (size_t i = 0; i < n; i++) {
		fputs("<th>", f);
		bench_html_text(f, cols[i]);
		fputs("</th>", f);
	}
	fputs("</tr></thead><tbody>\n", f);
}

static void published_caption(FILE *f, const struct bench_published *p)
{
	fprintf(f, "<p class=\"src\">Published: <b>");
	bench_html_text(f, p->thread);
	fprintf(f, "</b>, %s; %s. ", p->author, p->host);
	bench_html_text(f, p->what);
	fprintf(f, ".</p>\n");
}

/* The thread's rows with this host's figures in the columns beside them. */
static void beside_batch(FILE *f, const struct bench_published *p,
			 const struct bench_report_part *part)
{
	const struct bench_table *t = find_table(part, "batch: GB/s (median", BT_DATA);
	static const char *const cols[] = { "batch", "published rep stosb GB/s",
		"published L1-dcache-loads/64B", "this host rep_stosb GB/s", "this host best kernel",
		"this host L1-dcache-loads/64B (rep_stosb)" };
	static const char *const ours[] = { "8M", "8M", "32M", "64M", "whole" };
	fprintf(f, "<table class=\"beside\">");
	head_row(f, cols, 6);
	for (size_t r = 0; r < p->nrows && r < 5; r++) {
		fputs("<tr>", f);
		cell(f, p->rows[r][0]);
		cell(f, p->rows[r][1]);
		cell(f, p->rows[r][2]);
		cellf(f, lookup(t, "kernel", "rep_stosb", "batch", ours[r], "median_gbs"), "%.2f");
		char best[64] = "n/a";
		double bv = 0;
		for (size_t i = 0; t && i < t->nrows; i++)
			if (!strcmp(bench_cell_at(t, i, 1)->text, ours[r]) &&
			    bench_cell_at(t, i, 3)->value > bv) {
				bv = bench_cell_at(t, i, 3)->value;
				snprintf(best, sizeof(best), "%.30s %.2f", bench_cell_at(t, i, 0)->text, bv);
			}
		cell(f, best);
		cellf(f, lookup(t, "kernel", "rep_stosb", "batch", ours[r], "l1d_loads_per_64B"),
		      "%.3f");
		fputs("</tr>\n", f);
	}
	fprintf(f, "</tbody></table>\n");
	if (!t || isnan(lookup(t, "kernel", "rep_stosb", "batch", "8M", "median_gbs")))
		fprintf(f, "<p>(rep_stosb or the 8M batch was not measured here: the region is "
			   "smaller or the kernel is not usable.)</p>\n");
}

static void beside_walk(FILE *f, const struct bench_published *p,
			const struct bench_report_part *part)
{
	const struct bench_table *t = find_table(part, "walk", BT_DATA);
	static const char *const cols[] = { "walk", "published i7-8700 us", "published SM8150 us",
					    "this host memset us", "this host / one shot" };
	static const char *const walks[] = { "oneshot", "forward", "reverse" };
	(void)p;
	fprintf(f, "<table class=\"beside\">");
	head_row(f, cols, 5);
	for (size_t w = 0; w < 3; w++) {
		char col[32];
		snprintf(col, sizeof(col), "%s_us", walks[w]);
		double us = lookup(t, "contender", "memset", NULL, NULL, col);
		double one = lookup(t, "contender", "memset", NULL, NULL, "oneshot_us");
		fputs("<tr>", f);
		cell(f, walks[w]);
		cell(f, p->rows[1][1 + w]);
		cell(f, p->rows[0][1 + w]);
		cellf(f, us, "%.0f");
		cellf(f, us / one, "%.2f");
		fputs("</tr>\n", f);
	}
	fprintf(f, "</tbody></table>\n");
}

static void beside_latency(FILE *f, const struct bench_published *p,
			   const struct bench_report_part *part, int first)
{
	const struct bench_table *t = find_table(part, "latency: clearing", BT_DATA);
	static const char *const cols[] = { "clearing", "published CPU0 us", "published CPU6 us",
		"this host rep_stosb us (median)", "this host auto us (median)" };
	static const char *const modes[] = { "page-at-a-time", "one shot" };
	fprintf(f, "<table class=\"beside\">");
	head_row(f, cols, first ? 5 : 3);
	for (size_t r = 0; r < p->nrows && r < 2; r++) {
		fputs("<tr>", f);
		cell(f, p->rows[r][0]);
		cell(f, p->rows[r][1]);
		cell(f, p->rows[r][2]);
		if (first) {
			char buf[64];
			const char *who[] = { "rep_stosb", "auto" };
			for (size_t k = 0; k < 2; k++) {
				double m = lookup(t, "contender", who[k], "mode", modes[r], "mean_us");
				double sd = lookup(t, "contender", who[k], "mode", modes[r], "stddev_us");
				double p50 = lookup(t, "contender", who[k], "mode", modes[r], "p50_us");
				/* the median too: a preempted sample moves the mean on a shared VM */
				snprintf(buf, sizeof(buf), isnan(m) ? "n/a" : "%.1f +- %.1f (p50 %.1f)", m,
					 sd, p50);
				cell(f, buf);
			}
		}
		fputs("</tr>\n", f);
	}
	fprintf(f, "</tbody></table>\n");
}

static void beside_fault(FILE *f, const struct bench_published *p,
			 const struct bench_report_part *part)
{
	const struct bench_table *t = find_table(part, "fault", BT_DATA);
	static const char *const cols[] = { "order", "published stime", "published utime",
		"this host stime ms", "this host utime ms", "this host total / page-at-a-time" };
	static const char *const ours[] = { "page-at-a-time", "sequential", "batched",
					    "neighbourhood-last" };
	double base = lookup(t, "order", ours[0], "phase", "orders", "total_ms");
	fprintf(f, "<table class=\"beside\">");
	head_row(f, cols, 6);
	for (size_t r = 0; r < p->nrows && r < 4; r++) {
		fputs("<tr>", f);
		cell(f, p->rows[r][0]);
		cell(f, p->rows[r][1]);
		cell(f, p->rows[r][2]);
		cellf(f, lookup(t, "order", ours[r], "phase", "orders", "stime_ms"), "%.2f");
		cellf(f, lookup(t, "order", ours[r], "phase", "orders", "utime_ms"), "%.2f");
		cellf(f, lookup(t, "order", ours[r], "phase", "orders", "total_ms") / base, "%.2f");
		fputs("</tr>\n", f);
	}
	fprintf(f, "</tbody></table>\n");
}

static void published_section(FILE *f, const struct bench_report_part *part)
{
	const struct bench_published *p;
	size_t n = bench_published_for(part->scenario, &p);
	if (!n)
		return;
	fprintf(f, "<h3>Beside the published figures</h3>\n");
	for (size_t i = 0; i < n; i++) {
		published_caption(f, &p[i]);
		if (!strcmp(part->scenario, "batch"))
			beside_batch(f, &p[i], part);
		else if (!strcmp(part->scenario, "walk"))
			beside_walk(f, &p[i], part);
		else if (!strcmp(part->scenario, "latency"))
			beside_latency(f, &p[i], part, i == 0);
		else if (!strcmp(part->scenario, "fault"))
			beside_fault(f, &p[i], part);
	}
}

static void table_html(FILE *f, const struct bench_table *t)
{
	/* long machine-readable tables fold away; the printed ones stay open */
	int fold = !(t->flags & BT_TEXT);
	if (fold)
		fprintf(f, "<details><summary>%s (%zu rows, as in the CSV)</summary>\n", t->title,
			t->nrows);
	else {
		fprintf(f, "<p class=\"caption\">");
		bench_html_text(f, t->title);
		fprintf(f, "</p>\n");
	}
	fprintf(f, "<table class=\"data\">");
	const char *cols[BENCH_MAX_COLS];
	for (size_t c = 0; c < t->ncols; c++)
		cols[c] = t->cols[c];
	head_row(f, cols, t->ncols);
	for (size_t r = 0; r < t->nrows; r++) {
		fputs("<tr>", f);
		for (size_t c = 0; c < t->ncols; c++) {
			const char *s = bench_cell_at(t, r, c)->text;
			size_t l = strlen(s);
			if (l && s[l - 1] == '*') {   /* the best of the row */
				fputs("<td class=\"best\">", f);
				bench_html_text(f, s);
				fputs("</td>", f);
			} else {
				cell(f, s);
			}
		}
		fputs("</tr>\n", f);
	}
	fprintf(f, "</tbody></table>\n%s", fold ? "</details>\n" : "");
}

/* The scenario's plot; sweep's are one per kind of target (NAME-KIND.png)
 * where it wrote them. */
static void plots_html(FILE *f, const char *dir, const char *scenario)
{
	int shown = 0;
	for (size_t k = 0; !strcmp(scenario, "sweep") && k < BK_NKINDS; k++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s-%s.png", dir, scenario, bench_kind_names[k]);
		if (access(path, R_OK))
			continue;
		fprintf(f, "<p><img src=\"%s-%s.png\" alt=\"%s plot, %s\"></p>\n", scenario,
			bench_kind_names[k], scenario, bench_kind_names[k]);
		shown = 1;
	}
	if (!shown)
		fprintf(f, "<p><img src=\"%s.png\" alt=\"%s plot\"></p>\n", scenario, scenario);
}

static const char style[] =
	"body{font-family:sans-serif;margin:1.5em;max-width:1400px;color:#222}"
	"h1{font-size:1.5em}h2{margin-top:2em;border-bottom:1px solid #ccc}"
	"table{border-collapse:collapse;margin:0.5em 0;font-size:0.85em}"
	"table.data{display:block;overflow-x:auto;max-width:100%}"
	"td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
	"th{background:#f0f0f0}td:first-child,th:first-child{text-align:left}"
	"table.host td,table.host th{text-align:left}"
	"td.best{font-weight:bold;background:#e6f4e6}"
	"table.beside th{background:#fff3d6}"
	".warn{background:#ffd6d6;border:2px solid #c00;padding:0.5em;font-weight:bold}"
	".src{font-size:0.9em}.caption{font-weight:bold;margin-bottom:0}"
	"img{max-width:100%;border:1px solid #ddd}ul.notes{font-size:0.85em;color:#444}";

/* Runs once the page and its images have loaded: the browser test reads
 * the result from #check (and the title). */
static const char check_script[] =
	"<script>\n"
	"window.addEventListener('load', function () {\n"
	"  var imgs = document.images, bad = [], empty = 0, tables = document.querySelectorAll('table');\n"
	"  for (var i = 0; i < imgs.length; i++)\n"
	"    if (!imgs[i].complete || imgs[i].naturalWidth === 0) bad.push(imgs[i].getAttribute('src'));\n"
	"  for (var j = 0; j < tables.length; j++)\n"
	"    if (tables[j].querySelectorAll('tbody tr').length === 0) empty++;\n"
	"  var ok = bad.length === 0 && empty === 0 && imgs.length > 0 && tables.length > 0;\n"
	"  var e = document.getElementById('check');\n"
	"  e.setAttribute('data-result', ok ? 'ok' : 'fail');\n"
	"  e.textContent = 'page check: ' + (ok ? 'ok' : 'FAILED') + ': ' + imgs.length +\n"
	"    ' images, ' + bad.length + ' not loaded' +\n"
	"    (bad.length ? ' (' + bad.join(', ') + ')' : '') +\n"
	"    '; ' + tables.length + ' tables, ' + empty + ' empty';\n"
	"});\n"
	"</script>\n";

int bench_report_write_html(const struct bench_opts *opts, const char *dir,
			    const struct bench_report_part *parts, size_t nparts)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/index.html", dir);
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "clearbench: report: cannot write %s: %s\n", path, strerror(errno));
		return 1;
	}
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		   "<title>clearbench report: %s</title>\n<style>%s</style></head><body>\n",
		bench_plot_host(), style);
	if (opts->emulated)
		fprintf(f, "<p class=\"warn\">WARNING: %s.</p>\n", bench_emulated_warning);
	fprintf(f, "<h1>clearbench report</h1>\n");
	bench_header_html(f, opts);
	fprintf(f, "<p>%s run; GB/s = 10<sup>9</sup> bytes/s; figures are medians over rounds "
		   "that visit the contenders in a new random order, each warmed up first. This "
		   "host's figures stand beside the Linux threads' published ones: other machines, "
		   "so compare shapes and ratios, not absolute numbers.</p>\n",
		opts->quick ? "A quick (--quick)" : "A full");
	fprintf(f, "<ul>");
	for (size_t i = 0; i < nparts; i++)
		fprintf(f, "<li><a href=\"#%s\">%s</a>%s (%.0f s)</li>", parts[i].scenario,
			about_of(parts[i].scenario, 1), parts[i].rc ? " FAILED" : "",
			parts[i].seconds);
	fprintf(f, "</ul>\n");
	for (size_t i = 0; i < nparts; i++) {
		const struct bench_report_part *p = &parts[i];
		fprintf(f, "<h2 id=\"%s\">%s</h2>\n<p>%s</p>\n", p->scenario, about_of(p->scenario, 1),
			about_of(p->scenario, 0));
		if (p->rc) {
			fprintf(f, "<p class=\"warn\">%s failed (exit status %d): see "
				   "<a href=\"%s.txt\">%s.txt</a>.</p>\n", p->scenario, p->rc,
				p->scenario, p->scenario);
			continue;
		}
		published_section(f, p);
		if (p->has_plot)
			plots_html(f, dir, p->scenario);
		for (size_t t = 0; t < p->cap.ntables; t++)
			table_html(f, p->cap.tables[t]);
		fprintf(f, "<ul class=\"notes\">");
		for (size_t n = 0; n < p->cap.nnotes; n++) {
			fputs("<li>", f);
			bench_html_text(f, p->cap.notes[n]);
			fputs("</li>", f);
		}
		fprintf(f, "</ul>\n<p>Files: <a href=\"%s.txt\">%s.txt</a>, <a href=\"%s.csv\">%s.csv"
			   "</a>, <a href=\"%s.json\">%s.json</a>%s</p>\n", p->scenario, p->scenario,
			p->scenario, p->scenario, p->scenario, p->scenario,
			p->has_plot ? ", and the plot above" : "");
	}
	fprintf(f, "<p id=\"check\" data-result=\"pending\">page check: pending</p>\n%s"
		   "</body></html>\n", check_script);
	if (fclose(f)) {
		fprintf(stderr, "clearbench: report: error writing %s: %s\n", path, strerror(errno));
		return 1;
	}
	return 0;
}
