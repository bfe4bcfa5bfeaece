/* SPDX-License-Identifier: MIT */
/* The option values of the command line (args.c): each function is 0, or 2
 * after one line on stderr naming the option and the value. */
#ifndef CLEARBENCH_ARGS_H
#define CLEARBENCH_ARGS_H

#include <stddef.h>
#include "opts.h"

/* "clearbench: OPT 'VAL': WHY" on stderr; 2. */
int bench_arg_bad(const char *opt, const char *val, const char *why);
/* A whole number from 1 to max. */
int bench_arg_count(const char *opt, const char *s, unsigned long max, unsigned long *out);
/* A size of whole pages, at most max (BENCH_MAX_MEMORY, or BENCH_MAX_POPULATE). */
int bench_arg_extent(const char *opt, const char *s, size_t max, size_t *out);
/* Comma-separated lists into opts (the list is cut up in place). */
int bench_arg_sizes(char *list, struct bench_opts *o);
int bench_arg_threads(char *list, struct bench_opts *o);
int bench_arg_kernels(char *list, struct bench_opts *o);
/* --target once the scenario is known: populate's states, else hot, cold, use. */
int bench_arg_targets(const char *list, int populate, struct bench_opts *o);
int bench_arg_mappings(const char *list, struct bench_opts *o);
int bench_arg_pool(const char *s, struct bench_opts *o);
/* What only populate takes: a list of thread counts, sizes past 2 GiB. */
int bench_arg_check_scenario(const char *scenario, const char *threads_arg,
			     const struct bench_opts *o);
/* Before the run: can every output of opts be written? */
int bench_check_outputs(const struct bench_opts *opts);

#endif
