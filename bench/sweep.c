/* SPDX-License-Identifier: MIT */
/*
 * sweep: every usable kernel, auto (cp_clear_pages), cold_call (cp_zero
 * with CP_ZERO_COLD), memset and page-at-a-time auto at extents from 4 KiB
 * to 1 GiB, on three kinds of target (targets.c): hot, one buffer again and
 * again; cold, each clear on another slot of a pool not in the cache; use,
 * cold and then written line by line. memset also from a second glibc where
 * one is fetched (the memset users get on Debian 13), on hot targets. Per kind and extent: GB/s median with min and max over
 * interleaved rounds, the best of each row marked, and auto and cold_call
 * against the fastest kernel and auto against each memset, all measured in
 * the same rounds. The tables' output and the plots: sweep_out.c.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "contenders.h"
#include "introspect.h"
#include "map.h"
#include "opts.h"
#include "rounds.h"
#include "scenarios.h"
#include "stats.h"
#include "sweep.h"
#include "table.h"
#include "targets.h"

struct row {
	double med[SWEEP_NCONT], min[SWEEP_NCONT], max[SWEEP_NCONT];
	size_t best;            /* fastest contender of the row, auto and memset included */
	size_t best_kernel;     /* fastest kernel: the baseline of auto/best */
	size_t rounds;
	/* auto and cold_call against best_kernel round by round (sweep_ratios) */
	double paired[2], paired_lo[2], paired_hi[2];
};

/* Contender i against the fastest kernel, the two timed in the same round:
 * the median of the per-round rate ratios and its interval. A neighbour's load
 * on a shared VM slows every contender of a round alike, and cancels here;
 * the ratio of two medians keeps it. */
static void paired_ratio(const double *samples, size_t rounds, size_t i, size_t best,
			 double *med, double *lo, double *hi)
{
	double *ratio = malloc(rounds * sizeof(*ratio));
	if (!ratio)
		abort();
	for (size_t r = 0; r < rounds; r++)   /* samples are times: best's over i's */
		ratio[r] = samples[best * rounds + r] / samples[i * rounds + r];
	*med = bench_median_interval(ratio, rounds, lo, hi);
	free(ratio);
}

/* --samples: a row per timed sample, with its place in the round and the
 * contender timed just before it (what the paired ratios and a contender's
 * spread can be checked against). */
static void write_samples(const struct sweep_kind *k, size_t bytes, const double *samples,
			  const unsigned *place, size_t rounds)
{
	char ext[16];
	bench_size_str(bytes, ext, sizeof(ext));
	size_t who[SWEEP_NCONT];
	for (size_t r = 0; r < rounds; r++) {
		for (size_t i = 0; i < k->n; i++)
			who[place[i * rounds + r]] = i;
		for (size_t i = 0; i < k->n; i++) {
			unsigned at = place[i * rounds + r];
			double s = samples[i * rounds + r];
			fprintf(k->samples, "%s,%s,%zu,%zu,%u,%s,%s,%.9g,%.3f\n",
				bench_kind_names[k->kind], ext, bytes, r, at,
				at ? k->c[who[at - 1]].name : "", k->c[i].name, s,
				bench_gbs(bytes, s));
		}
	}
}

/* c[0 .. nkernels) are the kernels, then the baselines. */
static void measure(const struct sweep_kind *k, size_t nkernels, void *buf, size_t bytes,
		    const struct bench_opts *opts, struct bench_pool *pool, struct row *row)
{
	struct bench_rounds cfg = bench_rounds_for_kind(opts, bytes, k->kind, pool);
	if (k->samples && !(cfg.place = malloc(k->n * cfg.rounds * sizeof(*cfg.place))))
		abort();
	double *samples = bench_sample(k->c, k->n, buf, bytes, &cfg);
	if (cfg.place) {
		write_samples(k, bytes, samples, cfg.place, cfg.rounds);
		free(cfg.place);
	}
	row->best = row->best_kernel = 0;
	row->rounds = cfg.rounds;
	for (size_t i = 0; i < k->n; i++) {
		const double *s = &samples[i * cfg.rounds];
		/* the median time is the median rate; the fastest sample the max rate */
		row->med[i] = bench_gbs(bytes, bench_median(s, cfg.rounds));
		row->min[i] = bench_gbs(bytes, bench_max(s, cfg.rounds));
		row->max[i] = bench_gbs(bytes, bench_min(s, cfg.rounds));
		if (row->med[i] > row->med[row->best])
			row->best = i;
		if (i < nkernels && row->med[i] > row->med[row->best_kernel])
			row->best_kernel = i;
	}
	const size_t who[2] = { k->i_auto, k->i_cold };
	for (size_t w = 0; w < 2; w++) {
		row->paired[w] = row->paired_lo[w] = row->paired_hi[w] = NAN;
		if (who[w] < k->n)
			paired_ratio(samples, cfg.rounds, who[w], row->best_kernel, &row->paired[w],
				     &row->paired_lo[w], &row->paired_hi[w]);
	}
	free(samples);
}

static size_t find(const struct bench_contender *c, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(c[i].name, name))
			return i;
	return n;
}

/* The kind's contenders: all of them on hot. Page-at-a-time auto on hot
 * only (on a cold target it is auto's kernel at one page, which the 4K row
 * shows), and the second libc's memset too: its helper process, on a pool
 * of its own, gave figures the same memset in this process did not. */
static void kind_contenders(struct sweep_kind *k, enum bench_kind kind,
			    const struct bench_contender *all, size_t n)
{
	k->kind = kind;
	k->n = 0;
	for (size_t i = 0; i < n; i++)
		if (kind == BK_HOT || (strcmp(all[i].name, "auto_page") && !all[i].timed))
			k->c[k->n++] = all[i];
	k->i_auto = find(k->c, k->n, "auto");
	k->i_cold = find(k->c, k->n, "cold_call");
	k->i_memset = find(k->c, k->n, "memset");
	k->i_memset2 = k->n;
	for (size_t i = 0; i < k->n; i++)
		if (!strncmp(k->c[i].name, "memset_", 7))
			k->i_memset2 = i;
}

/* What auto and cold_call ran here: untimed calls right after the timed rounds,
 * on targets of the kind, each under the recording policy (introspect.h), so
 * cold_call's per-thread history is the one those rounds left. Below 16 MiB
 * several calls (at most 128, 16 MiB in all): a small cold_call re-times one
 * call in 64 to 256, and those show as a share. */
static void record_ran(const struct bench_opts *opts, const struct sweep_kind *k, void *buf,
		       size_t bytes, struct bench_pool *pool, struct sweep_ratios *q)
{
	const size_t most = (size_t)16 << 20;
	struct bench_rounds cfg = bench_rounds_for_kind(opts, bytes, k->kind, pool);
	cfg.warmup = 0;
	cfg.reps = bytes >= most ? 1 : most / bytes > 128 ? 128 : most / bytes;
	const size_t who[2] = { k->i_auto, k->i_cold };
	char *out[2] = { q->auto_ran, q->cold_ran };
	for (size_t w = 0; w < 2; w++) {
		struct bench_ran ran = { 0 };
		size_t slot = 0;
		if (who[w] < k->n && !bench_record_start()) {
			bench_time_passes(&k->c[who[w]], buf, bytes, &cfg, &slot);
			bench_record_stop(&ran);
		}
		bench_ran_str(&ran, out[w], sizeof(q->auto_ran));
	}
}

static void add_row(struct sweep_kind *k, struct bench_table *data, size_t bytes,
		    const struct row *row)
{
	char ext[16];
	bench_size_str(bytes, ext, sizeof(ext));
	struct sweep_ratios *q = &k->q[k->nsizes];
	q->bytes = bytes;
	q->vs_best = row->med[k->i_auto] / row->med[row->best_kernel];
	q->vs_memset = row->med[k->i_auto] / row->med[k->i_memset];
	q->vs_memset2 = k->i_memset2 < k->n ? row->med[k->i_auto] / row->med[k->i_memset2] : NAN;
	q->cold_vs_best = row->med[k->i_cold] / row->med[row->best_kernel];
	for (size_t w = 0; w < 2; w++) {
		q->paired[w] = row->paired[w];
		q->paired_lo[w] = row->paired_lo[w];
		q->paired_hi[w] = row->paired_hi[w];
	}
	q->fastest = k->c[row->best_kernel].name;
	q->pick = cp_kernel_for(bytes / CP_PAGE_SIZE)->name;
	k->nsizes++;
	sweep_wide_row(k, ext, row->med, row->best);
	for (size_t i = 0; i < k->n; i++)
		sweep_data_row(data, k, ext, bytes, i, row->med[i], row->min[i], row->max[i],
			       i == row->best, row->rounds);
}

static void run_kind(const struct bench_opts *opts, struct sweep_kind *k, const size_t *sizes,
		     size_t nsizes, void *buf, struct bench_pool *pool, struct bench_table *data)
{
	sweep_kind_table(k);
	for (size_t si = 0; si < nsizes; si++) {
		char ext[16];
		struct row row = { 0 };
		bench_progress("sweep %s: %s (%zu/%zu)", bench_kind_names[k->kind],
			       bench_size_str(sizes[si], ext, sizeof(ext)), si + 1, nsizes);
		measure(k, opts->nkernels, buf, sizes[si], opts, pool, &row);
		record_ran(opts, k, buf, sizes[si], pool, &k->q[k->nsizes]);
		add_row(k, data, sizes[si], &row);
	}
}

/* Cold and use share one pool, opened at the first of them. */
static int open_pool(const struct bench_opts *opts, struct sweep *sw, size_t top)
{
	return bench_pool_open_for(&sw->pool, opts, top, sw->pool_why, sizeof(sw->pool_why),
				   &sw->pool_thp_kib);
}

int bench_sweep(const struct bench_opts *opts)
{
	static struct sweep sw;
	memset(&sw, 0, sizeof(sw));
	sw.targets = opts->targets ? opts->targets : BK_ALL;
	int rc = bench_check_pool(opts, sw.targets);
	if (rc)
		return rc;
	sw.n = bench_contenders(opts, 1, sw.c);
	bench_contender_cold_call(&sw.c[sw.n++]);
	sw.i_memset2 = sw.n;
	if (bench_memset_other_libc(opts, &sw.c[sw.n]))
		sw.i_memset2 = sw.n++;
	FILE *samples = NULL;
	if (opts->samples_path) {
		if (!(samples = fopen(opts->samples_path, "w"))) {
			fprintf(stderr, "clearbench: --samples '%s': %s\n", opts->samples_path,
				strerror(errno));
			return 2;
		}
		fprintf(samples, "target,extent,bytes,round,place,after,contender,seconds,gbs\n");
	}
	struct bench_table *data = sweep_data_table(&sw);
	for (unsigned kind = 0; kind < BK_NKINDS && !rc; kind++) {
		if (!(sw.targets & 1u << kind))
			continue;
		struct sweep_kind *k = &sw.kinds[sw.nkinds++];
		size_t sizes[BENCH_MAX_SIZES], nsizes = bench_kind_sizes(opts, kind, sizes);
		kind_contenders(k, kind, sw.c, sw.n);
		k->samples = samples;
		size_t top = bench_largest(sizes, nsizes);
		if (kind == BK_HOT) {
			char sz[16];
			bench_progress("sweep hot: mapping %s", bench_size_str(top, sz, sizeof(sz)));
			void *buf = bench_map(top);
			if (!buf) {
				rc = 1;
				break;
			}
			run_kind(opts, k, sizes, nsizes, buf, NULL, data);
			bench_unmap(buf, top);
		} else {
			if (!sw.pool.base)
				rc = open_pool(opts, &sw, top);
			if (!rc)
				run_kind(opts, k, sizes, nsizes, NULL, &sw.pool, data);
		}
	}
	sw.pool_bytes = sw.pool.bytes;
	if (sw.pool.base)
		bench_pool_close(&sw.pool);
	bench_memset_other_libc_stop();
	if (samples && fclose(samples)) {
		fprintf(stderr, "clearbench: --samples '%s': %s\n", opts->samples_path, strerror(errno));
		rc = 1;
	}
	if (!rc)
		rc = sweep_output(opts, &sw, data);
	for (size_t i = 0; i < sw.nkinds; i++)
		bench_table_free(sw.kinds[i].wide);
	bench_table_free(data);
	return rc;
}
