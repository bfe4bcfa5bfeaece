/* SPDX-License-Identifier: MIT */
/*
 * report: sweep, batch, walk, latency, fault, parallel, zero, copy and populate (its
 * --quick run, always: 64 MiB, one thread and all; tune with --tune)
 * in one run, each scenario's text, CSV, JSON and plot written into --out DIR,
 * then DIR/index.html (report_html.c) showing them beside the figures the
 * Linux threads published. One progress line per scenario on stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "header.h"
#include "json.h"
#include "opts.h"
#include "report.h"
#include "scenarios.h"
#include "stats.h"
#include "table.h"
#include "tune.h"

static const struct {
	const char *name;
	int (*run)(const struct bench_opts *);
	unsigned uses;             /* the report's measuring options it takes */
	int has_plot;
	int always_quick;          /* its short run even in a full report */
} parts[] = {
	{ "sweep", bench_sweep, BO_KERNEL | BO_SIZES | BO_ROUNDS | BO_TARGET | BO_POOL, 1, 0 },
	{ "batch", bench_batch, BO_KERNEL | BO_REGION | BO_ROUNDS, 1, 0 },
	{ "walk", bench_walk, BO_KERNEL | BO_REGION | BO_ROUNDS, 1, 0 },
	{ "latency", bench_latency, BO_KERNEL | BO_REGION | BO_ROUNDS, 1, 0 },
	{ "fault", bench_fault, BO_THREADS | BO_REGION | BO_ROUNDS, 1, 0 },
	{ "parallel", bench_parallel, BO_THREADS | BO_SIZES | BO_ROUNDS, 1, 0 },
	{ "zero", bench_zero, BO_SIZES | BO_ROUNDS, 1, 0 },
	{ "copy", bench_copy, BO_SIZES | BO_ROUNDS | BO_TARGET | BO_POOL, 1, 0 },
	{ "populate", bench_populate, BO_ROUNDS, 1, 1 },
	{ "tune", bench_tune, BO_KERNEL | BO_SIZES | BO_ROUNDS | BO_TARGET | BO_POOL, 0, 0 },
};
#define NPARTS (sizeof(parts) / sizeof(parts[0]))

/* One scenario with its stdout in DIR/NAME.txt. */
static int run_part(const struct bench_opts *opts, size_t i, const char *dir,
		    struct bench_report_part *out)
{
	static char csv[4096], json[4096], plot[4096], txt[4096], profile[4096];
	struct bench_opts o = *opts;
	/* --out is report's folder; tune's profile (when verify passes) goes in it */
	snprintf(profile, sizeof(profile), "%s/tune.profile", dir);
	o.out_path = strcmp(parts[i].name, "tune") ? NULL : profile;
	o.out_is_folder = 0;
	/* the options a scenario does not take fall back to its defaults */
	if (!(parts[i].uses & BO_SIZES))
		o.nsizes = 0;
	if (!(parts[i].uses & BO_REGION))
		o.region = 0;
	if (!(parts[i].uses & BO_THREADS)) {
		o.threads = 0;
		o.nthread_counts = 0;
	}
	if (!(parts[i].uses & BO_POOL))
		o.pool = 0;
	if (!(parts[i].uses & BO_TARGET))
		o.targets = 0;
	o.quick |= parts[i].always_quick;
	snprintf(csv, sizeof(csv), "%s/%s.csv", dir, parts[i].name);
	snprintf(json, sizeof(json), "%s/%s.json", dir, parts[i].name);
	snprintf(plot, sizeof(plot), "%s/%s.png", dir, parts[i].name);
	snprintf(txt, sizeof(txt), "%s/%s.txt", dir, parts[i].name);
	o.csv_path = csv;
	o.json_path = json;
	o.plot_path = parts[i].has_plot ? plot : NULL;

	int fd = open(txt, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		fprintf(stderr, "clearbench: report: cannot write %s: %s\n", txt, strerror(errno));
		return 1;
	}
	fflush(stdout);
	int saved = dup(1);
	dup2(fd, 1);
	close(fd);
	double t0 = bench_now();
	bench_capture_start(&out->cap);
	bench_header(&o, parts[i].name);
	out->rc = parts[i].run(&o);
	bench_capture_stop();
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	out->scenario = parts[i].name;
	out->seconds = bench_now() - t0;
	out->has_plot = parts[i].has_plot && out->rc == 0;
	return out->rc;
}

int bench_report(const struct bench_opts *opts)
{
	static struct bench_report_part done[NPARTS];
	const char *dir = opts->out_path;
	struct stat st;
	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "clearbench: --out '%s': %s\n", dir, strerror(errno));
		return 2;
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode) || access(dir, W_OK | X_OK)) {
		fprintf(stderr, "clearbench: --out '%s': not a writable folder\n", dir);
		return 2;
	}
	size_t total = opts->tune ? NPARTS : NPARTS - 1, n = 0;
	int rc = 0;
	double t0 = bench_now();
	bench_header(opts, "report");
	bench_progress_mute(1);
	for (size_t i = 0; i < total; i++) {
		fprintf(stderr, "clearbench report: [%zu/%zu] %s ...", i + 1, total, parts[i].name);
		int r = run_part(opts, i, dir, &done[n]);
		fprintf(stderr, " %s in %.0f s (total %.0f s)\n", r ? "FAILED" : "done",
			done[n].seconds, bench_now() - t0);
		n++;
		if (r)
			rc = 1;
	}
	bench_progress_mute(0);
	if (bench_report_write_html(opts, dir, done, n))
		rc = 1;
	printf("report: %s/index.html, with each scenario's .txt, .csv, .json and .png beside "
	       "it (%.0f s)%s\n", dir, bench_now() - t0, rc ? "; some scenario FAILED" : "");
	for (size_t i = 0; i < n; i++)
		bench_capture_free(&done[i].cap);
	return rc;
}
