/* SPDX-License-Identifier: MIT */
/*
 * The round runner. These are shared, noisy VMs, and a temporal pass right
 * after a non-temporal one stays slow for several passes (measured on these hosts): so every
 * round visits the contenders in a fresh random order and each visit starts
 * with untimed warm-up passes; scenarios report medians over rounds.
 */
#include <stdlib.h>
#include "contenders.h"
#include "opts.h"
#include "rounds.h"
#include "stats.h"
#include "targets.h"

#define SMALL_SAMPLE_BYTES ((size_t)4 << 20)   /* short extents repeat up to this */

struct bench_rounds bench_rounds_for(const struct bench_opts *opts, size_t bytes)
{
	struct bench_rounds r;
	const size_t mib = (size_t)1 << 20;
	r.rounds = bytes <= 4 * mib ? 31 : bytes <= 64 * mib ? 15 : bytes <= 256 * mib ? 9 : 7;
	/* one pass of 256 MiB or more rewrites every cache level: enough warm-up.
	 * From 2 MiB to the LLC, after another contender's non-temporal passes
	 * evicted the buffer, rep stosb took 3 passes to run at its steady 28 GB/s
	 * again here and cp_clear_pages 5 (its first chunks, warm from its own
	 * last pass, say "cached" before the rest is: 23, 14, 8, 10, 20, 27 GB/s;
	 * bench/results/intel-family6-model167/README.md): 5 warm-up passes, so
	 * every contender is timed in its steady state on a hot target. */
	r.warmup = bytes >= 256 * mib ? 1 : bytes >= 2 * mib ? 5 : 2;
	if (opts->quick) {
		r.rounds = r.rounds / 3 > 3 ? r.rounds / 3 : 3;
		r.warmup = 1;
	}
	if (opts->rounds)
		r.rounds = opts->rounds;
	/* A sample of a 4 KiB extent would last ~100 ns: repeat short extents
	 * until a sample clears SMALL_SAMPLE_BYTES, well above clock overhead. */
	r.reps = bytes < SMALL_SAMPLE_BYTES ? SMALL_SAMPLE_BYTES / bytes : 1;
	r.span = bytes;
	r.kind = BK_HOT;
	r.pool = NULL;
	r.place = NULL;
	r.src = NULL;
	return r;
}

struct bench_rounds bench_rounds_for_kind(const struct bench_opts *opts, size_t bytes,
					  enum bench_kind kind, struct bench_pool *pool)
{
	struct bench_rounds r = bench_rounds_for(opts, bytes);
	const size_t mib = (size_t)1 << 20;
	if (kind == BK_HOT)
		return r;
	/* about half the rounds of hot: make bench stays within minutes with
	 * three kinds, and 1 GiB passes over a 4 GiB pool cost the most */
	if (!opts->rounds && !opts->quick)
		r.rounds = bytes <= 4 * mib ? 15 : bytes <= 64 * mib ? 9 : bytes <= 256 * mib ? 7 : 5;
	r.kind = kind;
	r.pool = pool;
	return r;
}

/* One pass: on the next slot of buf (hot) or of the pool; use writes it (a
 * clear) or reads it (a copy's destination). A copy's source: the same slot of
 * cfg->src (hot), or another slot of the pool (never the destination's). */
static void pass(const struct bench_contender *c, void *buf, size_t bytes,
		 const struct bench_rounds *cfg, size_t *slot)
{
	void *p = buf;
	const char *src = cfg->src;
	if (cfg->kind == BK_HOT && cfg->span > bytes) {
		p = (char *)buf + *slot * bytes;
		src = src ? src + *slot * bytes : NULL;
		*slot = (*slot + 1) % (cfg->span / bytes);
	} else if (cfg->kind != BK_HOT) {
		p = bench_pool_next(cfg->pool, bytes);
		src = c->copy ? bench_pool_next(cfg->pool, bytes) : NULL;
	}
	if (c->copy)
		c->copy(c, p, src, bytes);
	else
		c->clear(c, p, bytes);
	if (cfg->kind == BK_USE && c->copy)
		bench_read_lines(p, bytes);
	else if (cfg->kind == BK_USE)
		bench_write_lines(p, bytes);
}

double bench_time_passes(const struct bench_contender *c, void *buf, size_t bytes,
			 const struct bench_rounds *cfg, size_t *slot)
{
	for (size_t w = 0; w < cfg->warmup * cfg->reps; w++)
		pass(c, buf, bytes, cfg, slot);
	double t0 = bench_now();
	for (size_t i = 0; i < cfg->reps; i++)
		pass(c, buf, bytes, cfg, slot);
	return (bench_now() - t0) / (double)cfg->reps;
}

/* Each round visits the contenders in a fresh random order; each visit is
 * `warmup` untimed passes, then `reps` timed passes. samples[c * rounds + r]
 * is seconds per pass (and cfg->place, where given, the order). With a span,
 * each pass clears the next slot of it. */
static void bench_run_rounds(const struct bench_contender *c, size_t n, void *buf,
			     size_t bytes, const struct bench_rounds *cfg, uint64_t *rng, double *samples)
{
	size_t *order = malloc(n * sizeof(*order));
	if (!order)
		abort();
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	size_t slot = 0;
	for (size_t r = 0; r < cfg->rounds; r++) {
		bench_shuffle(order, n, rng);
		for (size_t k = 0; k < n; k++) {
			const struct bench_contender *ct = &c[order[k]];
			/* a timed contender warms up and times itself, the same way */
			samples[order[k] * cfg->rounds + r] = ct->timed ?
				ct->timed(ct, bytes, cfg) :
				bench_time_passes(ct, buf, bytes, cfg, &slot);
			if (cfg->place)
				cfg->place[order[k] * cfg->rounds + r] = (unsigned)k;
		}
	}
	free(order);
}

double *bench_sample(const struct bench_contender *c, size_t n, void *buf, size_t bytes,
		     const struct bench_rounds *cfg)
{
	static uint64_t rng = 0x9e3779b97f4a7c15ull;
	double *samples = malloc(n * cfg->rounds * sizeof(*samples));
	if (!samples)
		abort();
	bench_run_rounds(c, n, buf, bytes, cfg, &rng, samples);
	return samples;
}
