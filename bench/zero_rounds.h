/* SPDX-License-Identifier: MIT */
/* cp_zero on a filled extent (zero_rounds.c): the contenders and rounds of the
 * zero scenario and of tune's discard_from. */
#ifndef CLEARBENCH_ZERO_ROUNDS_H
#define CLEARBENCH_ZERO_ROUNDS_H

#include <stddef.h>
#include <stdint.h>

/* What follows the call in a try: nothing, one write per 64-byte line, the first tenth. */
enum bench_zero_use { BZ_CALL, BZ_WRITE, BZ_TENTH, BZ_NUSES };
#define BZ_NCONTENDERS 4
struct bench_zero_contender { const char *name; unsigned flags; };
/* auto (no flags), temporal (HOT), nontemporal (COLD): stores; then discard (MAY_DISCARD). */
extern const struct bench_zero_contender bench_zero_contenders[BZ_NCONTENDERS];
struct bench_zero_try {
	double seconds;
	size_t discarded;          /* bytes cp_zero_ex handed back */
	double rss_change;         /* resident bytes after the call alone minus before */
};
/* Every contender (cp_zero flags) with every use in `uses` (1 << BZ_*), `rounds`
 * rounds in a fresh random order each (rng); each try fills the extent outside
 * the timing first. ms[z * BZ_NUSES + u]: the median in ms (uses not asked for
 * are left alone); last[z]: z's last call-alone try (the last of any use when
 * the call alone is not asked for). */
void bench_zero_medians(unsigned char *buf, size_t bytes, const unsigned *flags, size_t nz,
			unsigned uses, size_t rounds, uint64_t *rng, double *ms,
			struct bench_zero_try *last);

#endif
