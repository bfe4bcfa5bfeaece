/* SPDX-License-Identifier: MIT */
/* Interleaved, shuffled, warmed-up rounds (rounds.c). */
#ifndef CLEARBENCH_ROUNDS_H
#define CLEARBENCH_ROUNDS_H

#include <stddef.h>
#include <stdint.h>
#include "contenders.h"
#include "opts.h"
#include "targets.h"

struct bench_rounds {
	size_t rounds;             /* timed samples per contender */
	size_t warmup;             /* untimed passes before each sample */
	size_t reps;               /* passes per sample (short extents) */
	size_t span;               /* > bytes: passes walk [buf, buf + span) in slots of bytes */
	enum bench_kind kind;      /* BK_HOT: buf; else each pass on a slot of pool */
	struct bench_pool *pool;
	unsigned *place;           /* NULL, or place[c * rounds + r]: c's place in round r */
	void *src;                 /* copy contenders on hot: their source, laid out as buf
				    * (cold and use: a second slot of the pool per pass) */
};
/* Rounds for one extent: many at 4 KiB, few at 1 GiB; opts->rounds wins. */
struct bench_rounds bench_rounds_for(const struct bench_opts *opts, size_t bytes);
/* The same for a kind of target: cold and use take fewer rounds (each pass
 * lands elsewhere, so samples vary less); pool is that of cold and use. */
struct bench_rounds bench_rounds_for_kind(const struct bench_opts *opts, size_t bytes,
					  enum bench_kind kind, struct bench_pool *pool);
/* One visit: cfg->warmup * reps untimed passes, then reps timed ones; seconds
 * per pass. Hot passes walk buf's slots from *slot on. */
double bench_time_passes(const struct bench_contender *c, void *buf, size_t bytes,
			 const struct bench_rounds *cfg, size_t *slot);
/* Each round visits the contenders in a fresh random order (carried on from
 * call to call), each visit as bench_time_passes; samples[c * rounds + r]:
 * seconds per pass (cfg->place, where given: the order), in a new array the
 * caller frees. */
double *bench_sample(const struct bench_contender *c, size_t n, void *buf, size_t bytes,
		     const struct bench_rounds *cfg);

#endif
