/* SPDX-License-Identifier: MIT */
/*
 * The library internals clearbench reads or changes (see introspect.h); every
 * other bench file keeps to include/clearpages.h.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "introspect.h"
#include "discard.h"
#include "testhooks.h"

/* Feature tokens as CLEARPAGES_DISABLE spells them, this build's arch only. */
static void feature_list(unsigned mask, char *buf, size_t len)
{
	buf[0] = '\0';
	for (size_t i = 0; i < cp__feature_tokens_len; i++) {
		const struct cp__feature_token *t = &cp__feature_tokens[i];
		if (!(mask & t->feature) || strcmp(t->arch, CP_ARCH_NAME))
			continue;
		size_t l = strlen(buf);
		snprintf(buf + l, len - l, "%s%s", l ? " " : "", t->token);
	}
	if (!buf[0])
		snprintf(buf, len, "(none)");
}

void bench_host_get(struct bench_host *h)
{
	const struct cp__state *s = cp__state();
	memset(h, 0, sizeof(*h));
	snprintf(h->vendor, sizeof(h->vendor), "%s", s->cpu.vendor);
	snprintf(h->model, sizeof(h->model), "%s", s->cpu.model);
	snprintf(h->uarch, sizeof(h->uarch), "%s", s->cpu.uarch);
	h->family = s->cpu.family;
	h->model_id = s->cpu.model_id;
	feature_list(s->features, h->features, sizeof(h->features));
	feature_list(s->cpu.features, h->detected, sizeof(h->detected));
	h->l2_bytes = s->cpu.l2_bytes;
	h->llc_bytes = s->cpu.llc_bytes;
	h->forced = s->forced != NULL;
	if (h->uarch[0]) {
		snprintf(h->host_id, sizeof(h->host_id), "%s", h->uarch);
	} else {
		/* no name known: vendor, then family and model (x86) or MIDR (arm64) */
		const char *v = !strcmp(h->vendor, "GenuineIntel") ? "intel"
			      : !strcmp(h->vendor, "AuthenticAMD") ? "amd" : h->vendor;
		if (s->cpu.midr_part)
			snprintf(h->host_id, sizeof(h->host_id), "%s-%02x-%03x", v,
				 s->cpu.midr_implementer, s->cpu.midr_part);
		else
			snprintf(h->host_id, sizeof(h->host_id), "%s-family%u-model%u", v,
				 h->family, h->model_id);
		for (char *p = h->host_id; *p; p++)
			*p = (*p >= 'A' && *p <= 'Z') ? (char)(*p - 'A' + 'a') : *p;
	}
}

const struct cp_kernel *bench_hot_kernel(size_t npages)
{
	return cp__pick_hot(npages);
}

const struct cp_kernel *bench_uncached_kernel(size_t npages)
{
	return cp__bands_pick(&cp__state()->policy.uncached, npages ? npages : 1);
}

const struct cp_kernel *bench_any_kernel(size_t npages)
{
	return cp__bands_pick(&cp__state()->policy.any, npages ? npages : 1);
}

_Static_assert(CP__MAX_BANDS <= BENCH_POLICY_MAX_BANDS, "every band fits");

size_t bench_policy_bands(int uncached, size_t *from_pages, const struct cp_kernel **kernel)
{
	const struct cp__policy *p = &cp__state()->policy;
	const struct cp__bands *b = uncached ? &p->uncached : &p->any;
	size_t n = 0;
	for (unsigned i = 0; i < CP__MAX_BANDS; i++)
		if (b->band[i].from_pages != CP__BAND_UNUSED) {
			from_pages[n] = b->band[i].from_pages;
			kernel[n++] = b->band[i].kernel;
		}
	return n;
}

void bench_profile_cpu_line(char *buf, size_t len, const char **brand)
{
	struct cp__profile_cpu pc;
	cp__profile_cpu_of(&cp__state()->cpu, &pc);
	cp__profile_cpu_describe(&pc, buf, len);
	*brand = cp__state()->cpu.model;
}

static struct cp__policy profile_policy;

int bench_profile_read(const char *text, size_t len, size_t *discard_from_pages)
{
	struct cp__profile p;
	struct cp__profile_error err;
	const struct cp__state *s = cp__state();
	if (cp__profile_parse(text, len, &s->kernels, &p, &err)) {
		fprintf(stderr, "clearbench: tune wrote a profile the library refuses (line %u: "
			"%s%s%s)\n", err.line, err.why, err.detail[0] ? ": " : "", err.detail);
		return 1;
	}
	if (!cp__profile_cpu_matches(&p, &s->cpu)) {
		fprintf(stderr, "clearbench: tune wrote a profile for another CPU\n");
		return 1;
	}
	cp__policy_with_profile(s, &p, &profile_policy);
	_Static_assert(CP__BAND_UNUSED == SIZE_MAX, "none is SIZE_MAX");
	*discard_from_pages = profile_policy.discard_from_pages;
	return 0;
}

const struct cp_kernel *bench_profile_uncached(size_t npages)
{
	return cp__bands_pick(&profile_policy.uncached, npages);
}

const char *bench_system_profile_path(void)
{
	return cp__system_profile_path;
}

size_t bench_discard_unit(void)
{
	return cp__discard_unit();
}

unsigned bench_cached_min_mbps(void)
{
	return cp__state()->policy.cached_min_mbps;
}

size_t bench_estimate_from_pages(void)
{
	return cp__state()->policy.estimate_from_pages;
}

const struct cp_copy_kernel *bench_copy_uncached_kernel(size_t npages)
{
	return cp__copy_bands_pick(&cp__state()->policy.copy_uncached, npages ? npages : 1);
}

size_t bench_copy_estimate_from_pages(void)
{
	const struct cp__policy *p = &cp__state()->policy;
	return p->cached_min_mbps ? p->copy_estimate_from_pages : SIZE_MAX;
}

size_t bench_history_below_pages(void)
{
	return CP__HISTORY_BELOW_PAGES;
}

unsigned long long bench_counter_rate(void)
{
	const struct cp__state *s = cp__state();
	/* the rate is measured from 2 ms after the first use */
	struct timespec tick = { 0, 1000000 };
	unsigned long long hz = cp__counter_hz(s);
	for (int i = 0; i < 20 && !hz && (s->features & CP__F_COUNTER); i++) {
		nanosleep(&tick, NULL);
		hz = cp__counter_hz(s);
	}
	return hz;
}

size_t bench_chunk_pages(unsigned long long *hz)
{
	const struct cp__state *s = cp__state();
	struct cp__timing t;
	*hz = bench_counter_rate();
	if (!cp__timing_for(s->policy.cached_min_mbps, *hz, CP__RESIDENCY_CHUNK_PAGES, &t))
		return *hz = 0, 0;
	return t.chunk_pages;
}

const struct cp_kernel *bench_chunk_kernel(size_t npages, size_t chunk_pages)
{
	return cp__chunk_kernel(cp__state(), cp__pick_hot(npages), chunk_pages);
}

unsigned long long bench_time_chunk(const struct cp_kernel *k, void *p, size_t pages)
{
	return cp__timed_clear(k, p, pages);
}

static struct cp__policy saved_policy;
static char saved_source[256];
static int policy_saved;

/* The policy in force, kept for bench_policy_restore (once). */
static void policy_save(void)
{
	if (!policy_saved) {
		saved_policy = cp__state()->policy;
		snprintf(saved_source, sizeof(saved_source), "%s", cp_policy_source());
		policy_saved = 1;
	}
}

int bench_policy_discard_all(void)
{
	policy_save();
	struct cp__policy p = saved_policy;
	p.discard_from_pages = 1;
	if (cp__policy_publish(&p, "tune: discard_from 4k"))
		return policy_saved = 0, -1;
	return 0;
}

void bench_policy_nt_from(size_t pages)
{
	policy_save();
	/* two bands: the hot kernel below `pages`, the cold one from there */
	struct cp__policy low = saved_policy;
	const struct cp__band rows[] = {
		{ 0, cp__bands_pick(&saved_policy.hot, pages - 1) },
		{ pages, cp__bands_pick(&saved_policy.cold, pages) } };
	cp__bands_set(&low.any, rows, 2);
	low.uncached = low.any;    /* the split as given, wherever the memory is */
	cp__policy_publish(&low, "clearbench fault: mixed");
}

int bench_policy_restore(void)
{
	int rc = policy_saved ? cp__policy_publish(&saved_policy, saved_source) : 0;
	policy_saved = 0;
	return rc ? -1 : 0;
}

size_t bench_parallel_min_share_pages(void)
{
	return cp__state()->policy.parallel_min_share_pages;
}

int bench_clear_parallel_min(void *addr, size_t npages, unsigned nthreads, size_t min_share)
{
	return cp__clear_pages_parallel_min(addr, npages, nthreads, min_share);
}

/* ---- what the dispatcher ran: recording wrappers ---- */

/* One wrapper per distinct kernel of the policy, so that two bands naming
 * one kernel still name one pointer (the residency plan compares them). The
 * wrapper costs one add and one more indirect call: against the 16 KiB
 * chunk the estimate times (~1 us at its threshold) nothing it could see.
 * Counts are plain: sweep records on its own thread, parallel clears are
 * not recorded. */
#define REC_SLOTS 16
static const struct cp_kernel *rec_real[REC_SLOTS];
static struct cp_kernel rec_wrap[REC_SLOTS];
static unsigned long long rec_pages[REC_SLOTS];
static size_t rec_n;
static struct cp__policy rec_saved;
static const char *rec_saved_source;
static int recording;

#define REC_CLEAR(i) static void rec_clear_##i(void *addr, size_t npages) \
	{ rec_pages[i] += npages; rec_real[i]->clear(addr, npages); }
REC_CLEAR(0) REC_CLEAR(1) REC_CLEAR(2) REC_CLEAR(3) REC_CLEAR(4) REC_CLEAR(5) REC_CLEAR(6)
REC_CLEAR(7) REC_CLEAR(8) REC_CLEAR(9) REC_CLEAR(10) REC_CLEAR(11) REC_CLEAR(12)
REC_CLEAR(13) REC_CLEAR(14) REC_CLEAR(15)
static void (*const rec_clear[REC_SLOTS])(void *, size_t) = {
	rec_clear_0, rec_clear_1, rec_clear_2, rec_clear_3, rec_clear_4, rec_clear_5,
	rec_clear_6, rec_clear_7, rec_clear_8, rec_clear_9, rec_clear_10, rec_clear_11,
	rec_clear_12, rec_clear_13, rec_clear_14, rec_clear_15 };

/* k's wrapper (made on first sight), or NULL when every slot is taken. */
static const struct cp_kernel *rec_wrapper(const struct cp_kernel *k)
{
	for (size_t i = 0; i < rec_n; i++)
		if (rec_real[i] == k)
			return &rec_wrap[i];
	if (rec_n == REC_SLOTS)
		return NULL;
	rec_real[rec_n] = k;
	rec_wrap[rec_n] = *k;      /* name, arch and flags as the real one */
	rec_wrap[rec_n].clear = rec_clear[rec_n];
	return &rec_wrap[rec_n++];
}

static int rec_bands(struct cp__bands *b)
{
	for (unsigned i = 0; i < CP__MAX_BANDS; i++)
		if (!(b->band[i].kernel = rec_wrapper(b->band[i].kernel)))
			return -1;
	return 0;
}

/* The same for copy kernels. */
static const struct cp_copy_kernel *rec_copy_real[REC_SLOTS];
static struct cp_copy_kernel rec_copy_wrap[REC_SLOTS];
static unsigned long long rec_copy_pages[REC_SLOTS];
static size_t rec_copy_n;

#define REC_COPY(i) static void rec_copy_##i(void *dst, const void *src, size_t npages) \
	{ rec_copy_pages[i] += npages; rec_copy_real[i]->copy(dst, src, npages); }
REC_COPY(0) REC_COPY(1) REC_COPY(2) REC_COPY(3) REC_COPY(4) REC_COPY(5) REC_COPY(6)
REC_COPY(7) REC_COPY(8) REC_COPY(9) REC_COPY(10) REC_COPY(11) REC_COPY(12)
REC_COPY(13) REC_COPY(14) REC_COPY(15)
static void (*const rec_copy[REC_SLOTS])(void *, const void *, size_t) = {
	rec_copy_0, rec_copy_1, rec_copy_2, rec_copy_3, rec_copy_4, rec_copy_5,
	rec_copy_6, rec_copy_7, rec_copy_8, rec_copy_9, rec_copy_10, rec_copy_11,
	rec_copy_12, rec_copy_13, rec_copy_14, rec_copy_15 };

static int rec_copy_bands(struct cp__copy_bands *b)
{
	for (unsigned i = 0; i < CP__MAX_BANDS; i++) {
		const struct cp_copy_kernel *k = b->band[i].kernel;
		size_t j = 0;
		while (j < rec_copy_n && rec_copy_real[j] != k)
			j++;
		if (j == rec_copy_n) {
			if (rec_copy_n == REC_SLOTS)
				return -1;
			rec_copy_real[j] = k;
			rec_copy_wrap[j] = *k;
			rec_copy_wrap[j].copy = rec_copy[j];
			rec_copy_n++;
		}
		b->band[i].kernel = &rec_copy_wrap[j];
	}
	return 0;
}

int bench_record_start(void)
{
	if (recording)
		return -1;
	rec_saved = cp__state()->policy;
	rec_saved_source = cp_policy_source();
	struct cp__policy p = rec_saved;
	memset(rec_pages, 0, sizeof(rec_pages));
	memset(rec_copy_pages, 0, sizeof(rec_copy_pages));
	if (rec_bands(&p.any) || rec_bands(&p.hot) || rec_bands(&p.cold) || rec_bands(&p.uncached) ||
	    rec_copy_bands(&p.copy) || rec_copy_bands(&p.copy_uncached))
		return -1;
	cp__policy_finish(&p);    /* the same derived fields: one wrapper per kernel */
	/* the same wrappers every time: the library keeps one state for them */
	if (cp__policy_publish(&p, "clearbench: recording"))
		return -1;
	recording = 1;
	return 0;
}

void bench_record_stop(struct bench_ran *out)
{
	memset(out, 0, sizeof(*out));
	if (!recording)
		return;
	cp__policy_publish(&rec_saved, rec_saved_source);
	recording = 0;
	for (size_t i = 0; i < rec_n && out->n < BENCH_RAN_MAX; i++)
		if (rec_pages[i]) {
			out->name[out->n] = rec_real[i]->name;
			out->pages[out->n++] = rec_pages[i];
		}
	for (size_t i = 0; i < rec_copy_n && out->n < BENCH_RAN_MAX; i++)
		if (rec_copy_pages[i]) {
			out->name[out->n] = rec_copy_real[i]->name;
			out->pages[out->n++] = rec_copy_pages[i];
		}
}

void bench_ran_str(const struct bench_ran *r, char *buf, size_t len)
{
	size_t order[BENCH_RAN_MAX];
	unsigned long long total = 0;
	for (size_t i = 0; i < r->n; i++) {
		total += r->pages[i];
		order[i] = i;
		for (size_t j = i; j > 0 && r->pages[order[j]] > r->pages[order[j - 1]]; j--) {
			size_t t = order[j]; order[j] = order[j - 1]; order[j - 1] = t;
		}
	}
	if (r->n <= 1) {
		snprintf(buf, len, "%s", r->n ? r->name[0] : "(not recorded)");
		return;
	}
	buf[0] = '\0';
	for (size_t i = 0; i < r->n; i++) {
		double pct = 100.0 * (double)r->pages[order[i]] / (double)total;
		char share[16];
		if (pct >= 0.1)
			snprintf(share, sizeof(share), pct >= 10 ? "%.0f%%" : "%.1f%%", pct);
		else
			snprintf(share, sizeof(share), "<0.1%%");
		size_t l = strlen(buf);
		snprintf(buf + l, len - l, "%s%s %s", i ? " + " : "", r->name[order[i]], share);
	}
}
