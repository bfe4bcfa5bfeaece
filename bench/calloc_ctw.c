/* SPDX-License-Identifier: MIT */
/*
 * clearbench calloc's second table, clear then write with no allocator (what a calloc whose
 * caller writes next should pick), and the ratio cells both tables use.
 */
#include <string.h>
#include "calloc.h"
#include "contenders.h"
#include "map.h"
#include "opts.h"
#include "stats.h"
#include "table.h"

/* The per-pair ratios num/den: median, and with `spread` their quartiles and min-max. */
void calloc_ratio_cells(struct bench_table *t, const double *num, const double *den, size_t n,
			int spread)
{
	double q[CALLOC_MAX_SAMPLES];
	for (size_t i = 0; i < n; i++)
		q[i] = num[i] / den[i];
	char cell[40];
	bench_cell_num(t, bench_median(q, n), "%.3f");
	if (!spread)
		return;
	snprintf(cell, sizeof(cell), "%.2f-%.2f", bench_percentile(q, n, 25),
		 bench_percentile(q, n, 75));
	bench_cell_str(t, cell);
	snprintf(cell, sizeof(cell), "%.2f-%.2f", bench_min(q, n), bench_max(q, n));
	bench_cell_str(t, cell);
}

/* Clear then write on reused (faulted-in) memory, no allocator: what calloc's caller does
 * next decides between the temporal (hot) and the non-temporal (cold) kernel. */
enum { CTW_HOT, CTW_COLD, CTW_AUTO, CTW_MEMSET, NCTW };

static void clear_then_write(int how, void *buf, size_t bytes)
{
	if (how == CTW_HOT)
		cp_zero(buf, bytes, CP_ZERO_HOT);
	else if (how == CTW_COLD)
		cp_zero(buf, bytes, CP_ZERO_COLD);
	else if (how == CTW_AUTO)
		cp_zero(buf, bytes, 0);
	else
		bench_memset_zero(buf, bytes);
	memset(buf, 0x5a, bytes);
}

struct bench_table *calloc_ctw_table(const struct bench_opts *opts, const size_t *sizes,
				     size_t nsizes, size_t rounds)
{
	static const char *const cols[] = { "block", "hot", "cold", "auto", "memset",
					    "hot/cold", "hot/cold q1-q3", "hot/cold min-max" };
	size_t top = 0, budget = opts->quick ? (8u << 20) : (64u << 20);
	for (size_t i = 0; i < nsizes; i++)
		top = sizes[i] > top ? sizes[i] : top;
	unsigned char *buf = top ? bench_map(top) : NULL;
	if (!buf)
		return NULL;
	struct bench_table *t = bench_table_new("clear then write (reused memory, no allocator): "
						"GB/s of the clear + write, median", BT_TEXT | BT_DATA,
						8, cols);
	uint64_t rng = 0x853c49e6748fea9bull;
	for (size_t si = 0; si < nsizes; si++) {
		size_t bytes = sizes[si], reps = budget / bytes ? budget / bytes : 1;
		double g[NCTW][CALLOC_MAX_ROUNDS];
		size_t order[NCTW] = { 0, 1, 2, 3 };
		if (!bytes)
			continue;
		for (size_t r = 0; r < rounds; r++) {
			bench_shuffle(order, NCTW, &rng);
			for (size_t i = 0; i < NCTW; i++) {
				clear_then_write((int)order[i], buf, bytes);   /* warm-up */
				double t0 = bench_thread_cpu_now();
				for (size_t k = 0; k < reps; k++)
					clear_then_write((int)order[i], buf, bytes);
				g[order[i]][r] = bench_gbs(bytes * reps, bench_thread_cpu_now() - t0);
			}
		}
		char blk[16];
		bench_table_row(t);
		bench_cell_str(t, bench_size_str(bytes, blk, sizeof(blk)));
		for (size_t i = 0; i < NCTW; i++)
			bench_cell_num(t, bench_median(g[i], rounds), "%.2f");
		calloc_ratio_cells(t, g[CTW_HOT], g[CTW_COLD], rounds, 1);
	}
	bench_unmap(buf, top);
	return t;
}

