/* SPDX-License-Identifier: MIT */
/*
 * tune on cold and use targets (targets.c): the fit stays on hot figures,
 * but callers mostly clear memory that is not cached, so tune also measures
 * every kernel there and shows what the tuned and the default picks keep of
 * the fastest kernel per kind. Reported only: nothing here enters the profile.
 */
#include <stdlib.h>
#include <string.h>
#include "clearbench.h"
#include "tune_targets.h"

static struct bench_table *kind_table(enum bench_kind kind, const struct tune_targets_in *in)
{
	const char *cols[BENCH_MAX_COLS] = { "extent" };
	char title[160];
	size_t n = 1;
	for (size_t k = 0; k < in->nkernels; k++)
		cols[n++] = in->k[k]->name;
	static const char *const tail[] = { "best", "tuned", "tuned/best", "default",
					    "default/best" };
	for (size_t i = 0; i < 5; i++)
		cols[n++] = tail[i];
	snprintf(title, sizeof(title), "tune, %s target: GB/s median per kernel; the tuned and "
		 "the default picks against the fastest", bench_kind_names[kind]);
	struct bench_table *t = bench_table_new(title, BT_TEXT | BT_DATA, n, cols);
	bench_table_csv_suffix(t, bench_kind_names[kind]);
	return t;
}

static void measure_row(const struct bench_opts *opts, enum bench_kind kind,
			struct bench_pool *pool, const struct tune_targets_in *in, size_t i,
			struct bench_table *t)
{
	struct bench_contender c[BENCH_MAX_KERNELS];
	double med[BENCH_MAX_KERNELS];
	size_t bytes = in->pages[i] * CP_PAGE_SIZE, best = 0, tuned = in->pick[i], def = 0;
	const struct cp_kernel *dk = cp_kernel_for(in->pages[i]);
	char ext[16];
	for (size_t k = 0; k < in->nkernels; k++) {
		bench_contender_batched(&c[k], in->k[k], 0, 0);
		def = in->k[k] == dk ? k : def;
	}
	bench_size_str(bytes, ext, sizeof(ext));
	bench_progress("tune %s: %s (%zu/%zu)", bench_kind_names[kind], ext, i + 1, in->nsizes);
	struct bench_rounds cfg = bench_rounds_for_kind(opts, bytes, kind, pool);
	double *samples = bench_sample(c, in->nkernels, NULL, bytes, &cfg);
	bench_table_row(t);
	bench_cell_str(t, ext);
	for (size_t k = 0; k < in->nkernels; k++) {
		med[k] = bench_gbs(bytes, bench_median(&samples[k * cfg.rounds], cfg.rounds));
		best = med[k] > med[best] ? k : best;
		bench_cell_num(t, med[k], "%.2f");
	}
	free(samples);
	bench_cell_str(t, in->k[best]->name);
	bench_cell_str(t, in->k[tuned]->name);
	bench_cell_num(t, med[tuned] / med[best], "%.2f");
	bench_cell_str(t, dk->name);
	bench_cell_num(t, med[def] / med[best], "%.2f");
}

size_t tune_targets(const struct bench_opts *opts, const struct tune_targets_in *in,
		    struct bench_table **out, char *note, size_t notelen)
{
	unsigned kinds = (opts->targets ? opts->targets : BK_ALL) & ~(1u << BK_HOT);
	struct bench_pool pool;
	char why[160];
	note[0] = '\0';
	size_t n = 0, top = in->pages[in->nsizes - 1] * CP_PAGE_SIZE;
	if (!kinds || bench_pool_open(&pool, bench_pool_size(opts, top, 1, why, sizeof(why))))
		return 0;
	for (unsigned kind = BK_COLD; kind < BK_NKINDS; kind++) {
		if (!(kinds & 1u << kind))
			continue;
		out[n] = kind_table(kind, in);
		for (size_t i = 0; i < in->nsizes; i++)
			measure_row(opts, kind, &pool, in, i, out[n]);
		n++;
	}
	snprintf(note, notelen, "%s: every kernel on a %zu MiB pool as the sweep's cold and "
		 "use targets (each pass on another slot; use writes a word per line), reported "
		 "only: the profile is fitted to hot figures.%s%s", kinds == BK_ALL - 1 ?
		 "cold and use" : bench_kind_names[kinds & 1u << BK_COLD ? BK_COLD : BK_USE],
		 pool.bytes >> 20, why[0] ? " " : "", why);
	bench_pool_close(&pool);
	return n;
}
