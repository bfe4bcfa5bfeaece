/*
 * tune: measure every usable kernel (or --kernel) at extents from 4 KiB to
 * 1 GiB (--sizes) here, derive the extent policy and write it as a profile
 * (common/README.md); then verify it in the same run: cp_clear_pages with the
 * defaults against cp_clear_pages with the profile, cp_set_profile switching
 * between them, interleaved rounds, every extent.
 *
 * How the policy is derived from the medians (GB/s):
 * - nt_from: the smallest measured extent from which, at every larger one
 *   too, the best non-temporal kernel beats the best temporal one by NT_MARGIN.
 *   Temporal stores leave the zeroes in cache for the caller, so a draw stays
 *   temporal. No such extent: the key is left out (the default stays).
 * - temporal bands, below nt_from: every (small kernel, split, temporal
 *   kernel) is scored by its ratio to the best temporal kernel at each
 *   extent; the highest geometric mean wins among those whose worst ratio is
 *   within WORST_SLACK of the best worst ratio. A small band must gain
 *   SMALL_GAIN in geometric mean over the best single kernel, or none is used.
 * - nontemporal: by the median ratio to the best non-temporal kernel from
 *   nt_from up (all extents when there is no crossover: it is also what
 *   cp_clear_pages_cold uses), the first in cp_kernels() order within NT_TIE
 *   of the best. A median, and the library's own ranking on a tie, because a
 *   disturbed extent on a shared host must not decide between kernels 2 % apart.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "clearbench.h"
#include "testhooks.h"

#define NT_MARGIN 1.05
#define WORST_SLACK 0.02
#define SMALL_GAIN 1.01
#define NT_TIE 0.03

struct medians {
	size_t nsizes, nk;
	size_t sizes[BENCH_MAX_SIZES];
	const struct cp_kernel *k[BENCH_MAX_KERNELS];
	double gbs[BENCH_MAX_SIZES][BENCH_MAX_KERNELS];
	double best_t[BENCH_MAX_SIZES], best_nt[BENCH_MAX_SIZES];   /* 0: none measured */
};

struct choice {
	int small, temporal, nontemporal;   /* indices into medians.k, -1: key left out */
	size_t split;                       /* sizes index where temporal starts (0: no small band) */
	size_t nt_index;                    /* sizes index of nt_from; nsizes: no crossover */
	double worst, geomean;              /* of the temporal bands, ratio to the best */
};

static int is_nt(const struct cp_kernel *k)
{
	return (k->flags & CP_NONTEMPORAL) != 0;
}

/* Worst and geometric-mean ratio of the temporal bands [0, split) -> small,
 * [split, end) -> temporal. */
static void score(const struct medians *m, struct choice *c, size_t end)
{
	double logsum = 0;
	c->worst = INFINITY;
	for (size_t e = 0; e < end; e++) {
		int k = e < c->split ? c->small : c->temporal;
		double r = m->gbs[e][k] / m->best_t[e];
		logsum += log(r);
		c->worst = r < c->worst ? r : c->worst;
	}
	c->geomean = end ? exp(logsum / (double)end) : 1;
}

/* Candidate idx of (temporal, small, split): 0 and scored, or -1 when it
 * is not one (a non-temporal kernel, or a split that does not fit the pair). */
static int candidate(const struct medians *m, size_t idx, size_t end, struct choice *c)
{
	size_t split = idx % end, s = idx / end % m->nk, t = idx / end / m->nk;
	if (is_nt(m->k[t]) || is_nt(m->k[s]) || (split == 0) != (s == t))
		return -1;
	c->small = (int)s;
	c->temporal = (int)t;
	c->split = split;
	score(m, c, end);
	return 0;
}

/* The best temporal bands for the extents [0, end): with a small band or not. */
static struct choice best_temporal(const struct medians *m, size_t end, int with_small)
{
	struct choice best = { .small = -1, .temporal = -1, .nontemporal = -1 }, c = best;
	if (end == 0)
		return best;
	size_t n = m->nk * m->nk * end;
	double best_worst = 0;
	for (size_t i = 0; i < n; i++)
		if (!candidate(m, i, end, &c) && (with_small || c.split == 0) &&
		    c.worst > best_worst)
			best_worst = c.worst;
	for (size_t i = 0; i < n; i++)
		if (!candidate(m, i, end, &c) && (with_small || c.split == 0) &&
		    c.worst >= best_worst - WORST_SLACK && c.geomean > best.geomean)
			best = c;
	return best;
}

static struct choice derive(const struct medians *m)
{
	struct choice c;
	c.nt_index = m->nsizes;
	for (size_t e = m->nsizes; e-- > 0 && m->best_nt[e] > m->best_t[e] * NT_MARGIN;)
		c.nt_index = e;
	int have_t = 0;
	for (size_t e = 0; e < m->nsizes; e++)
		have_t |= m->best_t[e] > 0;
	if (!have_t)          /* --kernel named no temporal kernel: nothing to compare */
		c.nt_index = m->nsizes;
	struct choice t = best_temporal(m, c.nt_index, 0);
	struct choice ts = best_temporal(m, c.nt_index, 1);
	if (ts.geomean > t.geomean * SMALL_GAIN)
		t = ts;
	c.small = t.small;
	c.temporal = t.temporal;
	c.split = t.split;
	c.worst = t.worst;
	c.geomean = t.geomean;

	double med[BENCH_MAX_KERNELS], best = 0, ratio[BENCH_MAX_SIZES];
	size_t from = c.nt_index < m->nsizes ? c.nt_index : 0;
	for (size_t k = 0; k < m->nk; k++) {
		med[k] = 0;
		if (!is_nt(m->k[k]))
			continue;
		for (size_t e = from; e < m->nsizes; e++)
			ratio[e - from] = m->gbs[e][k] / m->best_nt[e];
		med[k] = bench_median(ratio, m->nsizes - from);
		best = med[k] > best ? med[k] : best;
	}
	c.nontemporal = -1;
	for (size_t k = 0; k < m->nk && c.nontemporal < 0; k++)   /* cp_kernels() order, or --kernel's */
		if (is_nt(m->k[k]) && med[k] >= best - NT_TIE)
			c.nontemporal = (int)k;
	return c;
}

static void write_profile(FILE *f, const struct medians *m, const struct choice *c)
{
	const struct cp__state *s = cp__state();
	char a[16], b[16];
	time_t now = time(NULL);
	char date[32];
	strftime(date, sizeof(date), "%Y-%m-%d", gmtime(&now));
	fprintf(f, "# clearpages profile written by `clearbench tune` on %s (format: common/README.md)\n"
		"# cpu: %s; medians over interleaved, shuffled, warmed-up rounds\n"
		"version 1\narch %s\n", date, s->cpu.model, m->k[0]->arch);
	if (c->temporal >= 0) {
		if (c->split) {
			fprintf(f, "small %s\nsmall_below %s\n", m->k[c->small]->name,
				bench_size_str(m->sizes[c->split], a, sizeof(a)));
		} else {
			fprintf(f, "small %s\nsmall_below 0\n", m->k[c->temporal]->name);
		}
		fprintf(f, "temporal %s    # worst %.2f, geometric mean %.2f of the best "
			"temporal kernel below nt_from\n", m->k[c->temporal]->name, c->worst, c->geomean);
	}
	if (c->nt_index < m->nsizes)
		fprintf(f, "nt_from %s    # non-temporal %.2fx the best temporal at %s\n",
			bench_size_str(m->sizes[c->nt_index], a, sizeof(a)),
			m->best_nt[c->nt_index] / m->best_t[c->nt_index],
			bench_size_str(m->sizes[c->nt_index], b, sizeof(b)));
	else
		fprintf(f, "# nt_from left out: non-temporal stores never won clearly here\n");
	if (c->nontemporal >= 0)
		fprintf(f, "nontemporal %s\n", m->k[c->nontemporal]->name);
}

/* Every kernel at every extent: medians, and the table that shows them. */
static struct bench_table *measure(const struct bench_opts *opts, void *buf, struct medians *m)
{
	struct bench_contender c[BENCH_MAX_KERNELS + 3];
	m->nk = bench_contenders(opts, 0, c);
	const char *cols[24] = { "extent" };
	size_t ncols = 1;
	for (size_t k = 0; k < m->nk && ncols < 21; k++) {
		m->k[k] = c[k].kernel;
		cols[ncols++] = c[k].name;
	}
	cols[ncols++] = "best temporal";
	cols[ncols++] = "best non-temporal";
	struct bench_table *t = bench_table_new("tune: GB/s median per kernel",
						BT_TEXT | BT_DATA, ncols, cols);
	for (size_t e = 0; e < m->nsizes; e++) {
		size_t bytes = m->sizes[e];
		char ext[16];
		bench_size_str(bytes, ext, sizeof(ext));
		bench_progress("tune: %s (%zu/%zu)", ext, e + 1, m->nsizes);
		struct bench_rounds cfg = bench_rounds_for(opts, bytes);
		double *samples = bench_sample(c, m->nk, buf, bytes, &cfg);
		size_t bt = 0, bnt = 0;
		m->best_t[e] = m->best_nt[e] = 0;
		bench_table_row(t);
		bench_cell_str(t, ext);
		for (size_t k = 0; k < m->nk; k++) {
			double g = bench_gbs(bytes, bench_median(&samples[k * cfg.rounds], cfg.rounds));
			m->gbs[e][k] = g;
			double *best = is_nt(m->k[k]) ? &m->best_nt[e] : &m->best_t[e];
			if (g > *best) {
				*best = g;
				*(is_nt(m->k[k]) ? &bnt : &bt) = k;
			}
			if (k + 1 < ncols - 2)
				bench_cell_num(t, g, "%.2f");
		}
		free(samples);
		bench_cell_str(t, m->best_t[e] > 0 ? m->k[bt]->name : "n/a");
		bench_cell_str(t, m->best_nt[e] > 0 ? m->k[bnt]->name : "n/a");
	}
	return t;
}

/* ---- verification: defaults against the profile, same rounds ---- */
static const char *tuned_path;
static int tuned_active = -1;

/* Switch lazily: the first (untimed, warm-up) pass of a visit pays for it. */
static void use_profile(int tuned)
{
	if (tuned_active != tuned && cp_set_profile(tuned ? tuned_path : NULL) == 0)
		tuned_active = tuned;
}

static void clear_defaults(const struct bench_contender *c, void *buf, size_t bytes)
{
	(void)c;
	use_profile(0);
	cp_clear_pages(buf, bytes / CP_PAGE_SIZE);
}

static void clear_tuned(const struct bench_contender *c, void *buf, size_t bytes)
{
	(void)c;
	use_profile(1);
	cp_clear_pages(buf, bytes / CP_PAGE_SIZE);
}

/* tuned/default at its lowest and highest, and where (sizes indices); and
 * its range where both pick the same kernel: that spread is the noise. */
struct verdict {
	double worst, best, noise_lo, noise_hi;
	size_t worst_e, best_e;
};

static struct bench_table *verify(const struct bench_opts *opts, void *buf,
				  const struct medians *m, struct verdict *v)
{
	static const char *const cols[] = { "extent", "default picks", "default", "tuned picks",
					    "tuned", "tuned/default" };
	struct bench_table *t = bench_table_new(
		"tune verify: cp_clear_pages GB/s median, defaults vs the profile",
		BT_TEXT | BT_DATA, 6, cols);
	struct bench_contender c[2] = { { .name = "default", .clear = clear_defaults },
					 { .name = "tuned", .clear = clear_tuned } };
	v->worst = v->noise_lo = INFINITY;
	v->best = v->noise_hi = 0;
	v->worst_e = v->best_e = 0;
	for (size_t e = 0; e < m->nsizes; e++) {
		size_t bytes = m->sizes[e], pages = bytes / CP_PAGE_SIZE;
		char ext[16];
		bench_size_str(bytes, ext, sizeof(ext));
		bench_progress("tune verify: %s (%zu/%zu)", ext, e + 1, m->nsizes);
		use_profile(0);
		const char *pick_default = cp_kernel_for(pages)->name;
		use_profile(1);
		const char *pick_tuned = cp_kernel_for(pages)->name;
		struct bench_rounds cfg = bench_rounds_for(opts, bytes);
		if (!opts->rounds && bytes <= (size_t)4 << 20)
			cfg.rounds *= 3;   /* short samples on a shared host: cheap to take more */
		double *samples = bench_sample(c, 2, buf, bytes, &cfg);
		double d = bench_gbs(bytes, bench_median(samples, cfg.rounds));
		double tu = bench_gbs(bytes, bench_median(samples + cfg.rounds, cfg.rounds));
		free(samples);
		bench_table_row(t);
		bench_cell_str(t, ext);
		bench_cell_str(t, pick_default);
		bench_cell_num(t, d, "%.2f");
		bench_cell_str(t, pick_tuned);
		bench_cell_num(t, tu, "%.2f");
		bench_cell_num(t, tu / d, "%.2f");
		double r = tu / d;
		if (r < v->worst) { v->worst = r; v->worst_e = e; }
		if (r > v->best) { v->best = r; v->best_e = e; }
		if (!strcmp(pick_default, pick_tuned)) {
			v->noise_lo = r < v->noise_lo ? r : v->noise_lo;
			v->noise_hi = r > v->noise_hi ? r : v->noise_hi;
		}
	}
	use_profile(0);
	return t;
}

static size_t default_sizes(const struct bench_opts *opts, size_t *sizes)
{
	size_t n = 0, top = opts->quick ? (size_t)256 << 20 : (size_t)1 << 30;
	for (size_t s = 4096; s <= top; s *= opts->quick ? 4 : 2)
		sizes[n++] = s;
	return n;
}

/* The profile into a new file under $TMPDIR (or /tmp); 0 or 1 after a message. */
static int save_profile(const struct medians *m, const struct choice *c, char *path, size_t len)
{
	const char *dir = getenv("TMPDIR");
	snprintf(path, len, "%s/clearpages-tuned-XXXXXX.profile", dir && *dir ? dir : "/tmp");
	int fd = mkstemps(path, 8);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		fprintf(stderr, "clearbench: cannot create %s\n", path);
		return 1;
	}
	write_profile(f, m, c);
	return fclose(f) ? 1 : 0;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

int bench_tune(const struct bench_opts *opts)
{
	int rc = bench_no_plot(opts, "tune");
	if (rc)
		return rc;
	static struct medians m;
	m.nsizes = opts->nsizes;
	if (m.nsizes)
		memcpy(m.sizes, opts->sizes, m.nsizes * sizeof(*m.sizes));
	else
		m.nsizes = default_sizes(opts, m.sizes);
	qsort(m.sizes, m.nsizes, sizeof(*m.sizes), cmp_size);   /* the bands need order */
	size_t top = m.sizes[m.nsizes - 1];
	void *buf = bench_map(top);
	if (!buf)
		return 1;
	struct bench_table *tables[2];
	tables[0] = measure(opts, buf, &m);
	struct choice c = derive(&m);
	char path[4096];
	rc = save_profile(&m, &c, path, sizeof(path));
	if (!rc && cp_set_profile(path)) {
		fprintf(stderr, "clearbench: the library rejected the profile %s\n", path);
		rc = 1;
	}
	if (rc) {
		bench_unmap(buf, top);
		bench_table_free(tables[0]);
		return rc;
	}
	tuned_path = path;
	struct verdict v;
	tables[1] = verify(opts, buf, &m, &v);
	bench_unmap(buf, top);

	bench_table_print(tables[0]);
	printf("\nprofile (written to %s; use it with CLEARPAGES_PROFILE=%s):\n\n", path, path);
	write_profile(stdout, &m, &c);
	bench_table_print(tables[1]);
	printf("\n");
	char a[16], b[16];
	bench_note("verify: tuned/default is %.2f at worst (%s) and %.2f at best (%s); "
		   "within noise everywhere (>= 0.97): %s.", v.worst,
		   bench_size_str(m.sizes[v.worst_e], a, sizeof(a)), v.best,
		   bench_size_str(m.sizes[v.best_e], b, sizeof(b)), v.worst >= 0.97 ? "yes" : "NO");
	if (v.noise_hi > 0)
		bench_note("noise: where both pick the same kernel, tuned/default spans %.2f-%.2f.",
			   v.noise_lo, v.noise_hi);
	bench_note("profile: %s", path);
	rc = bench_write_outputs(opts, "tune", tables, 2);
	bench_table_free(tables[0]);
	bench_table_free(tables[1]);
	return rc;
}
