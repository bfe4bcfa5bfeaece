/* SPDX-License-Identifier: MIT */
/*
 * cp_zero's contenders and rounds on a filled extent: the zero scenario's
 * (zero.c) and tune's discard threshold (tune_discard.c). Every try starts
 * from the extent filled outside the timing; the contenders and uses run in a
 * fresh random order each round.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "clearpages.h"
#include "stats.h"
#include "targets.h"
#include "zero_rounds.h"

const struct bench_zero_contender bench_zero_contenders[BZ_NCONTENDERS] = {
	{ "auto", 0 }, { "temporal", CP_ZERO_HOT }, { "nontemporal", CP_ZERO_COLD },
	{ "discard", CP_ZERO_MAY_DISCARD },
};

/* Resident bytes of [p, p + len) (mincore, system pages). */
static size_t resident(const unsigned char *p, size_t len)
{
	size_t sys = (size_t)sysconf(_SC_PAGESIZE), n = len / sys, res = 0;
	static unsigned char vec[65536];
	for (size_t at = 0; at < n; at += sizeof(vec)) {
		size_t m = n - at < sizeof(vec) ? n - at : sizeof(vec);
		if (mincore((void *)(p + at * sys), m * sys, vec))
			return 0;
		for (size_t i = 0; i < m; i++)
			res += vec[i] & 1;
	}
	return res * sys;
}

/* Fill, then time one call with these flags and its use of the memory. */
static void one_try(unsigned char *buf, size_t bytes, unsigned flags, enum bench_zero_use use,
		    struct bench_zero_try *o)
{
	memset(buf, 0x5a, bytes);
	size_t before = use == BZ_CALL ? resident(buf, bytes) : 0;
	double t0 = bench_now();
	if (cp_zero_ex(buf, bytes, flags, &o->discarded))
		abort();
	if (use == BZ_WRITE)
		bench_write_lines(buf, bytes);
	else if (use == BZ_TENTH)
		bench_write_lines(buf, bytes / 10 / 64 * 64);
	o->seconds = bench_now() - t0;
	o->rss_change = use == BZ_CALL ? (double)resident(buf, bytes) - (double)before : 0;
}

void bench_zero_medians(unsigned char *buf, size_t bytes, const unsigned *flags, size_t nz,
			unsigned uses, size_t rounds, uint64_t *rng, double *ms,
			struct bench_zero_try *last)
{
	size_t n = nz * BZ_NUSES, *order = malloc(n * sizeof(*order)), m;
	double *samples = malloc(n * (rounds ? rounds : 1) * sizeof(*samples));
	if (!order || !samples)
		abort();
	for (size_t r = 0; r < rounds; r++) {
		m = 0;
		for (size_t i = 0; i < n; i++)
			if (uses >> (i % BZ_NUSES) & 1)
				order[m++] = i;
		bench_shuffle(order, m, rng);
		for (size_t i = 0; i < m; i++) {
			size_t z = order[i] / BZ_NUSES, u = order[i] % BZ_NUSES;
			struct bench_zero_try o = { 0, 0, 0 };
			one_try(buf, bytes, flags[z], (enum bench_zero_use)u, &o);
			samples[order[i] * rounds + r] = o.seconds;
			if (u == BZ_CALL || !(uses & 1u << BZ_CALL))
				last[z] = o;
		}
	}
	for (size_t i = 0; i < n; i++)
		if (uses >> (i % BZ_NUSES) & 1)
			ms[i] = 1e3 * bench_median(&samples[i * rounds], rounds);
	free(order);
	free(samples);
}
