/* SPDX-License-Identifier: MIT */
/*
 * cp_copy_pages where its copy bands for cached and uncached memory part
 * (common/history.c, the thread's copy history): a published policy of
 * recording copy kernels shows which kernel each part of a copy got. The
 * temporal recorder spins on the calls a scenario marks slow, so the timed
 * chunk reads as uncached (the recording policy's threshold, 1 MB/s: a
 * one-page chunk is cached up to 4.1 ms, a 16 KiB one up to 16.4 ms; the
 * spin is 24 ms, counted in the library's own ticks, and a stall only adds).
 * A chunk meant fast that took a quarter of its limit was disturbed by the
 * host (a preemption, a VM exit): that attempt's lists of calls are not
 * compared (every byte still is) and the test runs again, ATTEMPTS times at
 * most, then skips naming the call. Where the policy parts, the rule:
 * tests/test_builtin_rows.c; how well: tests/test_generic_rule.c.
 */
#include "testutil.h"
#include "testhooks.h"

#define SLOW_NS        24000000ull
#define RECORDING_MBPS 1
#define ATTEMPTS       5
#define FROM           CP__COPY_ESTIMATE_MIN_PAGES   /* the bands part here */
#define CHUNK          CP__RESIDENCY_CHUNK_PAGES
#define BIG            CP__HISTORY_BELOW_PAGES       /* each call times its chunk */

struct call {
	char kind;                   /* 'T' temporal, 'N' non-temporal */
	size_t first, count;         /* pages from the destination's start */
};
#define MAX_CALLS 4
static struct {
	uintptr_t base;
	unsigned n;
	struct call c[MAX_CALLS];
	int slow;                    /* temporal calls of at most CHUNK pages spin */
	unsigned disturbed;
	char why[160];
} rec;

static void record(char kind, void *dst, const void *src, size_t npages)
{
	unsigned long long hz = cp__counter_hz(cp__state());
	uint64_t start = cp__counter_read();
	memcpy(dst, src, npages * PG);
	if (kind == 'T' && npages <= CHUNK) {
		struct cp__timing t;
		if (rec.slow) {
			uint64_t ticks = (uint64_t)((double)SLOW_NS * (double)hz / 1e9);
			while (cp__counter_read() - start < ticks)
				;
		} else if (cp__timing_for(RECORDING_MBPS, hz, npages, &t) &&
			   cp__counter_read() - start > t.limit_ticks / 4 && !rec.disturbed++) {
			snprintf(rec.why, sizeof(rec.why), "a %zu-page copy meant fast took %.2f ms "
				 "(cached up to %.1f ms)", npages,
				 (double)(cp__counter_read() - start) * 1e3 / (double)hz,
				 (double)t.limit_ticks * 1e3 / (double)hz);
		}
	}
	if (rec.n < MAX_CALLS)
		rec.c[rec.n] = (struct call){ kind, ((uintptr_t)dst - rec.base) / PG, npages };
	rec.n++;
}
static void rec_t(void *d, const void *s, size_t n) { record('T', d, s, n); }
static void rec_nt(void *d, const void *s, size_t n) { record('N', d, s, n); }
static const struct cp_copy_kernel k_t = { "rec_t", "test", 0, rec_t };
static const struct cp_copy_kernel k_nt = { "rec_nt", "test", CP_NONTEMPORAL, rec_nt };

static void copy_bands_of(struct cp__copy_bands *b, const struct cp__copy_band *rows, unsigned n)
{
	for (unsigned i = 0; i < CP__MAX_BANDS; i++)
		b->band[i] = i < n ? rows[i]
				   : (struct cp__copy_band){ CP__BAND_UNUSED, rows[n - 1].kernel };
}

/* copy: rec_t throughout; copy_uncached: rec_t below FROM, rec_nt from it. */
static void publish_recording(void)
{
	if (!(cp__state()->features & CP__F_COUNTER))
		cr_skip_test("no COUNTER feature here (or CLEARPAGES_DISABLE=counter): copies "
			     "decide by extent alone");
	unsigned long long hz = 0;
	for (int i = 0; i < 100 && !(hz = cp__counter_hz(cp__state())); i++)
		usleep(1000);
	if (!hz)
		cr_skip_test("the counter's rate is unknown after 100 ms: no estimate");
	struct cp__policy p = cp__state()->defaults;
	const struct cp__copy_band t = { 0, &k_t }, unc[] = { t, { FROM, &k_nt } };
	copy_bands_of(&p.copy, &t, 1);
	copy_bands_of(&p.copy_uncached, unc, 2);
	p.cached_min_mbps = RECORDING_MBPS;
	cr_assert_eq(cp__policy_publish(&p, "test"), 0);
	cr_assert_eq(cp__state()->policy.copy_estimate_from_pages, FROM);
	cp__reuse_history_forget();
}

static void publish_defaults(void)
{
	cp__policy_publish(&cp__state()->defaults, cp__state()->default_source);
}

struct expect {
	const char *what;
	int slow;
	unsigned n;
	struct call c[MAX_CALLS];
};
#define T(f, n) { 'T', f, n }
#define N(f, n) { 'N', f, n }
#define EXPECT(what, slow, ...) \
	((struct expect){ what, slow, sizeof((struct call[]){ __VA_ARGS__ }) / sizeof(struct call), \
			  { __VA_ARGS__ } })

struct pair {
	unsigned char *dst, *src;
	size_t npages;
};

static struct pair pair_map(size_t npages, unsigned char seed)
{
	struct pair p = { mmap(NULL, npages * PG, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
			  mmap(NULL, npages * PG, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), npages };
	cr_assert(p.dst != MAP_FAILED && p.src != MAP_FAILED);
	for (size_t i = 0; i < npages * PG; i += 61)
		p.src[i] = (unsigned char)(seed + i / 61);
	return p;
}

static void pair_unmap(struct pair *p)
{
	munmap(p->dst, p->npages * PG);
	munmap(p->src, p->npages * PG);
}

/* One cp_copy_pages of the pair: every byte copied, and (undisturbed) the
 * calls expected, in order. */
static void copy_expecting(struct pair *p, const struct expect *e)
{
	rec.base = (uintptr_t)p->dst;
	rec.n = 0;
	rec.slow = e->slow;
	memset(p->dst, 0xa5, p->npages * PG);
	cr_assert_eq(cp_copy_pages(p->dst, p->src, p->npages), 0);
	cr_assert(!memcmp(p->dst, p->src, p->npages * PG), "%s: the copy differs", e->what);
	if (rec.disturbed)
		return;
	int same = rec.n == e->n;
	for (unsigned i = 0; same && i < e->n; i++)
		same = rec.c[i].kind == e->c[i].kind && rec.c[i].first == e->c[i].first &&
		       rec.c[i].count == e->c[i].count;
	if (same)
		return;
	char got[128] = "", want[128] = "";
	for (unsigned i = 0; i < rec.n && i < MAX_CALLS; i++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), " %c(%zu,%zu)", rec.c[i].kind,
			 rec.c[i].first, rec.c[i].count);
	for (unsigned i = 0; i < e->n; i++)
		snprintf(want + strlen(want), sizeof(want) - strlen(want), " %c(%zu,%zu)",
			 e->c[i].kind, e->c[i].first, e->c[i].count);
	cr_assert_fail("%s: calls%s%s, expected%s", e->what, got, rec.n > MAX_CALLS ? " ..." : "",
		       want);
}

/* Small copies of npages, alternately onto two destinations: uncached
 * verdicts timed apart[v] calls apart (0: a cached verdict instead and its
 * 64 calls), as the small clears' history is. */
static void walk(size_t npages, const unsigned *apart, size_t n)
{
	const struct expect timed_slow = EXPECT("first page slow: uncached's kernel after it", 1,
						T(0, 1), N(1, npages - 1));
	const struct expect kept_u = EXPECT("until the next timing: uncached's, untimed", 1,
					    N(0, npages));
	/* our non-temporal stores evicted the chunk the next call times */
	const struct expect seeded = EXPECT("the call before a timing: its chunk temporal", 0,
					    T(0, 1), N(1, npages - 1));
	const struct expect timed_fast = EXPECT("timed again, cached", 0, T(0, 1),
						T(1, npages - 1));
	const struct expect kept_t = EXPECT("after a cached verdict: temporal", 0, T(0, npages));
	struct pair pp[2] = { pair_map(npages, 1), pair_map(npages, 2) };
	unsigned call = 0;
	for (size_t v = 0; v <= n; v++) {
		if (v == n || !apart[v]) {
			copy_expecting(&pp[call++ & 1], &timed_fast);
			for (unsigned i = 1; i < CP__COLD_HISTORY_CALLS; i++)
				copy_expecting(&pp[call++ & 1], &kept_t);
			continue;
		}
		copy_expecting(&pp[call++ & 1], &timed_slow);
		for (unsigned i = 1; i < apart[v] - 1; i++)
			copy_expecting(&pp[call++ & 1], &kept_u);
		copy_expecting(&pp[call++ & 1], &seeded);
	}
	pair_unmap(&pp[0]);
	pair_unmap(&pp[1]);
}

static void scenarios(void)
{
	/* the thread's copy history, spaced as the small clears' */
	static const unsigned apart[] = { 64, 128, 256, 256, 0, 64 };
	walk(FROM, apart, sizeof(apart) / sizeof(apart[0]));
	cp__reuse_history_forget();

	struct pair a = pair_map(FROM, 3), b = pair_map(FROM, 4), below = pair_map(FROM - 1, 5);
	copy_expecting(&a, &EXPECT("a fresh destination, first page slow", 1, T(0, 1), N(1, FROM - 1)));
	/* a loop onto one buffer: cached bands, untimed, the history left be */
	for (unsigned i = 0; i < 2 * CP__COLD_HISTORY_CALLS; i++)
		copy_expecting(&a, &EXPECT("the destination copied last: temporal, untimed", 1,
					   T(0, FROM)));
	copy_expecting(&b, &EXPECT("another destination: the history's uncached verdict", 1,
				   N(0, FROM)));
	copy_expecting(&below, &EXPECT("below the estimate: the copy bands, untimed", 1,
				       T(0, FROM - 1)));
	pair_unmap(&a);
	pair_unmap(&b);
	pair_unmap(&below);

	/* from 1 MiB each call times its first 16 KiB */
	struct pair big[2] = { pair_map(BIG, 6), pair_map(BIG, 7) };
	copy_expecting(&big[0], &EXPECT("1 MiB, its chunk slow", 1, T(0, CHUNK), N(CHUNK, BIG - CHUNK)));
	copy_expecting(&big[1], &EXPECT("1 MiB, its chunk fast", 0, T(0, CHUNK), T(CHUNK, BIG - CHUNK)));
	copy_expecting(&big[0], &EXPECT("1 MiB, slow again", 1, T(0, CHUNK), N(CHUNK, BIG - CHUNK)));
	copy_expecting(&big[0], &EXPECT("1 MiB, the destination copied last", 1, T(0, BIG)));
	pair_unmap(&big[0]);
	pair_unmap(&big[1]);

	/* past 4080 KiB: the uncached rest in calls of CP__MAX_CALL_PAGES, as
	 * every library choice (docs/dispatch.md, the per-call rule) */
	const size_t most = CP__MAX_CALL_PAGES, huge = 2 * most + 60;
	struct pair h = pair_map(huge, 9);
	copy_expecting(&h, &EXPECT("8 MiB, its chunk slow: the rest in calls of 4080 KiB", 1,
				   T(0, CHUNK), N(CHUNK, most), N(CHUNK + most, most),
				   N(CHUNK + 2 * most, huge - CHUNK - 2 * most)));
	pair_unmap(&h);
}

Test(copy_history, uncached_copies_by_the_thread_history)
{
	publish_recording();
	for (unsigned attempt = 1;; attempt++) {
		rec.disturbed = 0;
		cp__reuse_history_forget();
		scenarios();
		if (!rec.disturbed)
			break;
		cr_log_info("attempt %u disturbed: %s", attempt, rec.why);
		if (attempt == ATTEMPTS) {
			publish_defaults();
			cr_skip_test("every attempt was disturbed by this host, the last: %s", rec.why);
		}
	}
	publish_defaults();
}

/* Without the counter (CLEARPAGES_DISABLE=counter), or on a policy whose two
 * copy band lists agree, nothing is estimated: the copy bands alone. */
Test(copy_history, no_estimate_where_the_bands_agree)
{
	struct cp__policy p = cp__state()->defaults;
	const struct cp__copy_band t = { 0, &k_t };
	copy_bands_of(&p.copy, &t, 1);
	copy_bands_of(&p.copy_uncached, &t, 1);
	p.cached_min_mbps = RECORDING_MBPS;
	cr_assert_eq(cp__policy_publish(&p, "test"), 0);
	cr_assert_eq(cp__state()->policy.copy_estimate_from_pages, CP__BAND_UNUSED);
	p.cached_min_mbps = 0;         /* no counter: no threshold */
	const struct cp__copy_band unc[] = { t, { FROM, &k_nt } };
	copy_bands_of(&p.copy_uncached, unc, 2);
	cr_assert_eq(cp__policy_publish(&p, "test"), 0);
	cr_assert_eq(cp__state()->policy.copy_estimate_from_pages, CP__BAND_UNUSED);
	struct pair x = pair_map(BIG, 8);
	copy_expecting(&x, &EXPECT("no threshold: the copy bands", 1, T(0, BIG)));
	pair_unmap(&x);
	publish_defaults();
}
