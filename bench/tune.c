/* SPDX-License-Identifier: MIT */
/*
 * tune: measure every usable kernel (or --kernel) at extents from 4 KiB to
 * 1 GiB (--sizes), fit extent bands to the figures (derive.c), re-measure the
 * decisions the figures cannot settle, then verify the bands against the
 * defaults in the same run before anything is written: at every extent the
 * defaults' kernel (cp_kernel_for, no profile) against the bands' kernel, both
 * called directly, in interleaved rounds.
 *
 * Then every kernel on cold and use targets (tune_targets.c): the uncached
 * bands are fitted the same way to the use figures, and the residency
 * threshold comes from hot and cold ones. Then store clears against discard
 * on THP and 4 KiB pages (tune_discard.c): the extent from which
 * cp_zero(CP_ZERO_MAY_DISCARD) discards, or none. The profile (format 3)
 * carries all three.
 *
 * The profile is written only when the bands keep VERIFY_FLOOR of the
 * defaults wherever they pick another kernel and beat them beyond the noise
 * somewhere (verify measures hot targets: the uncached bands are shown
 * against the defaults' in the cold and use tables). Otherwise the tool says
 * why, writes nothing and exits 1; --force writes it anyway (never
 * --install). Without --out or --install the profile is only printed, so no
 * run leaves a file behind.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "contenders.h"
#include "derive.h"
#include "introspect.h"
#include "map.h"
#include "opts.h"
#include "plot.h"
#include "rounds.h"
#include "scenarios.h"
#include "stats.h"
#include "table.h"
#include "tune.h"

#define BAND_COST 0.05       /* an extra band must gain 5 % at one measured extent */
#define NOISE_FLOOR 0.01     /* differences under 1 % do not repeat between runs */
#define VERIFY_FLOOR 0.97

_Static_assert(BENCH_MAX_SIZES <= DERIVE_MAX_SIZES && BENCH_MAX_KERNELS <= DERIVE_MAX_KERNELS,
	       "the derivation holds every measured cell");


/* The kernels in `mask` at size i, rounds scaled by `factor`. With `twin`,
 * the defaults' kernel runs twice: how far its two medians differ is the
 * size's noise (derive.h). */
static void measure_size(const struct bench_opts *opts, void *buf, struct tune *t, size_t i,
			 uint32_t mask, size_t factor, int twin)
{
	struct bench_contender c[DERIVE_MAX_KERNELS + 1];
	size_t idx[DERIVE_MAX_KERNELS], n = 0, bytes = t->in.pages[i] * CP_PAGE_SIZE;
	for (size_t k = 0; k < t->in.nkernels; k++)
		if (mask >> k & 1) {
			bench_contender_batched(&c[n], t->k[k], 0, 0);
			idx[n++] = k;
		}
	int def = t->in.default_kernel[i];
	twin = twin && def >= 0;
	if (twin)
		bench_contender_batched(&c[n], t->k[def], 0, 0);
	struct bench_rounds cfg = bench_rounds_for(opts, bytes);
	cfg.rounds *= factor;
	double *samples = bench_sample(c, n + (size_t)twin, buf, bytes, &cfg);
	for (size_t j = 0; j < n; j++) {
		t->in.cell[i][idx[j]] = tune_cell_of(&samples[j * cfg.rounds], cfg.rounds, bytes);
		t->rounds[i][idx[j]] = cfg.rounds;
		t->remeasured[i][idx[j]] = factor > 1;
	}
	if (twin) {
		double a = t->in.cell[i][def].median;
		double b = tune_cell_of(&samples[n * cfg.rounds], cfg.rounds, bytes).median;
		t->in.size_noise[i] = fmin(fabs(a - b) / fmax(a, b), 0.5);
	}
	free(samples);
}

static int index_of(const struct tune *t, const struct cp_kernel *k)
{
	for (size_t i = 0; i < t->in.nkernels; i++)
		if (t->k[i] == k)
			return (int)i;
	return -1;
}

/* The defaults' kernel at npages: their uncached bands or their any bands. */
static const struct cp_kernel *default_pick(int uncached, size_t npages)
{
	return uncached ? bench_uncached_kernel(npages) : bench_any_kernel(npages);
}

/* derive.c starts a band at the measured size where its kernel is first
 * picked. Where that switch is the defaults' own (the defaults' kernel on both
 * sides), the extents between the two sizes follow the defaults (their uncached
 * or any bands) too: the boundary moves down to where the defaults switch. */
static void follow_default_boundaries(const struct tune *t, const struct derive_input *in,
				      int uncached, struct derive_result *r)
{
	for (size_t b = 1, i = 1; b < r->nbands; b++) {
		while (in->pages[i] != r->band[b].from_pages)
			i++;
		int before = r->pick[i - 1], after = r->pick[i];
		if (before != in->default_kernel[i - 1] || after != in->default_kernel[i])
			continue;
		size_t p = in->pages[i];
		while (p - 1 > in->pages[i - 1] && default_pick(uncached, p - 1) == t->k[after])
			p--;
		r->band[b].from_pages = p;
	}
}

/* Above the largest measured size nothing was measured: the defaults' own
 * boundaries beyond it are kept (what lies between keeps the top size's pick). */
static void keep_default_bands_above(const struct tune *t, int uncached, struct derive_result *r)
{
	size_t top = t->in.pages[t->in.nsizes - 1], from[BENCH_POLICY_MAX_BANDS];
	const struct cp_kernel *kernel[BENCH_POLICY_MAX_BANDS];
	size_t n = bench_policy_bands(uncached, from, kernel);
	for (size_t b = 1; b < n && r->nbands < DERIVE_MAX_BANDS; b++) {
		int k = index_of(t, kernel[b]);
		if (from[b] <= top || k < 0 || k == r->band[r->nbands - 1].kernel)
			continue;
		r->band[r->nbands].from_pages = from[b];
		r->band[r->nbands++].kernel = k;
	}
}

/* The uncached bands: fitted to the use figures as band is to hot ones
 * (no re-measuring: each pass lands on another slot, so the rounds vary
 * less), the defaults' uncached bands where they draw; its comment lines
 * appended to comment. 0, or -1: no use figures or no fit. */
static int fit_uncached(const struct tune *t, const struct tune_targets *m,
			struct derive_result *r, char *comment, size_t len)
{
	static struct derive_input in;
	if (tune_uncached_input(t, m, &in) || derive_bands(&in, r))
		return -1;
	size_t l = strlen(comment);
	snprintf(comment + l, len - l, "# uncached_band: fitted to every kernel on use targets "
		 "(memory not cached, cleared, then one\n# write per 64-byte line): "
		 "cp_clear_pages on such memory serves a caller who fills it\n");
	follow_default_boundaries(t, &in, 1, r);
	keep_default_bands_above(t, 1, r);
	return 0;
}

/* Measure, derive, re-measure what is level, derive again. */
static int fit(const struct bench_opts *opts, void *buf, struct tune *t, struct derive_result *r)
{
	uint32_t all = t->in.nkernels >= 32 ? ~0u : ((uint32_t)1 << t->in.nkernels) - 1;
	char ext[16];
	for (size_t i = 0; i < t->in.nsizes; i++) {
		bench_progress("tune: %s (%zu/%zu)", bench_size_str(t->in.pages[i] * CP_PAGE_SIZE,
				ext, sizeof(ext)), i + 1, t->in.nsizes);
		measure_size(opts, buf, t, i, all, 1, 1);
	}
	if (derive_bands(&t->in, r))
		return -1;
	for (size_t i = 0; i < t->in.nsizes; i++)
		if (r->remeasure[i]) {
			bench_progress("tune: re-measuring %s", bench_size_str(
				t->in.pages[i] * CP_PAGE_SIZE, ext, sizeof(ext)));
			measure_size(opts, buf, t, i, r->remeasure[i], TUNE_REMEASURE_FACTOR, 0);
		}
	if (derive_bands(&t->in, r))
		return -1;
	follow_default_boundaries(t, &t->in, 0, r);
	keep_default_bands_above(t, 0, r);
	return 0;
}

/* ---- verification: the defaults' kernel against the bands' kernel ---- */
struct verdict {
	size_t ndiff, nsame, worst_e, gain_e, top_e;
	double worst, gain, top, noise_lo, noise_hi;   /* top: the highest where they differ */
};

static struct bench_table *verify(const struct bench_opts *opts, void *buf, const struct tune *t,
				  const struct derive_result *r, struct verdict *v)
{
	static const char *const cols[] = { "extent", "default", "default GB/s", "tuned",
		"tuned GB/s", "tuned/default", "best measured", "tuned/best" };
	struct bench_table *tb = bench_table_new(
		"tune verify: GB/s median, the defaults' kernel vs the tuned bands' kernel",
		BT_TEXT | BT_DATA, 8, cols);
	memset(v, 0, sizeof(*v));
	v->worst = v->noise_lo = INFINITY;
	for (size_t i = 0; i < t->in.nsizes; i++) {
		size_t pages = t->in.pages[i], bytes = pages * CP_PAGE_SIZE;
		char ext[16];
		bench_size_str(bytes, ext, sizeof(ext));
		bench_progress("tune verify: %s (%zu/%zu)", ext, i + 1, t->in.nsizes);
		const struct cp_kernel *def = cp_kernel_for(pages), *tun = t->k[r->pick[i]];
		struct bench_contender c[2];
		bench_contender_batched(&c[0], def, 0, 0);
		bench_contender_batched(&c[1], tun, 0, 0);
		struct bench_rounds cfg = bench_rounds_for(opts, bytes);
		if (!opts->rounds && bytes <= (size_t)4 << 20)
			cfg.rounds *= 3;   /* short samples on a shared host: cheap to take more */
		double *samples = bench_sample(c, 2, buf, bytes, &cfg);
		struct derive_cell d = tune_cell_of(samples, cfg.rounds, bytes);
		struct derive_cell tu = tune_cell_of(samples + cfg.rounds, cfg.rounds, bytes);
		free(samples);
		double q = tu.median / d.median;
		bench_table_row(tb);
		bench_cell_str(tb, ext);
		bench_cell_str(tb, def->name);
		bench_cell_num(tb, d.median, "%.2f");
		bench_cell_str(tb, tun->name);
		bench_cell_num(tb, tu.median, "%.2f");
		bench_cell_num(tb, q, def == tun ? "%.2f (same)" : "%.2f");
		bench_cell_str(tb, t->in.names[r->best[i]]);
		bench_cell_num(tb, r->ratio[i], "%.2f");
		if (def == tun) {   /* the same code either way: what differs is noise */
			v->nsame++;
			v->noise_lo = q < v->noise_lo ? q : v->noise_lo;
			v->noise_hi = q > v->noise_hi ? q : v->noise_hi;
			continue;
		}
		v->ndiff++;
		if (q < v->worst) { v->worst = q; v->worst_e = i; }
		if (q > v->top) { v->top = q; v->top_e = i; }
		/* ahead beyond this extent's noise: intervals apart, each widened
		 * to the noise the fit measured here */
		double fl = fmax(NOISE_FLOOR, t->in.size_noise[i]);
		double tlo = fmin(tu.lo, tu.median * (1 - fl)), dhi = fmax(d.hi, d.median * (1 + fl));
		if (q > 1 && tlo > dhi && q > v->gain) {
			v->gain = q;
			v->gain_e = i;
		}
	}
	return tb;
}

static size_t default_sizes(const struct bench_opts *opts, size_t *sizes)
{
	size_t n = 0, top = opts->quick ? (size_t)256 << 20 : (size_t)1 << 30;
	for (size_t s = 4096; s <= top; s *= opts->quick ? 4 : 2)
		sizes[n++] = s;
	return n;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

static void setup(const struct bench_opts *opts, struct tune *t)
{
	size_t sizes[BENCH_MAX_SIZES], n = opts->nsizes;
	if (n)
		memcpy(sizes, opts->sizes, n * sizeof(*sizes));
	else
		n = default_sizes(opts, sizes);
	qsort(sizes, n, sizeof(*sizes), cmp_size);   /* the bands need order */
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < n; i++)   /* --sizes may repeat one */
		if (!t->in.nsizes || sizes[i] / CP_PAGE_SIZE != t->in.pages[t->in.nsizes - 1])
			t->in.pages[t->in.nsizes++] = sizes[i] / CP_PAGE_SIZE;
	for (size_t k = 0; k < opts->nkernels && k < DERIVE_MAX_KERNELS; k++) {
		t->k[k] = opts->kernels[k];
		t->in.names[k] = opts->kernels[k]->name;
		t->in.nkernels++;
	}
	for (size_t i = 0; i < t->in.nsizes; i++) {
		t->in.default_kernel[i] = index_of(t, cp_kernel_for(t->in.pages[i]));
		t->default_uncached[i] = index_of(t, bench_uncached_kernel(t->in.pages[i]));
	}
	t->in.max_bands = DERIVE_MAX_BANDS;
	t->in.band_cost = BAND_COST;
	t->in.noise_floor = NOISE_FLOOR;
}

/* Why the bands are not written, or NULL when verify passed. */
static const char *refusal(const struct verdict *v, const struct tune *t, char *buf, size_t len)
{
	char a[16];
	if (!v->ndiff)
		return "the bands pick the defaults' kernel at every measured extent: nothing to gain";
	if (v->worst < VERIFY_FLOOR) {
		snprintf(buf, len, "tuned/default is %.2f at %s, below %.2f", v->worst,
			 bench_size_str(t->in.pages[v->worst_e] * CP_PAGE_SIZE, a, sizeof(a)),
			 VERIFY_FLOOR);
		return buf;
	}
	if (v->gain == 0) {
		snprintf(buf, len, "the bands beat the defaults nowhere beyond the noise (at best "
			 "%.2f at %s, not clear of its %.1f %% noise and the rounds' spread)", v->top,
			 bench_size_str(t->in.pages[v->top_e] * CP_PAGE_SIZE, a, sizeof(a)),
			 100 * fmax(NOISE_FLOOR, t->in.size_noise[v->top_e]));
		return buf;
	}
	return NULL;
}

int bench_tune(const struct bench_opts *opts)
{
	int rc = bench_no_plot(opts, "tune");
	if (rc || (rc = tune_check_targets(opts)))
		return rc;
	static struct tune t;
	setup(opts, &t);
	size_t top = t.in.pages[t.in.nsizes - 1] * CP_PAGE_SIZE;
	void *buf = bench_map(top);
	if (!buf)
		return 1;
	printf("defaults: %s (what the tuned bands are compared against)\n", cp_policy_source());
	struct derive_result r, ur;
	if (fit(opts, buf, &t, &r)) {
		fprintf(stderr, "clearbench: tune: no bands fit these figures\n");
		bench_unmap(buf, top);
		return 1;
	}
	struct verdict v;
	/* the data tables: cells, verify, then cold and use, then discard */
	struct bench_table *tables[3 + BK_NKINDS] = { tune_cells_table(&t),
		verify(opts, buf, &t, &r, &v) };
	struct bench_table *medians = tune_medians_table(&t, &r);
	bench_unmap(buf, top);
	bench_table_csv_suffix(tables[1], "verify");
	static struct tune_targets m;
	static struct tune_v3 v3;
	memset(&v3, 0, sizeof(v3));
	if (tune_targets_measure(opts, &t, &m))
		m.kinds = 0;   /* no pool: a version-3 profile without its lines */
	v3.uncached = fit_uncached(&t, &m, &ur, v3.comment, sizeof(v3.comment)) ? NULL : &ur;
	v3.cached_min_mbps = tune_cached_min_mbps(&m, v3.comment, sizeof(v3.comment));
	static struct tune_discard dz;
	tune_discard_measure(opts, &dz);   /* not measured: the line is left out, a note says why */
	v3.discard_from_pages = tune_discard_pages(&dz);
	tune_discard_comment(&dz, v3.comment, sizeof(v3.comment));

	bench_table_print(medians);
	size_t len;
	char *text = tune_profile_text(&t, &r, &v3, &len), why[192], a[16];
	const char *no = refusal(&v, &t, why, sizeof(why));
	int tuned_uncached[DERIVE_MAX_SIZES];
	rc = tune_library_accepts(&t, text, len, v3.discard_from_pages, tuned_uncached);
	char targets_note[512];
	size_t nkinds = rc ? 0 : tune_targets_tables(&t, &m, tuned_uncached, tables + 2,
						     targets_note, sizeof(targets_note));
	size_t ntables = 2 + nkinds;
	if (dz.measured)
		tables[ntables++] = tune_discard_table(&dz);
	printf("\nprofile%s:\n\n%s", no ? " (derived, not verified)" : "", text);
	bench_table_print(tables[1]);
	for (size_t i = 2; i < ntables; i++)
		bench_table_print(tables[i]);
	printf("\n");
	tune_note_remeasured(&t, &r);
	if (nkinds)
		bench_note("%s", targets_note);
	tune_discard_note(&dz);
	bench_note("parallel split: not measured by tune, left out of the profile (the "
		   "parallel scenario measures it).");
	if (v.nsame)
		bench_note("verify noise: at the %zu extents where both pick one kernel, "
			   "tuned/default spans %.2f-%.2f.", v.nsame, v.noise_lo, v.noise_hi);
	if (v.gain > 0)
		bench_note("gain: tuned/default %.2f at %s.", v.gain,
			   bench_size_str(t.in.pages[v.gain_e] * CP_PAGE_SIZE, a, sizeof(a)));
	bench_note(no ? "verify: FAILED: %s." : "verify: passed%s: >= 0.97 of the defaults wherever "
		   "the bands differ, ahead somewhere beyond that extent's noise (hot targets; the "
		   "uncached bands: the cold and use tables).", no ? no : "");
	if (no && !opts->force)
		bench_note("nothing written (--force writes it anyway).");
	rc = rc || tune_save(opts, text, len, !no);
	free(text);
	rc |= tune_write_outputs(opts, tables, ntables);
	for (size_t i = 0; i < ntables; i++)
		bench_table_free(tables[i]);
	bench_table_free(medians);
	return rc;
}
