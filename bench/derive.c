/* SPDX-License-Identifier: MIT */
/*
 * The band derivation (derive.h): an exact dynamic programme over the
 * measured sizes. A band list is a kernel per measured size that changes at
 * most max_bands - 1 times; its score is, summed over the sizes,
 *   1                          for the defaults' kernel where it is level with
 *                              the best (intervals overlap: no measured loss)
 *   pick median / best median  everywhere else
 * minus band_cost for every band beyond the count the defaults use over the
 * same sizes (so the defaults' own shape is never penalised). Every size
 * counts the same, whatever its GB/s. Among equal scores the plan that agrees
 * with the defaults at the most sizes wins, then the higher sum of median
 * ratios: a draw goes to the defaults. Only the defaults get the benefit of
 * the doubt: a kernel credited for being level with the best would win by
 * being noisy (a wide interval overlaps everything).
 *
 * Boundaries: a band starts at the measured size where its kernel is first
 * picked, so an extent between two measured sizes keeps the kernel of the
 * measured size below it (the one it was measured closest to from below).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "derive.h"

/* Lexicographic score: speed (band cost included), then agreement with the
 * defaults, then the plain median ratios. */
struct score {
	double speed;
	int agree;
	double ratios;
};

#define SPEED_EPS 1e-9

static int better(struct score a, struct score b)
{
	if (a.speed - b.speed > SPEED_EPS || b.speed - a.speed > SPEED_EPS)
		return a.speed > b.speed;
	if (a.agree != b.agree)
		return a.agree > b.agree;
	return a.ratios > b.ratios + SPEED_EPS;
}

static struct score add(struct score a, struct score b)
{
	return (struct score){ a.speed + b.speed, a.agree + b.agree, a.ratios + b.ratios };
}

/* derive.c needs no libm: the Criterion suite links without it. */
static double larger(double a, double b)
{
	return a > b ? a : b;
}

/* One cell's interval, widened to the noise floor. */
static void interval(const struct derive_input *in, size_t i, size_t k, double *lo, double *hi)
{
	const struct derive_cell *c = &in->cell[i][k];
	double m = c->median, f = larger(in->noise_floor, in->size_noise[i]);
	*lo = c->lo > 0 && c->lo < m * (1 - f) ? c->lo : m * (1 - f);
	*hi = c->hi > m * (1 + f) ? c->hi : m * (1 + f);
}

static int level(const struct derive_input *in, size_t i, size_t a, size_t b)
{
	double alo, ahi, blo, bhi;
	interval(in, i, a, &alo, &ahi);
	interval(in, i, b, &blo, &bhi);
	return alo <= bhi && blo <= ahi;
}

static int valid(const struct derive_input *in)
{
	if (in->nsizes < 1 || in->nsizes > DERIVE_MAX_SIZES || in->nkernels < 1 ||
	    in->nkernels > DERIVE_MAX_KERNELS || in->max_bands < 1 ||
	    in->max_bands > DERIVE_MAX_BANDS || !(in->band_cost >= 0) ||
	    !(in->noise_floor >= 0 && in->noise_floor < 0.5))
		return 0;
	for (size_t i = 0; i < in->nsizes; i++) {
		if (in->pages[i] == 0 || (i && in->pages[i] <= in->pages[i - 1]))
			return 0;
		if (in->default_kernel[i] < -1 || in->default_kernel[i] >= (int)in->nkernels ||
		    !(in->size_noise[i] >= 0 && in->size_noise[i] < 1))
			return 0;
		for (size_t k = 0; k < in->nkernels; k++) {
			const struct derive_cell *c = &in->cell[i][k];
			if (!(c->median > 0) || !isfinite(c->median) || c->lo > c->median ||
			    (c->hi && c->hi < c->median))
				return 0;
		}
	}
	for (size_t k = 0; k < in->nkernels; k++)
		if (!in->names[k])
			return 0;
	return 1;
}

static size_t default_band_count(const struct derive_input *in)
{
	size_t n = 0;
	int last = -1;
	for (size_t i = 0; i < in->nsizes; i++)
		if (in->default_kernel[i] >= 0 && in->default_kernel[i] != last) {
			n++;
			last = in->default_kernel[i];
		}
	return n ? n : 1;
}

/* dp[i][k][b]: the best score of sizes 0..i with size i in the b+1'th band,
 * whose kernel is k; from[i][k][b]: the kernel of size i - 1 on that path. */
struct table {
	struct score dp[DERIVE_MAX_SIZES][DERIVE_MAX_KERNELS][DERIVE_MAX_BANDS];
	signed char from[DERIVE_MAX_SIZES][DERIVE_MAX_KERNELS][DERIVE_MAX_BANDS];
	unsigned char reached[DERIVE_MAX_SIZES][DERIVE_MAX_KERNELS][DERIVE_MAX_BANDS];
};

static struct score cell_score(const struct derive_input *in, size_t i, size_t k, int best)
{
	double r = in->cell[i][k].median / in->cell[i][best].median;
	int is_default = in->default_kernel[i] == (int)k;
	return (struct score){ is_default && level(in, i, k, (size_t)best) ? 1.0 : r,
			       is_default, r };
}

static void fill(const struct derive_input *in, const int *best, struct table *t)
{
	size_t nk = in->nkernels, nb = in->max_bands;
	memset(t->reached, 0, sizeof(t->reached));
	for (size_t k = 0; k < nk; k++) {
		t->dp[0][k][0] = cell_score(in, 0, k, best[0]);
		t->from[0][k][0] = -1;
		t->reached[0][k][0] = 1;
	}
	for (size_t i = 1; i < in->nsizes; i++)
		for (size_t k = 0; k < nk; k++)
			for (size_t b = 0; b < nb; b++) {
				/* stay in the band of kernel k, or start it here */
				int arg = -1;
				struct score top = { 0, 0, 0 };
				if (t->reached[i - 1][k][b]) {
					arg = (int)k;
					top = t->dp[i - 1][k][b];
				}
				for (size_t p = 0; b > 0 && p < nk; p++)
					if (p != k && t->reached[i - 1][p][b - 1] &&
					    (arg < 0 || better(t->dp[i - 1][p][b - 1], top))) {
						arg = (int)p;
						top = t->dp[i - 1][p][b - 1];
					}
				if (arg < 0)
					continue;
				t->dp[i][k][b] = add(top, cell_score(in, i, k, best[i]));
				t->from[i][k][b] = (signed char)arg;
				t->reached[i][k][b] = 1;
			}
}

int derive_bands(const struct derive_input *in, struct derive_result *out)
{
	if (!valid(in))
		return -1;
	struct table *t = malloc(sizeof(*t));
	if (!t)
		return -1;
	struct derive_result r;
	memset(&r, 0, sizeof(r));
	size_t n = in->nsizes, nk = in->nkernels;
	for (size_t i = 0; i < n; i++) {
		r.best[i] = 0;
		for (size_t k = 1; k < nk; k++)
			if (in->cell[i][k].median > in->cell[i][r.best[i]].median)
				r.best[i] = (int)k;
	}
	r.default_bands = default_band_count(in);
	fill(in, r.best, t);

	/* the band cost depends on the band count only: charge it at the end */
	int end_k = -1;
	size_t end_b = 0;
	struct score top = { 0, 0, 0 };
	for (size_t k = 0; k < nk; k++)
		for (size_t b = 0; b < in->max_bands; b++) {
			if (!t->reached[n - 1][k][b])
				continue;
			struct score s = t->dp[n - 1][k][b];
			if (b + 1 > r.default_bands)
				s.speed -= in->band_cost * (double)(b + 1 - r.default_bands);
			if (end_k < 0 || better(s, top)) {
				top = s;
				end_k = (int)k;
				end_b = b;
			}
		}
	for (size_t i = n, b = end_b, k = (size_t)end_k; i-- > 0;) {
		r.pick[i] = (int)k;
		int p = t->from[i][k][b];
		if (p >= 0 && (size_t)p != k)
			b--;
		k = (size_t)p;
	}
	free(t);

	for (size_t i = 0; i < n; i++) {
		int p = r.pick[i];
		if (i == 0 || p != r.pick[i - 1]) {
			r.band[r.nbands].from_pages = i ? in->pages[i] : 0;
			r.band[r.nbands++].kernel = p;
		}
		r.ratio[i] = in->cell[i][p].median / in->cell[i][r.best[i]].median;
		/* the rivals of the pick: the defaults' kernel, the picks next to it
		 * (a band boundary moves), any faster median */
		uint32_t mask = 0;
		for (size_t k = 0; k < nk; k++)
			if ((int)k != p && level(in, i, k, (size_t)p) &&
			    ((int)k == in->default_kernel[i] || (i && (int)k == r.pick[i - 1]) ||
			     (i + 1 < n && (int)k == r.pick[i + 1]) ||
			     in->cell[i][k].median > in->cell[i][p].median))
				mask |= (uint32_t)1 << k;
		if (mask) {
			r.remeasure[i] = mask | (uint32_t)1 << p;
			r.nuncertain++;
		}
	}
	*out = r;
	return 0;
}

/* discard_from (derive.h states the criterion). Why this one: the call alone
 * is what a caller that touches little of the memory pays, and it must win on
 * both backings, since the library cannot tell a THP-backed part from a 4 KiB
 * one. The pages fault back in on the next touch, so a caller that writes it
 * all pays the faults too: the write rule bounds that loss (the issue's
 * 1.15x). It applies where tune says (THP): on 4 KiB pages every page faults,
 * which costs several times the stores at every extent (a threshold cannot
 * move that), and a caller about to write everything passes CP_ZERO_HOT,
 * which never discards; tune prints the 4 KiB write ratio all the same.
 * "Every larger extent too": a threshold is one number, so one losing extent
 * above a winning one moves it up past the loss. */
static int discard_cell_ok(const struct derive_discard_cell *c)
{
	return c->store_call > 0 && c->store_write > 0 && c->discard_call > 0 &&
	       c->discard_write > 0 && isfinite(c->store_call) && isfinite(c->store_write) &&
	       isfinite(c->discard_call) && isfinite(c->discard_write);
}

int derive_discard_from(const struct derive_discard_input *in, struct derive_discard_result *out)
{
	unsigned all = (1u << DERIVE_NBACKINGS) - 1;
	if (in->nsizes < 1 || in->nsizes > DERIVE_MAX_SIZES || !in->backings ||
	    (in->backings & ~all) || (in->write_backings & ~in->backings) ||
	    !(in->write_factor >= 1) || !isfinite(in->write_factor))
		return -1;
	for (size_t i = 0; i < in->nsizes; i++) {
		if (in->pages[i] == 0 || (i && in->pages[i] <= in->pages[i - 1]))
			return -1;
		for (int b = 0; b < DERIVE_NBACKINGS; b++)
			if ((in->backings >> b & 1) && !discard_cell_ok(&in->cell[i][b]))
				return -1;
	}
	struct derive_discard_result r;
	memset(&r, 0, sizeof(r));
	r.from_pages = DERIVE_DISCARD_NONE;
	r.fail_at = in->nsizes;
	r.fail_backing = -1;
	for (size_t i = in->nsizes; i-- > 0;) {
		int rule = 0, backing = -1;
		for (int b = 0; b < DERIVE_NBACKINGS; b++) {
			if (!(in->backings >> b & 1))
				continue;
			const struct derive_discard_cell *c = &in->cell[i][b];
			int why = 0;
			r.call_ratio[i][b] = c->discard_call / c->store_call;
			r.write_ratio[i][b] = c->discard_write / c->store_write;
			if (!(c->discard_call < c->store_call))
				why |= 1;
			if ((in->write_backings >> b & 1) &&
			    !(c->discard_write <= in->write_factor * c->store_write))
				why |= 2;
			if (why && backing < 0)
				backing = b;
			rule |= why;
		}
		r.pass[i] = !rule;
		if (rule && r.fail_at == in->nsizes) {
			r.fail_at = i;
			r.fail_rule = rule;
			r.fail_backing = backing;
		}
		if (!rule && r.fail_at == in->nsizes)
			r.from_pages = in->pages[i];
	}
	*out = r;
	return 0;
}

const char *derive_size_str(size_t bytes, char *buf, size_t len)
{
	static const struct { size_t unit; char suffix; } units[] = {
		{ (size_t)1 << 30, 'G' }, { (size_t)1 << 20, 'M' }, { (size_t)1 << 10, 'k' },
	};
	for (size_t u = 0; bytes && u < sizeof(units) / sizeof(units[0]); u++)
		if (bytes % units[u].unit == 0) {
			snprintf(buf, len, "%zu%c", bytes / units[u].unit, units[u].suffix);
			return buf;
		}
	snprintf(buf, len, "%zu", bytes);
	return buf;
}

void derive_write_profile(FILE *f, const struct derive_profile_id *id,
			  const struct derive_input *in, const struct derive_result *r)
{
	char a[32];
	fprintf(f, "# clearpages profile: clearbench tune, %s, %s\nversion 3\narch %s\ncpu %s\n",
		id->date, id->brand, id->arch, id->cpu);
	if (id->comment)
		fputs(id->comment, f);
	for (int u = 0; u < 2; u++) {
		const struct derive_result *bands = u ? id->uncached : r;
		for (size_t b = 0; bands && b < bands->nbands; b++)
			fprintf(f, "%sband %s %s\n", u ? "uncached_" : "",
				derive_size_str(bands->band[b].from_pages * DERIVE_PAGE, a, sizeof(a)),
				in->names[bands->band[b].kernel]);
	}
	if (id->cached_min_mbps)
		fprintf(f, "cached_min_mbps %u\n", id->cached_min_mbps);
	if (id->discard_from_pages == DERIVE_DISCARD_NONE)
		fprintf(f, "discard_from none\n");
	else if (id->discard_from_pages)
		fprintf(f, "discard_from %s\n",
			derive_size_str(id->discard_from_pages * DERIVE_PAGE, a, sizeof(a)));
	if (id->parallel_none)
		fprintf(f, "parallel none\n");
	else if (id->parallel_min_share)
		fprintf(f, "parallel %s\n", derive_size_str(id->parallel_min_share, a, sizeof(a)));
	fprintf(f, "end\n");
}

unsigned derive_chunk_threshold(double hot_ticks, double cold_ticks, double hz,
				size_t chunk_bytes)
{
	if (!(hot_ticks > 0) || !(hz > 0) || !chunk_bytes ||
	    !(cold_ticks >= DERIVE_CHUNK_MIN_SEPARATION * hot_ticks))
		return 0;
	double hot_mbps = (double)chunk_bytes / (hot_ticks / hz) / 1e6;
	double cold_mbps = (double)chunk_bytes / (cold_ticks / hz) / 1e6;
	double mbps = sqrt(hot_mbps * cold_mbps);
	return mbps >= 4294967295.0 ? 4294967295u : (unsigned)(mbps + 0.5);
}
