/* SPDX-License-Identifier: MIT */
/*
 * The built-in rows (common/builtin.c) held to what they claim, never to
 * their own literals:
 *  - each row is well formed, names kernels the tables know, and a CPU of
 *    its microarchitecture, described as detection describes it, selects it;
 *  - under every CLEARPAGES_DISABLE mask of this arch (every subset of its
 *    tokens), on the row's CPU as measured and with every feature, each band
 *    of the clear and the copy policy keeps the class (temporal or
 *    non-temporal) of the row's kernel at that extent; the kernel is usable
 *    under the mask and is the row's own where that one is usable and not
 *    demoted (ranked by a masked feature), never a demoted stand-in; the
 *    bands ascend from 0; hot stays temporal, cold and uncached from 16 KiB
 *    non-temporal (common/select.c's header comment);
 *  - against the tables recorded on the row's host (tests/data/): at every
 *    recorded extent the row's kernel reaches HOT_FLOOR of the fastest
 *    kernel and no kernel of a neighbouring band leads it by more than LEAD,
 *    so each boundary sits at a crossover the host measured (to the
 *    tables' noise); the same for copy bands, a built-in copy row against
 *    its record and the derived bands of a row without one against a
 *    recorded copy sweep.
 * Pure: every CPU is described, so it runs on any host.
 */
#include "select_util.h"
#include "recorded_table.h"

/* A check that fails the test and says why, the first MAX_SAID times. */
struct tally {
	unsigned fails, checks;
};
#define MAX_SAID 40
#define CHECK(t, cond, ...)                                                     \
	do {                                                                    \
		(t)->checks++;                                                  \
		if (!(cond) && (t)->fails++ < MAX_SAID)                         \
			cr_expect(0, __VA_ARGS__);                              \
	} while (0)

static int is_nt(unsigned flags)
{
	return (flags & CP_NONTEMPORAL) != 0;
}

static const char *class_name(unsigned flags)
{
	return is_nt(flags) ? "non-temporal" : "temporal";
}

/* ---- the two kernel tables -------------------------------------------- */

static const struct cp__kernel_desc *clear_desc(const char *name)
{
	for (size_t i = 0; i < cp__kernel_table_len; i++)
		if (!strcmp(cp__kernel_table[i].kernel.name, name))
			return &cp__kernel_table[i];
	return NULL;
}

static const struct cp__copy_kernel_desc *copy_desc(const char *name)
{
	for (size_t i = 0; i < cp__copy_kernel_table_len; i++)
		if (!strcmp(cp__copy_kernel_table[i].kernel.name, name))
			return &cp__copy_kernel_table[i];
	return NULL;
}

/* A band that cannot keep its kernel falls to one of the same class, so each
 * class needs a kernel every CPU runs: no feature, not even vector
 * registers, and not demoted on any CPU. */
Test(builtin_rows, each_class_has_a_kernel_every_cpu_runs)
{
	for (unsigned nt = 0; nt <= 1; nt++) {
		int clear = 0, copy = 0;
		for (size_t i = 0; i < cp__kernel_table_len; i++)
			clear |= is_nt(cp__kernel_table[i].kernel.flags) == (int)nt &&
				 !cp__kernel_table[i].needs && !cp__kernel_table[i].ranked_by;
		for (size_t i = 0; i < cp__copy_kernel_table_len; i++)
			copy |= is_nt(cp__copy_kernel_table[i].kernel.flags) == (int)nt &&
				!cp__copy_kernel_table[i].needs && !cp__copy_kernel_table[i].ranked_by;
		cr_expect(clear, "no %s clear kernel runs on every CPU", nt ? "non-temporal" : "temporal");
		cr_expect(copy, "no %s copy kernel runs on every CPU", nt ? "non-temporal" : "temporal");
	}
}

/* ---- a decided state under a mask -------------------------------------- */

/* Extents to look at: each power of two to 4 GiB, and each boundary of the
 * row and of the policy, with the page before it. */
#define MAX_EXTENTS 128
struct extents {
	unsigned n;
	size_t e[MAX_EXTENTS];
};

static void extents_add(struct extents *x, size_t e)
{
	if (e == 0 || e == CP__BAND_UNUSED)
		return;
	for (unsigned i = 0; i < x->n; i++)
		if (x->e[i] == e)
			return;
	if (x->n < MAX_EXTENTS)
		x->e[x->n++] = e;
}

static void extents_around(struct extents *x, size_t from)
{
	extents_add(x, from);
	if (from != CP__BAND_UNUSED && from > 1)
		extents_add(x, from - 1);
}

/* Ascending from 0; the unused slots repeat the last band's kernel. */
static void check_order(struct tally *t, const char *who, const char *list, const size_t *from,
			const void *const *kernel)
{
	CHECK(t, from[0] == 0, "%s %s: starts at %zu pages", who, list, from[0]);
	unsigned n = 1;
	while (n < CP__MAX_BANDS && from[n] != CP__BAND_UNUSED) {
		CHECK(t, from[n] > from[n - 1], "%s %s: band %u from %zu after %zu", who, list, n,
		      from[n], from[n - 1]);
		n++;
	}
	for (unsigned i = n; i < CP__MAX_BANDS; i++)
		CHECK(t, from[i] == CP__BAND_UNUSED && kernel[i] == kernel[n - 1],
		      "%s %s: unused slot %u", who, list, i);
}

static void check_clear_order(struct tally *t, const char *who, const char *list,
			      const struct cp__bands *b)
{
	size_t from[CP__MAX_BANDS];
	const void *k[CP__MAX_BANDS];
	for (unsigned i = 0; i < CP__MAX_BANDS; i++) {
		from[i] = b->band[i].from_pages;
		k[i] = b->band[i].kernel;
	}
	check_order(t, who, list, from, k);
}

static void check_copy_order(struct tally *t, const char *who, const struct cp__copy_bands *b)
{
	size_t from[CP__MAX_BANDS];
	const void *k[CP__MAX_BANDS];
	for (unsigned i = 0; i < CP__MAX_BANDS; i++) {
		from[i] = b->band[i].from_pages;
		k[i] = b->band[i].kernel;
	}
	check_order(t, who, "copy", from, k);
}

/* A stand-in (a band whose row kernel is masked or demoted) is chosen as
 * the generic rule chooses (select.c's generic_pick, copy_bands.c's
 * cp__copy_class_pick): no zmm kernel where the CPU prefers none
 * (CP__P_NO_AVX512: every AMD core, arch/x86_64/cpu.c), since each class
 * has a kernel every CPU runs (each_class_has_a_kernel_every_cpu_runs). */
static int zmm_unwanted(const struct cp__state *s, unsigned needs)
{
	return (s->cpu.prefs & CP__P_NO_AVX512) && (needs & CP__F_AVX512);
}

/* The row's kernel name at extent e (pages): its last band from at most e. */
static const char *row_at(const struct cp__builtin_band *rows, unsigned n, size_t e)
{
	const char *name = rows[0].kernel;
	for (unsigned i = 1; i < n; i++)
		if (e >= rows[i].from_pages)
			name = rows[i].kernel;
	return name;
}

/* Everything that must hold of the state s decided for row b (NULL: the
 * generic rule) under a mask. */
static void check_state(struct tally *t, const char *who, const struct cp__builtin *b,
			const struct cp__state *s)
{
	const struct cp__policy *p = &s->policy;
	struct extents x = { 0 };
	for (size_t e = 1; e <= ((size_t)1 << 20); e *= 2)
		extents_add(&x, e);
	for (unsigned i = 0; i < CP__MAX_BANDS; i++) {
		extents_around(&x, p->any.band[i].from_pages);
		extents_around(&x, p->copy.band[i].from_pages);
		extents_around(&x, p->uncached.band[i].from_pages);
		extents_around(&x, p->copy_uncached.band[i].from_pages);
	}
	extents_around(&x, p->copy_estimate_from_pages);
	for (unsigned i = 0; b && i < b->nbands; i++)
		extents_around(&x, b->bands[i].from_pages);
	for (unsigned i = 0; b && i < b->ncopy; i++)
		extents_around(&x, b->copy[i].from_pages);

	const struct cp__bands *lists[] = { &p->any, &p->hot, &p->cold, &p->uncached };
	static const char *const names[] = { "any", "hot", "cold", "uncached" };
	int null = 0;
	for (unsigned l = 0; l < 4; l++) {
		check_clear_order(t, who, names[l], lists[l]);
		for (unsigned i = 0; i < CP__MAX_BANDS; i++) {
			const struct cp_kernel *k = lists[l]->band[i].kernel;
			null |= !k;
			CHECK(t, k && cp__list_find(&s->kernels, k->name) == k,
			      "%s %s band %u: %s is not usable", who, names[l], i, k ? k->name : "NULL");
		}
	}
	check_copy_order(t, who, &p->copy);
	check_copy_order(t, who, &p->copy_uncached);
	for (unsigned i = 0; i < 2 * CP__MAX_BANDS; i++) {
		const struct cp__copy_bands *cb = i < CP__MAX_BANDS ? &p->copy : &p->copy_uncached;
		const struct cp_copy_kernel *k = cb->band[i % CP__MAX_BANDS].kernel;
		null |= !k;
		CHECK(t, k && cp__copy_list_find(&s->copy_kernels, k->name) == k,
		      "%s copy%s band %u: %s is not a usable copy kernel", who,
		      cb == &p->copy ? "" : "_uncached", i % CP__MAX_BANDS, k ? k->name : "NULL");
	}
	if (null)
		return;         /* failed above; what follows would crash */

	for (unsigned j = 0; j < x.n; j++) {
		size_t e = x.e[j];
		const struct cp_kernel *any = cp__bands_pick(&p->any, e);
		const struct cp_kernel *hot = cp__bands_pick(&p->hot, e);
		const struct cp_kernel *cold = cp__bands_pick(&p->cold, e);
		const struct cp_kernel *unc = cp__bands_pick(&p->uncached, e);
		const struct cp_copy_kernel *copy = cp__copy_bands_pick(&p->copy, e);
		CHECK(t, !is_nt(hot->flags), "%s hot at %zu pages: %s is non-temporal", who, e,
		      hot->name);
		CHECK(t, is_nt(cold->flags), "%s cold at %zu pages: %s is temporal", who, e, cold->name);
		CHECK(t, is_nt(any->flags) || hot == any, "%s hot at %zu pages: %s, any's %s", who, e,
		      hot->name, any->name);
		CHECK(t, !is_nt(any->flags) || cold == any, "%s cold at %zu pages: %s, any's %s", who,
		      e, cold->name, any->name);
		/* where any is non-temporal, hot keeps the temporal kernel before
		 * that band; where any is temporal, cold takes the non-temporal
		 * kernel of the band after it */
		unsigned band = 0;
		while (band + 1 < CP__MAX_BANDS && e >= p->any.band[band + 1].from_pages)
			band++;
		size_t start = p->any.band[band].from_pages;
		if (is_nt(any->flags) && start > 1)
			CHECK(t, hot == cp__bands_pick(&p->hot, start - 1),
			      "%s hot at %zu pages: %s, before any's non-temporal band %s", who, e,
			      hot->name, cp__bands_pick(&p->hot, start - 1)->name);
		if (!is_nt(any->flags) && band + 1 < CP__MAX_BANDS &&
		    p->any.band[band + 1].from_pages != CP__BAND_UNUSED &&
		    is_nt(p->any.band[band + 1].kernel->flags))
			CHECK(t, cold == p->any.band[band + 1].kernel,
			      "%s cold at %zu pages: %s, any's next band %s", who, e, cold->name,
			      p->any.band[band + 1].kernel->name);
		CHECK(t, e < 4 || is_nt(unc->flags), "%s uncached at %zu pages: %s is temporal", who,
		      e, unc->name);
		/* copies on uncached memory: the copy bands below where the
		 * uncached bands go non-temporal (never below 16 KiB), a
		 * non-temporal kernel from there, estimated from where the two
		 * part */
		size_t unc_nt = cp__bands_nt_from(&p->uncached);
		if (unc_nt < CP__COPY_ESTIMATE_MIN_PAGES)
			unc_nt = CP__COPY_ESTIMATE_MIN_PAGES;
		const struct cp_copy_kernel *copy_unc = cp__copy_bands_pick(&p->copy_uncached, e);
		if (e < unc_nt)
			CHECK(t, copy_unc == copy, "%s copy_uncached at %zu pages: %s, the copy "
			      "bands' %s (uncached non-temporal from %zu)", who, e, copy_unc->name,
			      copy->name, unc_nt);
		else
			CHECK(t, is_nt(copy_unc->flags), "%s copy_uncached at %zu pages: %s is "
			      "temporal", who, e, copy_unc->name);
		CHECK(t, !p->cached_min_mbps || (copy_unc != copy) <= (e >= p->copy_estimate_from_pages),
		      "%s copy at %zu pages: %s cached, %s uncached, but estimated from %zu", who,
		      e, copy->name, copy_unc->name, p->copy_estimate_from_pages);

		if (b) {
			const char *want = row_at(b->bands, b->nbands, e);
			const struct cp__kernel_desc *d = clear_desc(want);
			const struct cp_kernel *usable = cp__list_find(&s->kernels, want);
			const struct cp__kernel_desc *got = cp__kernel_desc_of(any);
			CHECK(t, d && is_nt(any->flags) == is_nt(d->kernel.flags),
			      "%s any at %zu pages: %s (%s) for the row's %s (%s)", who, e, any->name,
			      class_name(any->flags), want, d ? class_name(d->kernel.flags) : "unknown");
			if (usable && d && !cp__kernel_demoted(d, s->features))
				CHECK(t, any == usable, "%s any at %zu pages: %s, the row's %s is usable",
				      who, e, any->name, want);
			else {
				CHECK(t, got && !cp__kernel_demoted(got, s->features),
				      "%s any at %zu pages: %s for the row's %s, demoted by the mask", who,
				      e, any->name, want);
				CHECK(t, got && !zmm_unwanted(s, got->needs),
				      "%s any at %zu pages: %s stands in for the row's %s, a zmm kernel "
				      "where the CPU prefers none", who, e, any->name, want);
			}
		}
		if (b && b->ncopy) {
			const char *want = row_at(b->copy, b->ncopy, e);
			const struct cp__copy_kernel_desc *d = copy_desc(want);
			const struct cp_copy_kernel *usable = cp__copy_list_find(&s->copy_kernels, want);
			const struct cp__copy_kernel_desc *got = copy_desc(copy->name);
			CHECK(t, d && is_nt(copy->flags) == is_nt(d->kernel.flags),
			      "%s copy at %zu pages: %s (%s) for the row's %s (%s)", who, e, copy->name,
			      class_name(copy->flags), want, d ? class_name(d->kernel.flags) : "unknown");
			if (usable && d && !(d->ranked_by && !(d->ranked_by & s->features)))
				CHECK(t, copy == usable, "%s copy at %zu pages: %s, the row's %s is usable",
				      who, e, copy->name, want);
			else {
				CHECK(t, got && !(got->ranked_by && !(got->ranked_by & s->features)),
				      "%s copy at %zu pages: %s for the row's %s, demoted by the mask", who,
				      e, copy->name, want);
				CHECK(t, got && !zmm_unwanted(s, got->needs),
				      "%s copy at %zu pages: %s stands in for the row's %s, a zmm kernel "
				      "where the CPU prefers none", who, e, copy->name, want);
			}
		} else if (e <= ((size_t)1 << 20)) {
			/* derived: the class of the clear's kernel at the same extent */
			CHECK(t, is_nt(copy->flags) == is_nt(any->flags),
			      "%s copy at %zu pages: %s (%s), the clear's %s (%s)", who, e,
			      copy->name, class_name(copy->flags), any->name, class_name(any->flags));
		}
	}
}

/* Every subset of this arch's CLEARPAGES_DISABLE tokens: the masks and a
 * name for each. */
struct masks {
	unsigned ntokens;
	unsigned feature[16];
	const char *token[16];
};

static void masks_of_this_arch(struct masks *m)
{
	m->ntokens = 0;
	for (size_t i = 0; i < cp__feature_tokens_len; i++)
		if (cp__feature_token_here(&cp__feature_tokens[i]) && m->ntokens < 16) {
			m->feature[m->ntokens] = cp__feature_tokens[i].feature;
			m->token[m->ntokens++] = cp__feature_tokens[i].token;
		}
	cr_assert_geq(m->ntokens, 3, "this arch has %u CLEARPAGES_DISABLE tokens", m->ntokens);
	cr_assert_leq(m->ntokens, 12, "%u tokens: 2^n masks is too many", m->ntokens);
}

static unsigned mask_of(const struct masks *m, unsigned subset, char *text, size_t len)
{
	unsigned mask = 0;
	text[0] = '\0';
	for (unsigned i = 0; i < m->ntokens; i++)
		if (subset & (1u << i)) {
			size_t l = strlen(text);
			snprintf(text + l, len - l, "%s%s", l ? "," : "", m->token[i]);
			mask |= m->feature[i];
		}
	if (!text[0])
		snprintf(text, len, "(none)");
	return mask;
}

/* The state of a described CPU under every mask, each checked. */
static void check_every_mask(struct tally *t, const char *who, const struct cp__cpu *cpu,
			     const struct cp__builtin *b)
{
	struct masks m;
	masks_of_this_arch(&m);
	for (unsigned subset = 0; subset < (1u << m.ntokens); subset++) {
		char tokens[128], name[256];
		unsigned mask = mask_of(&m, subset, tokens, sizeof(tokens));
		struct cp__decide_in in = { .cpu = cpu, .disable = mask, .quiet = 1 };
		static struct cp__state s;
		cp__state_decide(&in, &s);
		snprintf(name, sizeof(name), "%s, CLEARPAGES_DISABLE=%s (%s)", who, tokens,
			 s.default_source);
		if (b)
			CHECK(t, !strncmp(s.default_source, "builtin:", 8) &&
				 !strcmp(s.default_source + 8, b->uarch),
			      "%s: not the row's policy", name);
		check_state(t, name, b, &s);
	}
}

#if defined(__x86_64__)
enum { ERMS = CP__F_ERMS, FSRM = CP__F_FSRM, AVX2 = CP__F_AVX2, CLZ = CP__F_CLZERO,
       Z512 = CP__F_AVX512, CTR = CP__F_COUNTER };

/* A CPU of each row's microarchitecture as detection describes the host the
 * row was measured on (bench/results/<host>/README.md), caches included. */
static const struct row_cpu {
	const char *uarch, *vendor;
	unsigned family, model, features;
	size_t l2_kib, llc_mib;
} row_cpus[] = {
	{ "intel-sapphire-rapids", "GenuineIntel", 6, 0x8f, ERMS | FSRM | AVX2 | Z512 | CTR, 2048, 480 },
	{ "intel-emerald-rapids", "GenuineIntel", 6, 0xcf, ERMS | FSRM | AVX2 | Z512 | CTR, 2048, 300 },
	{ "amd-zen3", "AuthenticAMD", 0x19, 0x01, ERMS | FSRM | AVX2 | CLZ | CTR, 512, 32 },
	{ "amd-zen4", "AuthenticAMD", 0x19, 0x11, ERMS | FSRM | AVX2 | CLZ | Z512 | CTR, 1024, 32 },
	{ "amd-zen5", "AuthenticAMD", 0x1a, 0x02, ERMS | FSRM | AVX2 | CLZ | Z512 | CTR, 1024, 32 },
};
#define NROW_CPUS (sizeof(row_cpus) / sizeof(row_cpus[0]))

static struct cp__cpu describe_cpu(const struct row_cpu *r, unsigned features)
{
	struct cp__cpu c;
	memset(&c, 0, sizeof(c));
	snprintf(c.vendor, sizeof(c.vendor), "%s", r->vendor);
	strcpy(c.model, "described");
	c.family = r->family;
	c.model_id = r->model;
	c.features = features | CP__F_SIMD;
	c.l2_bytes = r->l2_kib << 10;
	c.llc_bytes = r->llc_mib << 20;
	cp__cpu_identify(&c);
	return c;
}

static const struct row_cpu *cpu_of_row(const struct cp__builtin *b)
{
	for (size_t i = 0; i < NROW_CPUS; i++)
		if (!strcmp(row_cpus[i].uarch, b->uarch))
			return &row_cpus[i];
	return NULL;
}

static unsigned every_feature(void)
{
	unsigned f = 0;
	for (size_t i = 0; i < cp__feature_tokens_len; i++)
		if (cp__feature_token_here(&cp__feature_tokens[i]))
			f |= cp__feature_tokens[i].feature;
	return f;
}

/* Each row: bands ascending from 0, kernels the tables know; a described
 * CPU of its microarchitecture selects it, and unmasked its policy is the
 * row (read from cp__builtins: selection applies rows, whatever they say). */
Test(builtin_rows, each_row_is_well_formed_and_selected)
{
	cr_assert_gt(cp__builtins_len, 0);
	for (size_t i = 0; i < cp__builtins_len; i++) {
		const struct cp__builtin *b = &cp__builtins[i];
		const struct row_cpu *r = cpu_of_row(b);
		cr_assert_not_null(r, "%s: no described CPU in this test; add one to row_cpus[]",
				   b->uarch);
		cr_assert(b->nbands >= 1 && b->nbands <= CP__MAX_BANDS, "%s: %u bands", b->uarch,
			  b->nbands);
		cr_assert_leq(b->ncopy, sizeof(b->copy) / sizeof(b->copy[0]), "%s: %u copy bands",
			      b->uarch, b->ncopy);
		for (unsigned j = 0; j < b->nbands; j++) {
			cr_expect_not_null(clear_desc(b->bands[j].kernel), "%s: no clear kernel %s",
					   b->uarch, b->bands[j].kernel);
			cr_expect(j ? b->bands[j].from_pages > b->bands[j - 1].from_pages
				    : b->bands[j].from_pages == 0, "%s band %u from %zu", b->uarch, j,
				  b->bands[j].from_pages);
		}
		for (unsigned j = 0; j < b->ncopy; j++) {
			cr_expect_not_null(copy_desc(b->copy[j].kernel), "%s: no copy kernel %s",
					   b->uarch, b->copy[j].kernel);
			cr_expect(j ? b->copy[j].from_pages > b->copy[j - 1].from_pages
				    : b->copy[j].from_pages == 0, "%s copy band %u from %zu", b->uarch,
				  j, b->copy[j].from_pages);
		}
		struct described d;
		memset(&d, 0, sizeof(d));
		d.cpu = describe_cpu(r, r->features);
		cr_assert_str_eq(d.cpu.uarch, b->uarch);
		select_for(&d, 0, NULL);
		char want[48];
		snprintf(want, sizeof(want), "builtin:%s", b->uarch);
		cr_assert_str_eq(d.source, want);
		for (unsigned j = 0; j < b->nbands; j++)
			cr_expect_str_eq(cp__bands_pick(&d.policy.any, b->bands[j].from_pages)->name,
					 b->bands[j].kernel, "%s at %zu pages", b->uarch,
					 b->bands[j].from_pages);
		for (unsigned j = 0; j < b->ncopy; j++)
			cr_expect_str_eq(cp__copy_bands_pick(&d.policy.copy, b->copy[j].from_pages)->name,
					 b->copy[j].kernel, "%s copy at %zu pages", b->uarch,
					 b->copy[j].from_pages);
		/* the row's numbers, or the generic rule's where it gives none
		 * (select.c: 16000 MB/s, discard from 4 MiB) */
		cr_expect_eq(d.policy.parallel_min_share_pages, b->parallel_min_share_pages, "%s",
			     b->uarch);
		cr_expect_eq(d.policy.cached_min_mbps, b->cached_min_mbps ? b->cached_min_mbps : 16000,
			     "%s", b->uarch);
		cr_expect_eq(d.policy.discard_from_pages,
			     b->discard_from_pages ? b->discard_from_pages : MIB_PAGES(4), "%s",
			     b->uarch);
	}
}

/* Every row under every mask, on its CPU as measured and on one with every
 * feature of this arch (so that every token masks something). */
Test(builtin_rows, every_mask_keeps_each_bands_class)
{
	struct tally t = { 0 };
	for (size_t i = 0; i < cp__builtins_len; i++) {
		const struct cp__builtin *b = &cp__builtins[i];
		const struct row_cpu *r = cpu_of_row(b);
		cr_assert_not_null(r, "%s: no described CPU", b->uarch);
		const unsigned features[] = { r->features, every_feature() };
		for (unsigned f = 0; f < 2; f++) {
			struct cp__cpu cpu = describe_cpu(r, features[f]);
			char who[96];
			snprintf(who, sizeof(who), "%s%s", b->uarch, f ? " (every feature)" : "");
			check_every_mask(&t, who, &cpu, b);
		}
	}
	cr_expect_eq(t.fails, 0, "%u of %u checks failed (the first %u said above)", t.fails,
		     t.checks, MAX_SAID);
	cr_expect_gt(t.checks, 100000, "only %u checks", t.checks);
}

/* CPUs no row was measured on, under every mask: the generic rule's bands
 * keep their classes too. */
Test(builtin_rows, generic_rule_under_every_mask)
{
	static const struct row_cpu others[] = {
		{ "skylake-x", "GenuineIntel", 6, 0x55, ERMS | AVX2 | Z512 | CTR, 1024, 38 },
		{ "future amd", "AuthenticAMD", 0x1f, 0x01, ERMS | FSRM | AVX2 | CLZ | Z512 | CTR, 1024, 32 },
		{ "qemu64", "AuthenticAMD", 0xf, 0x6b, 0, 512, 16 },
	};
	struct tally t = { 0 };
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		struct cp__cpu cpu = describe_cpu(&others[i], others[i].features | every_feature());
		cr_assert_str_empty(cpu.uarch, "%s has a row", others[i].uarch);
		check_every_mask(&t, others[i].uarch, &cpu, NULL);
	}
	cr_expect_eq(t.fails, 0, "%u of %u checks failed", t.fails, t.checks);
}

/* The case of issue 49: CLEARPAGES_DISABLE=avx512 on a Zen 5. The copy row
 * is avx512 below 32 KiB, rep_movsb from there; masked, the small copies
 * take the next temporal copy kernel of cp_copy_kernels()'s ranking (avx2),
 * never a non-temporal one (avx2_nt). With erms,fsrm masked rep_movsb is
 * demoted, and its band takes the first temporal kernel of the ranking that
 * is not, zmm skipped (an AMD core prefers none): avx2 again. */
Test(builtin_rows, zen5_copy_row_masked)
{
	const struct row_cpu *r = cpu_of_row(cp__builtin_find("amd-zen5"));
	cr_assert_not_null(r);
	struct cp__cpu cpu = describe_cpu(r, r->features);
	struct cp__decide_in in = { .cpu = &cpu, .disable = CP__F_AVX512, .quiet = 1 };
	static struct cp__state s;
	cp__state_decide(&in, &s);
	cr_assert_str_eq(s.default_source, "builtin:amd-zen5");
	for (size_t e = 1; e < 8; e++) {
		const char *got = cp__copy_bands_pick(&s.policy.copy, e)->name;
		cr_expect_str_eq(got, "avx2", "avx512 masked, %zu pages: %s", e, got);
	}
	cr_expect_str_eq(cp__copy_bands_pick(&s.policy.copy, 8)->name, "rep_movsb");
	in.disable = CP__F_ERMS | CP__F_FSRM;
	cp__state_decide(&in, &s);
	cr_expect_str_eq(cp__copy_bands_pick(&s.policy.copy, 1)->name, "avx512");
	const char *k = cp__copy_bands_pick(&s.policy.copy, 8)->name;
	cr_expect_str_eq(k, "avx2", "erms,fsrm masked, 32 KiB: %s (AMD prefers no zmm stand-in)", k);
}

/* ---- the rows against their hosts' recorded tables --------------------- */

#define HOT_FLOOR 0.80
/* The most a kernel of a neighbouring band may lead the row's kernel by, as
 * a share of the fastest: what two medians' noise allows. The same code
 * timed twice reads 0.94-1.06 (p10-p90, TIE; tests/test_generic_rule.c),
 * so the difference of two medians is good to about sqrt(2) x TIE = 0.085.
 * The closest a row comes is Emerald Rapids at 32 MiB: non-temporal at 0.94
 * of rep stosb's median, where its row says temporal stores turn bimodal. */
#define TIE 0.06
#define LEAD (TIE * M_SQRT2)

static int is_clear_kernel(const char *name)
{
	return clear_desc(name) != NULL;
}

static int is_copy_kernel(const char *name)
{
	return copy_desc(name) != NULL;
}


/* Bands as names and starts, clear or copy alike. */
struct named_bands {
	unsigned n;
	size_t from[CP__MAX_BANDS];
	const char *kernel[CP__MAX_BANDS];
};

static struct named_bands named_clear(const struct cp__bands *b)
{
	struct named_bands nb = { .n = cp__bands_count(b) };
	for (unsigned i = 0; i < nb.n; i++) {
		nb.from[i] = b->band[i].from_pages;
		nb.kernel[i] = b->band[i].kernel->name;
	}
	return nb;
}

static struct named_bands named_copy(const struct cp__copy_bands *b)
{
	struct named_bands nb = { .n = 1 };
	while (nb.n < CP__MAX_BANDS && b->band[nb.n].from_pages != CP__BAND_UNUSED)
		nb.n++;
	for (unsigned i = 0; i < nb.n; i++) {
		nb.from[i] = b->band[i].from_pages;
		nb.kernel[i] = b->band[i].kernel->name;
	}
	return nb;
}

static unsigned band_of(const struct named_bands *nb, size_t pages)
{
	unsigned i = 0;
	while (i + 1 < nb->n && pages >= nb->from[i + 1])
		i++;
	return i;
}

/* At every recorded extent: the band's kernel measured, at HOT_FLOOR of the
 * fastest at least, and led by no neighbouring band's kernel by more than
 * LEAD. */
static void check_crossovers(struct tally *t, const char *who, const struct table *tb,
			     const struct named_bands *nb)
{
	for (unsigned r = 0; r < tb->rows; r++) {
		size_t pages = tb->bytes[r] / PG;
		unsigned i = band_of(nb, pages);
		double k = ratio(tb, r, nb->kernel[i]);
		CHECK(t, k >= 0, "%s, %s at %zu KiB: %s was not measured", who, tb->name,
		      tb->bytes[r] >> 10, nb->kernel[i]);
		CHECK(t, k >= HOT_FLOOR, "%s, %s at %zu KiB: %s at %.2f of the fastest, floor %.2f",
		      who, tb->name, tb->bytes[r] >> 10, nb->kernel[i], k, HOT_FLOOR);
		for (int j = (int)i - 1; j <= (int)i + 1; j += 2) {
			if (j < 0 || j >= (int)nb->n)
				continue;
			double n = ratio(tb, r, nb->kernel[j]);
			CHECK(t, n < 0 || k >= n - LEAD,
			      "%s, %s at %zu KiB: %s (band from %zu pages) at %.2f, %s of the band "
			      "%s it at %.2f: the boundary is off the recorded crossover", who,
			      tb->name, tb->bytes[r] >> 10, nb->kernel[i], nb->from[i], k,
			      nb->kernel[j], j < (int)i ? "before" : "after", n);
		}
	}
}

/* The hosts each row was measured on, as detection describes them, and
 * their hot tables (tests/data/, docs/generic-rule.md says where each comes
 * from). Sapphire Rapids ran before the zmm kernels existed: no AVX-512. */
static const struct row_host {
	const char *uarch, *vendor;
	unsigned family, model, features;
	size_t l2_kib, llc_mib;
	const char *hot[2];
} row_hosts[] = {
	{ "intel-sapphire-rapids", "GenuineIntel", 6, 0x8f, ERMS | FSRM | AVX2 | CTR, 2048, 480,
	  { "intel-sapphire-rapids-hot.csv" } },
	{ "intel-emerald-rapids", "GenuineIntel", 6, 0xcf, ERMS | FSRM | AVX2 | Z512 | CTR, 2048, 300,
	  { "intel-emerald-rapids-hot.csv" } },
	{ "amd-zen3", "AuthenticAMD", 0x19, 0x01, ERMS | FSRM | AVX2 | CLZ | CTR, 512, 32,
	  { "amd-zen3-hot.csv", "amd-zen3-vm2-hot.csv" } },
	{ "amd-zen4", "AuthenticAMD", 0x19, 0x11, ERMS | FSRM | AVX2 | CLZ | Z512 | CTR, 1024, 32,
	  { "amd-zen4-hot.csv", "amd-zen4-v010-hot.csv" } },
	{ "amd-zen5", "AuthenticAMD", 0x1a, 0x02, ERMS | FSRM | AVX2 | CLZ | Z512 | CTR, 1024, 32,
	  { "amd-zen5-hot.csv" } },
};

static struct described describe_host(const struct row_host *h)
{
	struct row_cpu r = { h->uarch, h->vendor, h->family, h->model, h->features, h->l2_kib,
			     h->llc_mib };
	struct described d;
	memset(&d, 0, sizeof(d));
	d.cpu = describe_cpu(&r, h->features);
	select_for(&d, 0, NULL);
	return d;
}

/* Each row's cached bands (any: cp_clear_pages on memory in the caches)
 * against the hot tables of its host. */
Test(builtin_rows, bands_sit_at_the_recorded_crossovers)
{
	static struct table tb;
	struct tally t = { 0 };
	for (size_t i = 0; i < cp__builtins_len; i++) {
		const struct row_host *h = NULL;
		for (size_t j = 0; j < sizeof(row_hosts) / sizeof(row_hosts[0]); j++)
			if (!strcmp(row_hosts[j].uarch, cp__builtins[i].uarch))
				h = &row_hosts[j];
		cr_assert_not_null(h, "%s: no recorded host in this test", cp__builtins[i].uarch);
		struct described d = describe_host(h);
		char want[48];
		snprintf(want, sizeof(want), "builtin:%s", h->uarch);
		cr_assert_str_eq(d.source, want);
		struct named_bands nb = named_clear(&d.policy.any);
		for (unsigned k = 0; k < 2 && h->hot[k]; k++) {
			table_load(&tb, h->hot[k], NULL, is_clear_kernel);
			check_crossovers(&t, want, &tb, &nb);
		}
	}
	cr_expect_eq(t.fails, 0, "%u of %u checks failed", t.fails, t.checks);
}

/* The residency threshold of a row whose chunks are rep stosb's (the Intel
 * rows: common/residency.c times a chunk of the extent's own kernel there)
 * is the geometric mean of rep stosb's rate in the LLC and in DRAM, as the
 * rows say: on its host's hot table, the median at the largest extent to 8
 * MiB and at the largest recorded, within 10 %. (The AMD rows' thresholds
 * come from timed chunks: tests/test_residency.c, *_vm_chunk_timings.) */
Test(builtin_rows, string_rows_thresholds_from_their_tables)
{
	static struct table tb;
	unsigned rows = 0;
	for (size_t i = 0; i < cp__builtins_len; i++) {
		const struct cp__builtin *b = &cp__builtins[i];
		int string = 0;
		for (unsigned j = 0; j < b->nbands; j++)
			string |= !strcmp(b->bands[j].kernel, "rep_stosb");
		if (!string)
			continue;
		const struct row_host *h = NULL;
		for (size_t j = 0; j < sizeof(row_hosts) / sizeof(row_hosts[0]); j++)
			if (!strcmp(row_hosts[j].uarch, b->uarch))
				h = &row_hosts[j];
		cr_assert_not_null(h, "%s", b->uarch);
		table_load(&tb, h->hot[0], NULL, is_clear_kernel);
		unsigned llc = 0, dram = 0;
		for (unsigned r = 0; r < tb.rows; r++) {
			if (tb.bytes[r] <= ((size_t)8 << 20) && tb.bytes[r] >= tb.bytes[llc])
				llc = r;
			if (tb.bytes[r] > tb.bytes[dram])
				dram = r;
		}
		double at[2] = { -1, -1 };
		for (unsigned c = 0; c < tb.cols; c++)
			if (!strcmp(tb.kernel[c], "rep_stosb")) {
				at[0] = tb.gbs[llc][c];
				at[1] = tb.gbs[dram][c];
			}
		cr_assert(at[0] > 0 && at[1] > 0, "%s: rep_stosb not measured", tb.name);
		double mean = sqrt(at[0] * at[1]) * 1000;      /* MB/s */
		cr_expect(b->cached_min_mbps >= 0.9 * mean && b->cached_min_mbps <= 1.1 * mean,
			  "%s: cached_min_mbps %u, rep stosb %.1f GB/s at %zu KiB and %.1f at %zu "
			  "KiB: their geometric mean %.0f", b->uarch, b->cached_min_mbps, at[0],
			  tb.bytes[llc] >> 10, at[1], tb.bytes[dram] >> 10, mean);
		rows++;
	}
	cr_expect_geq(rows, 2, "%u rows with a rep_stosb band", rows);
}

/* A parallel share against the split its host recorded
 * (tests/data/amd-zen4-parallel.csv, from clearbench parallel on the Zen 4
 * VM: one thread against two shares, medians): with two threads an extent of
 * two shares or more is split, so at every recorded extent from there two
 * shares must not lose (within TIE), and the largest recorded extent below
 * it must: else a smaller share would have served. */
static void check_split(const char *who, size_t share_pages)
{
	FILE *f = fopen("tests/data/amd-zen4-parallel.csv", "r");
	cr_assert(f, "tests/data/amd-zen4-parallel.csv: cannot open");
	char line[128];
	cr_assert(fgets(line, sizeof(line), f));
	size_t split_from = 2 * share_pages * PG, below = 0;
	double below_ratio = -1;
	unsigned split = 0;
	while (fgets(line, sizeof(line), f)) {
		size_t bytes;
		double one, two;
		if (sscanf(line, "%*[^,],%zu,%lf,%lf", &bytes, &one, &two) != 3)
			continue;
		if (bytes >= split_from) {
			split++;
			cr_expect_geq(two / one, 1 - TIE, "%s, %zu KiB (split in two shares of %zu "
				      "KiB): %.2f of one thread", who, bytes >> 10, bytes >> 11, two / one);
		} else if (bytes > below) {
			below = bytes;
			below_ratio = two / one;
		}
	}
	fclose(f);
	cr_expect_gt(split, 0, "%s: no recorded extent is split", who);
	cr_assert_gt(below, 0, "%s: no recorded extent below the split", who);
	cr_expect_lt(below_ratio, 1, "%s, %zu KiB (not split): two shares ran %.2f of one "
		     "thread, a smaller share would gain", who, below >> 10, below_ratio);
}

/* The Zen 4 row's share, and the generic rule's (select.c: 8 MiB, "no
 * measured host lost there") on the same VM with its row withheld: in
 * sample, the only parallel table recorded. */
Test(builtin_rows, parallel_share_at_the_recorded_split)
{
	const struct cp__builtin *b = cp__builtin_find("amd-zen4");
	cr_assert_not_null(b);
	check_split("amd-zen4", b->parallel_min_share_pages);
	const struct row_cpu *r = cpu_of_row(b);
	cr_assert_not_null(r);
	struct cp__cpu cpu = describe_cpu(r, r->features);
	cpu.uarch[0] = '\0';                      /* the row withheld */
	struct cp__decide_in in = { .cpu = &cpu, .quiet = 1 };
	static struct cp__state s;
	cp__state_decide(&in, &s);
	cr_assert_str_eq(s.default_source, "generic");
	check_split("amd-zen4 (generic)", s.policy.parallel_min_share_pages);
}

/* "4K" "512K" "16M" "1G" in bytes. */
static size_t size_of(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	switch (*end) {
	case 'K': return (size_t)v << 10;
	case 'M': return (size_t)v << 20;
	case 'G': return (size_t)v << 30;
	default: return (size_t)v;
	}
}

/* Zen 5's copy row against its record (bench/results/amd-zen5/README.md,
 * "Copy bands": medians of three quiet runs of clearbench copy, given there
 * as the range over each group of extents; tests/data/amd-zen5-copy-ranges.csv
 * is that table). At every power of two of each group, on hot, cold and used
 * targets alike (copies are not estimated: the bands alone decide), the
 * row's kernel was measured and its range is level with or above every
 * other kernel's at both ends (within TIE, the same code timed twice). */
Test(builtin_rows, zen5_copy_row_on_its_record)
{
	struct row_host h = row_hosts[4];
	cr_assert_str_eq(h.uarch, "amd-zen5");
	struct described d = describe_host(&h);
	cr_assert_str_eq(d.source, "builtin:amd-zen5");
	FILE *f = fopen("tests/data/amd-zen5-copy-ranges.csv", "r");
	cr_assert(f, "tests/data/amd-zen5-copy-ranges.csv: cannot open");
	struct { char target[8], from[8], to[8], kernel[16]; double lo, hi; } row[64];
	unsigned n = 0;
	char line[256];
	cr_assert(fgets(line, sizeof(line), f));
	while (n < 64 && fgets(line, sizeof(line), f))
		if (sscanf(line, "%7[^,],%7[^,],%7[^,],%15[^,],%lf,%lf", row[n].target, row[n].from,
			   row[n].to, row[n].kernel, &row[n].lo, &row[n].hi) == 6)
			n++;
	fclose(f);
	cr_assert_gt(n, 20);
	struct tally t = { 0 };
	unsigned points = 0;
	for (unsigned g = 0; g < n; g++) {
		if (g && !strcmp(row[g].target, row[g - 1].target) && !strcmp(row[g].from, row[g - 1].from))
			continue;       /* one group: its first line */
		for (size_t e = size_of(row[g].from); e <= size_of(row[g].to); e *= 2) {
			const char *k = cp__copy_bands_pick(&d.policy.copy, e / PG)->name;
			double lo = -1, hi = -1, best_lo = 0, best_hi = 0;
			for (unsigned j = g; j < n && !strcmp(row[j].target, row[g].target) &&
					     !strcmp(row[j].from, row[g].from); j++) {
				if (!is_copy_kernel(row[j].kernel))
					continue;   /* memcpy: libc's, not a candidate */
				best_lo = fmax(best_lo, row[j].lo);
				best_hi = fmax(best_hi, row[j].hi);
				if (!strcmp(row[j].kernel, k))
					lo = row[j].lo, hi = row[j].hi;
			}
			points++;
			CHECK(&t, lo >= 0, "zen5 copy %s %zu KiB: %s was not measured", row[g].target,
			      e >> 10, k);
			CHECK(&t, lo >= (1 - TIE) * best_lo && hi >= (1 - TIE) * best_hi,
			      "zen5 copy %s %zu KiB (%s-%s): %s ran %.0f-%.0f GB/s, the best %.0f-%.0f",
			      row[g].target, e >> 10, row[g].from, row[g].to, k, lo, hi, best_lo,
			      best_hi);
		}
	}
	cr_expect_geq(points, 20, "%u extents", points);
	cr_expect_eq(t.fails, 0, "%u of %u checks failed", t.fails, t.checks);
}

/* A row without copy bands copies with its bands' counterparts at the same
 * extent: on Zen 3 that is avx2, then avx2_nt from 16 MiB. Scored against a
 * recorded clearbench copy on a Zen 3 VM (tests/data/amd-zen3-copy.csv, one
 * run on a VM of L2 512 KiB, LLC 32 MiB, as the row's host) on cached
 * buffers, as the clear bands are. */
Test(builtin_rows, derived_copy_bands_on_a_recorded_copy)
{
	static struct table tb;
	struct row_host h = row_hosts[2];
	cr_assert_str_eq(h.uarch, "amd-zen3");
	struct described d = describe_host(&h);
	cr_assert_str_eq(d.source, "builtin:amd-zen3");
	cr_assert_eq(cp__builtin_find("amd-zen3")->ncopy, 0, "the Zen 3 row has copy bands now");
	table_load(&tb, "amd-zen3-copy.csv", "hot", is_copy_kernel);
	cr_assert_geq(tb.rows, 19);
	struct named_bands nb = named_copy(&d.policy.copy);
	struct tally t = { 0 };
	check_crossovers(&t, "builtin:amd-zen3 copy", &tb, &nb);
	cr_expect_eq(t.fails, 0, "%u of %u checks failed", t.fails, t.checks);
}
#endif

#if defined(__aarch64__)
/* No row is arm64's yet: the generic rule of a few described CPUs under
 * every mask. */
Test(builtin_rows, arm64_generic_rule_under_every_mask)
{
	static const unsigned features[] = { 0, CP__F_DCZVA, CP__F_DCZVA | CP__F_SVE | CP__F_MOPS };
	struct tally t = { 0 };
	for (size_t i = 0; i < sizeof(features) / sizeof(features[0]); i++) {
		struct described d = arm(features[i], 64);
		char who[32];
		snprintf(who, sizeof(who), "arm64 features %#x", features[i]);
		check_every_mask(&t, who, &d.cpu, NULL);
	}
	cr_expect_eq(t.fails, 0, "%u of %u checks failed", t.fails, t.checks);
}
#endif
