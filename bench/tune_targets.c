/* SPDX-License-Identifier: MIT */
/*
 * tune on cold and use targets (targets.c). Callers mostly clear memory that
 * is not cached, and the library decides by where the memory is (common/
 * residency.h): so tune measures every kernel there too, and the profile
 * takes two things from it. The uncached bands (cp_clear_pages on memory not
 * in the caches) are fitted to the use figures: that call does not know
 * whether the memory will be used, and a caller who fills it right after
 * loses most to non-temporal stores at small extents (on the Intel VM:
 * temporal won to 1 MiB, non-temporal from 4 MiB), while a cold-only fit
 * would go non-temporal from 4 KiB. The residency threshold comes from the
 * estimate's own chunks, timed hot and on the cold pool (tune_chunks.c).
 * Tables per kind show the tuned and the default uncached kernels against
 * the fastest.
 */
#include <stdlib.h>
#include <string.h>
#include "contenders.h"
#include "derive.h"
#include "opts.h"
#include "rounds.h"
#include "stats.h"
#include "table.h"
#include "targets.h"
#include "tune.h"

int tune_targets_measure(const struct bench_opts *opts, const struct tune *t,
			 struct tune_targets *m)
{
	struct bench_pool pool;
	size_t top = t->in.pages[t->in.nsizes - 1] * CP_PAGE_SIZE;
	memset(m, 0, sizeof(*m));
	unsigned kinds = (opts->targets ? opts->targets : BK_ALL) & ~(1u << BK_HOT);
	if (!kinds)
		return 0;
	if (bench_pool_open(&pool, bench_pool_size(opts, top, 1, m->why, sizeof(m->why))))
		return 1;
	m->kinds = kinds;
	m->pool_bytes = pool.bytes;
	struct bench_contender c[DERIVE_MAX_KERNELS];
	for (size_t k = 0; k < t->in.nkernels; k++)
		bench_contender_batched(&c[k], t->k[k], 0, 0);
	for (unsigned kind = BK_COLD; kind < BK_NKINDS; kind++)
		for (size_t i = 0; i < t->in.nsizes && (kinds & 1u << kind); i++) {
			size_t bytes = t->in.pages[i] * CP_PAGE_SIZE;
			char ext[16];
			bench_progress("tune %s: %s (%zu/%zu)", bench_kind_names[kind],
				       bench_size_str(bytes, ext, sizeof(ext)), i + 1, t->in.nsizes);
			struct bench_rounds cfg = bench_rounds_for_kind(opts, bytes, kind, &pool);
			double *samples = bench_sample(c, t->in.nkernels, NULL, bytes, &cfg);
			for (size_t k = 0; k < t->in.nkernels; k++)
				m->cell[kind][i][k] = tune_cell_of(&samples[k * cfg.rounds],
								   cfg.rounds, bytes);
			free(samples);
		}
	if (kinds & 1u << BK_COLD)
		tune_chunks_measure(opts, &pool, &m->chunks);
	bench_pool_close(&pool);
	return 0;
}

int tune_uncached_input(const struct tune *t, const struct tune_targets *m,
			struct derive_input *out)
{
	if (!(m->kinds & 1u << BK_USE))
		return -1;
	*out = t->in;
	memcpy(out->cell, m->cell[BK_USE], sizeof(out->cell));
	memcpy(out->default_kernel, t->default_uncached, sizeof(out->default_kernel));
	/* no kernel was measured twice here: the intervals and the floor stand alone */
	memset(out->size_noise, 0, sizeof(out->size_noise));
	return 0;
}

unsigned tune_cached_min_mbps(const struct tune_targets *m, char *comment, size_t len)
{
	const struct tune_chunks *c = &m->chunks;
	size_t l = strlen(comment);
	if (c->pool_bytes)
		snprintf(comment + l, len - l, "# cached_min_mbps: the pool (%zu MiB) is under 4x the "
			 "LLC (%zu MiB), its slots may be cached:\n# no line, the defaults' threshold "
			 "stands\n", c->pool_bytes >> 20, c->llc_bytes >> 20);
	if (!c->chunk_bytes)
		return 0;
	unsigned mbps = derive_chunk_threshold(c->hot_p90, c->cold_p10, (double)c->hz,
					       c->chunk_bytes);
	snprintf(comment + l, len - l, "# cached_min_mbps: %zu KiB chunks cleared by %s, %.0f "
		 "ticks (p90) on a 4M buffer just cleared,\n# %.0f (p10) on cold slots, at %.3f "
		 "GHz: %s\n", c->chunk_bytes >> 10, c->kernel, c->hot_p90, c->cold_p10,
		 (double)c->hz / 1e9, mbps ? "the geometric mean of their rates" :
		 "not 1.5x apart (a pool small enough to\n# stay cached, or a coarse counter): "
		 "no line, the defaults' threshold stands");
	return mbps;
}

static struct bench_table *kind_table(enum bench_kind kind, const struct tune *t)
{
	const char *cols[BENCH_MAX_COLS] = { "extent" };
	char title[160];
	size_t n = 1;
	for (size_t k = 0; k < t->in.nkernels; k++)
		cols[n++] = t->k[k]->name;
	static const char *const tail[] = { "best", "tuned", "tuned/best", "default",
					    "default/best" };
	for (size_t i = 0; i < 5; i++)
		cols[n++] = tail[i];
	snprintf(title, sizeof(title), "tune, %s target: GB/s median per kernel; the tuned and "
		 "the default uncached kernels against the fastest", bench_kind_names[kind]);
	struct bench_table *tb = bench_table_new(title, BT_TEXT | BT_DATA, n, cols);
	bench_table_csv_suffix(tb, bench_kind_names[kind]);
	return tb;
}

/* A kernel's name and its median over the fastest's (n/a: not a measured kernel). */
static void pick_cells(struct bench_table *tb, const struct tune *t, const struct derive_cell *row,
		       int pick, size_t best)
{
	if (pick < 0) {
		bench_cell_na(tb);
		bench_cell_na(tb);
		return;
	}
	bench_cell_str(tb, t->k[pick]->name);
	bench_cell_num(tb, row[pick].median / row[best].median, "%.2f");
}

size_t tune_targets_tables(const struct tune *t, const struct tune_targets *m,
			   const int *tuned_uncached, struct bench_table **out, char *note,
			   size_t notelen)
{
	size_t n = 0;
	note[0] = '\0';
	for (unsigned kind = BK_COLD; kind < BK_NKINDS; kind++) {
		if (!(m->kinds & 1u << kind))
			continue;
		struct bench_table *tb = out[n++] = kind_table(kind, t);
		for (size_t i = 0; i < t->in.nsizes; i++) {
			const struct derive_cell *row = m->cell[kind][i];
			char ext[16];
			size_t best = 0;
			bench_table_row(tb);
			bench_cell_str(tb, bench_size_str(t->in.pages[i] * CP_PAGE_SIZE, ext,
							  sizeof(ext)));
			for (size_t k = 0; k < t->in.nkernels; k++) {
				best = row[k].median > row[best].median ? k : best;
				bench_cell_num(tb, row[k].median, "%.2f");
			}
			bench_cell_str(tb, t->k[best]->name);
			pick_cells(tb, t, row, tuned_uncached[i], best);
			pick_cells(tb, t, row, t->default_uncached[i], best);
		}
	}
	if (n)
		snprintf(note, notelen, "%s: every kernel on a %zu MiB pool as the sweep's cold "
			 "and use targets (each pass on another slot; use writes a word per line); "
			 "tuned and default: the kernel cp_clear_pages takes on memory not in the "
			 "caches under the tuned profile and under the defaults. The uncached bands "
			 "are fitted to use, the residency threshold to hot and cold.%s%s",
			 m->kinds == BK_ALL - 1 ? "cold and use" :
			 bench_kind_names[m->kinds & 1u << BK_COLD ? BK_COLD : BK_USE],
			 m->pool_bytes >> 20, m->why[0] ? " " : "", m->why);
	return n;
}
