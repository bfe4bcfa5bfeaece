/* SPDX-License-Identifier: MIT */
/*
 * tune's residency threshold, from the estimate's own timed chunks
 * (common/residency.h): the first chunk of a batch, cleared by the kernel a
 * plan at 4 MiB times its chunks with (cp__chunk_kernel) and timed between the library's
 * counter reads, on a 4 MiB buffer just cleared (past the L2s seen, inside
 * every LLC: the target the estimate must still call cached) and on slots of
 * the cold pool. The threshold is the geometric mean of the hot chunks' p90
 * rate and the cold ones' p10 (derive_chunk_threshold). Streaming rates are
 * not what a chunk sees: on the Zen 4 VM they gave 52000 MB/s, which called
 * 9-35 % of cached chunks uncached; the chunks give 20000.
 */
#include <stdlib.h>
#include <string.h>
#include "introspect.h"
#include "map.h"
#include "opts.h"
#include "stats.h"
#include "targets.h"
#include "tune.h"

#define CHUNK_TRIES       201
#define CHUNK_TRIES_QUICK 51
#define HOT_PAGES         1024     /* 4 MiB */

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
	return x < y ? -1 : x > y;
}

static double quantile(unsigned long long *v, size_t n, unsigned pct)
{
	qsort(v, n, sizeof(*v), cmp_ull);
	return (double)v[(n - 1) * pct / 100];
}

void tune_chunks_measure(const struct bench_opts *opts, struct bench_pool *pool,
			 struct tune_chunks *out)
{
	memset(out, 0, sizeof(*out));
	struct bench_host host;
	bench_host_get(&host);
	if (pool->bytes < 4 * host.llc_bytes) {
		/* its slots may still be cached: a threshold between two cached
		 * rates (an 8 MiB pool on Zen 4 gave 32524-40201 against 23450) */
		out->pool_bytes = pool->bytes;
		out->llc_bytes = host.llc_bytes;
		return;
	}
	size_t pages = bench_chunk_pages(&out->hz);
	const struct cp_kernel *k = bench_chunk_kernel(HOT_PAGES, pages);
	size_t n = opts->quick ? CHUNK_TRIES_QUICK : CHUNK_TRIES;
	unsigned long long ticks[CHUNK_TRIES];
	char *hot = pages ? bench_map((size_t)HOT_PAGES * CP_PAGE_SIZE) : NULL;
	if (!hot)
		return;
	bench_progress("tune: timing %zu KiB chunks, hot and cold", pages * CP_PAGE_SIZE >> 10);
	for (size_t i = 0; i < n; i++) {
		/* as the library clears it: in calls that keep the lines (one
		 * 4 MiB rep stos call on AMD may not) */
		cp_zero(hot, (size_t)HOT_PAGES * CP_PAGE_SIZE, CP_ZERO_HOT);
		ticks[i] = bench_time_chunk(k, hot, pages);
	}
	out->hot_p90 = quantile(ticks, n, 90);
	bench_unmap(hot, (size_t)HOT_PAGES * CP_PAGE_SIZE);
	for (size_t i = 0; i < n; i++)
		ticks[i] = bench_time_chunk(k, bench_pool_next(pool, pages * CP_PAGE_SIZE), pages);
	out->cold_p10 = quantile(ticks, n, 10);
	out->chunk_bytes = pages * CP_PAGE_SIZE;
	out->kernel = k->name;
}
