/* SPDX-License-Identifier: MIT */
/* The Linux threads' figures each scenario reproduces (published.c). */
#ifndef CLEARBENCH_PUBLISHED_H
#define CLEARBENCH_PUBLISHED_H

#include <stddef.h>

struct bench_published {
	const char *scenario;
	const char *thread;        /* the thread's subject */
	const char *author;
	const char *host;          /* the machine it was measured on */
	const char *what;          /* the experiment */
	size_t nrows, ncols;
	const char *cols[6];
	const char *rows[8][6];    /* as published */
};
/* The published tables of a scenario, or 0. */
size_t bench_published_for(const char *scenario, const struct bench_published **out);

#endif
