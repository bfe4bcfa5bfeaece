/* SPDX-License-Identifier: MIT */
/* The report's page (report_html.c). */
#ifndef CLEARBENCH_REPORT_H
#define CLEARBENCH_REPORT_H

#include <stddef.h>
#include "opts.h"
#include "table.h"

struct bench_report_part {
	const char *scenario;
	int rc;                    /* the scenario's exit status */
	double seconds;
	int has_plot;
	struct bench_capture cap;
};
/* DIR/index.html from the parts; 0 or 1. */
int bench_report_write_html(const struct bench_opts *opts, const char *dir,
			    const struct bench_report_part *parts, size_t nparts);

#endif
