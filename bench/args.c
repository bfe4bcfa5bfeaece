/* SPDX-License-Identifier: MIT */
/*
 * The option values of clearbench's command line (clearbench.c runs the
 * parser): counts, sizes, comma-separated lists, kernels, kinds of target,
 * populate's states and mappings; the output files writable. Each bad value gives
 * one line on stderr and 2, the exit status for bad input.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <libgen.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "args.h"
#include "header.h"
#include "populate.h"
#include "stats.h"
#include "table.h"
#include "targets.h"

int bench_arg_bad(const char *opt, const char *val, const char *why)
{
	fprintf(stderr, "clearbench: %s '%s': %s\n", opt, val, why);
	return 2;
}

int bench_arg_count(const char *opt, const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (!*s || *s == '-' || *end || errno || v == 0 || v > max) {
		char why[64];
		snprintf(why, sizeof(why), "want a whole number from 1 to %lu", max);
		return bench_arg_bad(opt, s, why);
	}
	*out = v;
	return 0;
}

/* A size of whole pages, at most max. */
int bench_arg_extent(const char *opt, const char *s, size_t max, size_t *out)
{
	if (bench_parse_size(s, out) || *out == 0)
		return bench_arg_bad(opt, s, "want a size such as 4k, 2M or 1G");
	if (*out % CP_PAGE_SIZE)
		return bench_arg_bad(opt, s, "not a multiple of 4 KiB");
	if (*out > max)
		return bench_arg_bad(opt, s, max == BENCH_MAX_MEMORY ? "larger than the 2 GiB this "
				     "benchmark maps at most" : "larger than the 64 GiB populate maps "
				     "at most");
	return 0;
}

/* Comma-separated tokens; an empty one ("4k,,8k", ",4k", "4k,") is an error. */
static int split_list(const char *opt, char *list, char **tok, size_t max, size_t *n)
{
	char whole[512];
	snprintf(whole, sizeof(whole), "%s", list);
	*n = 0;
	for (char *p = list;; p++) {
		if (*n == max)
			return bench_arg_bad(opt, whole, "too many items");
		tok[(*n)++] = p;
		p = strchr(p, ',');
		if (p)
			*p = '\0';
		if (!tok[*n - 1][0])
			return bench_arg_bad(opt, whole, "empty item in the list");
		if (!p)
			return 0;
	}
}

int bench_arg_sizes(char *list, struct bench_opts *o)
{
	char *tok[BENCH_MAX_SIZES + 1];
	size_t n;
	if (split_list("--sizes", list, tok, BENCH_MAX_SIZES, &n))
		return 2;
	for (size_t i = 0; i < n; i++)
		if (bench_arg_extent("--sizes", tok[i], BENCH_MAX_POPULATE, &o->sizes[i]))
			return 2;
	o->nsizes = n;
	return 0;
}

/* A list of thread counts; only populate takes more than one (checked later). */
int bench_arg_threads(char *list, struct bench_opts *o)
{
	char *tok[BENCH_MAX_THREAD_COUNTS + 1];
	size_t n;
	unsigned long v;
	if (split_list("--threads", list, tok, BENCH_MAX_THREAD_COUNTS, &n))
		return 2;
	for (size_t i = 0; i < n; i++) {
		if (bench_arg_count("--threads", tok[i], 1024, &v))
			return 2;
		o->thread_counts[i] = (unsigned)v;
	}
	o->nthread_counts = n;
	o->threads = o->thread_counts[0];
	return 0;
}

int bench_arg_kernels(char *list, struct bench_opts *o)
{
	char *tok[BENCH_MAX_KERNELS + 1];
	size_t n;
	if (split_list("--kernel", list, tok, BENCH_MAX_KERNELS, &n))
		return 2;
	o->nkernels = 0;
	for (size_t i = 0; i < n; i++) {
		const struct cp_kernel *k = cp_kernel_find(tok[i]);
		if (!k)
			return bench_arg_bad("--kernel", tok[i],
					     "not a usable kernel here (see the header's list)");
		o->kernels[o->nkernels++] = k;
	}
	o->kernels_given = 1;
	return 0;
}

/* --target and --mapping, once the scenario is known: populate's targets are
 * states of fresh memory, every other scenario's kinds of cached memory. */
int bench_arg_targets(const char *list, int populate, struct bench_opts *o)
{
	char tok[32], *t[BK_NKINDS + 1], copy[128];
	size_t n;
	snprintf(copy, sizeof(copy), "%s", list);
	if (split_list("--target", copy, t, BK_NKINDS + 1, &n))   /* empty items */
		return 2;
	if (populate && bench_populate_parse(list, 0, &o->states, tok, sizeof(tok)))
		return bench_arg_bad("--target", tok, "want fresh, half or full");
	if (!populate && bench_parse_targets(list, &o->targets, tok, sizeof(tok)))
		return bench_arg_bad("--target", tok, "want hot, cold or use");
	return 0;
}

int bench_arg_mappings(const char *list, struct bench_opts *o)
{
	char tok[32], *t[BM_NMAPPINGS + 1], copy[128];
	size_t n;
	snprintf(copy, sizeof(copy), "%s", list);
	if (split_list("--mapping", copy, t, BM_NMAPPINGS + 1, &n))
		return 2;
	if (bench_populate_parse(list, 1, &o->mappings, tok, sizeof(tok)))
		return bench_arg_bad("--mapping", tok, "want 4k or thp");
	return 0;
}

/* What only some scenarios take: more than one thread count, sizes past 2 GiB. */
int bench_arg_check_scenario(const char *scenario, const char *threads_arg,
			      const struct bench_opts *o)
{
	char s[16];
	if (!strcmp(scenario, "populate"))
		return 0;
	if (o->nthread_counts > 1)
		return bench_arg_bad("--threads", threads_arg,
				     "want one count (only populate takes a list)");
	for (size_t i = 0; i < o->nsizes; i++)
		if (o->sizes[i] > BENCH_MAX_MEMORY)
			return bench_arg_bad("--sizes", bench_size_str(o->sizes[i], s, sizeof(s)),
				   "larger than the 2 GiB this benchmark maps at most");
	return 0;
}

#define POOL_MAX ((size_t)64 << 30)

int bench_arg_pool(const char *s, struct bench_opts *o)
{
	if (bench_parse_size(s, &o->pool) || o->pool < ((size_t)2 << 20) || o->pool > POOL_MAX)
		return bench_arg_bad("--pool", s, "want a size from 2M to 64G");
	return 0;
}

/* Before the run: an existing regular file we may write, or a new name in a
 * folder we may write; 0, or 2 after one line. */
static int check_writable(const char *opt, const char *path)
{
	struct stat st;
	char dir[4096];
	if (!path[0]) {
		fprintf(stderr, "clearbench: %s '': want a file name\n", opt);
		return 2;
	}
	if (stat(path, &st) == 0) {
		if (!S_ISREG(st.st_mode) || access(path, W_OK)) {
			fprintf(stderr, "clearbench: %s '%s': %s\n", opt, path,
				S_ISREG(st.st_mode) ? "not writable" : "not a regular file");
			return 2;
		}
		return 0;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	const char *d = dirname(dir);
	if (stat(d, &st) || !S_ISDIR(st.st_mode) || access(d, W_OK | X_OK)) {
		fprintf(stderr, "clearbench: %s '%s': folder %s %s\n", opt, path, d,
			stat(d, &st) ? "does not exist" : "is not a writable folder");
		return 2;
	}
	return 0;
}

int bench_check_outputs(const struct bench_opts *opts)
{
	char buf[4096];
	if (opts->csv_path && check_writable("--csv", bench_csv_path(opts->csv_path, NULL, 0,
								      buf, sizeof(buf))))
		return 2;
	if (opts->json_path && check_writable("--json", opts->json_path))
		return 2;
	if (opts->plot_path && check_writable("--plot", opts->plot_path))
		return 2;
	if (opts->samples_path && check_writable("--samples", opts->samples_path))
		return 2;
	struct stat st;
	/* report's folder: one we may write in, or a new one in such a folder
	 * (tune's --out is a file: tune checks it itself) */
	if (opts->out_path && opts->out_is_folder &&
	    (stat(opts->out_path, &st) || !S_ISDIR(st.st_mode)) &&
	    check_writable("--out", opts->out_path))
		return 2;
	if (opts->out_path && opts->out_is_folder && stat(opts->out_path, &st) == 0 &&
	    (!S_ISDIR(st.st_mode) || access(opts->out_path, W_OK | X_OK))) {
		fprintf(stderr, "clearbench: --out '%s': not a writable folder\n", opts->out_path);
		return 2;
	}
	return 0;
}
