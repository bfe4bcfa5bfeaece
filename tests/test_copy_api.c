/* SPDX-License-Identifier: MIT */
/*
 * cp_copy(dst, src, len, flags): any addresses, any length, an intent.
 * Exact copies of many (destination offset, source offset, length) shapes
 * with each intent, inside a fill and against guard pages (the source a
 * read-only pattern: a write to it faults; every byte of the destination's
 * mapping outside [dst, dst + len) must stay FILL); every bad input refused
 * with nothing written; len 0 first; and, with a published policy of
 * recording copy kernels, which kernel each intent runs on the whole pages,
 * and that the head and tail never reach a kernel. cp_copy_pages and the
 * walks: tests/test_copy.c.
 */
#include "testutil.h"
#include "testhooks.h"
#include "copy_pattern.h"
#include <errno.h>

#define MAP_PAGES 80
#define SEED      0x5eedc0full

/* A destination mapping of FILL and a read-only source of pattern(SEED),
 * each MAP_PAGES between guards, kept for a whole test. */
struct maps {
	struct guarded d, s;
};

static struct maps maps_map(void)
{
	struct maps m = { guarded_map(MAP_PAGES), guarded_map(MAP_PAGES) };
	pattern_fill(m.s.mem, MAP_PAGES, SEED);
	cr_assert_eq(mprotect(m.s.mem, m.s.len, PROT_READ), 0);
	return m;
}

static void maps_unmap(struct maps *m)
{
	char why[256];
	cr_assert(!pattern_verify(m->s.mem, m->s.len, 0, 0, m->s.len, SEED, why, sizeof(why)),
		  "the source changed: %s", why);
	guard_unmap(&m->d);
	guard_unmap(&m->s);
}

/* One cp_copy of len bytes from byte spos of the source mapping to byte dpos
 * of the destination's: 0, the bytes copied, every other byte FILL. */
static void copy_at(struct maps *m, size_t dpos, size_t spos, size_t len, unsigned flags)
{
	unsigned char *dst = m->d.mem + dpos;
	const unsigned char *src = m->s.mem + spos;
	cr_assert(dpos + len <= m->d.len && spos + len <= m->s.len);
	memset(m->d.mem, FILL, m->d.len);
	int r = cp_copy(dst, src, len, flags);
	cr_assert_eq(r, 0, "cp_copy(dst %% 4096 = %zu, src %% 4096 = %zu, %zu, %u) = %d", dpos % PG,
		     spos % PG, len, flags, r);
	size_t before = first_not(m->d.mem, dpos, FILL);
	cr_assert_eq(before, dpos, "dst %zu, src %zu, %zu bytes, flags %u: byte %zd before dst "
		     "written", dpos, spos, len, flags, (ssize_t)before - (ssize_t)dpos);
	for (size_t i = 0; i < len; i++)
		if (dst[i] != src[i])
			cr_assert_fail("dst %zu, src %zu, %zu bytes, flags %u: byte %zu is 0x%02x, "
				       "expected 0x%02x", dpos, spos, len, flags, i, dst[i], src[i]);
	size_t rest = m->d.len - dpos - len, after = first_not(dst + len, rest, FILL);
	cr_assert_eq(after, rest, "dst %zu, src %zu, %zu bytes, flags %u: byte %zu after the "
		     "range written", dpos, spos, len, flags, after);
}

static const unsigned intents[] = { 0, CP_COPY_HOT, CP_COPY_COLD };
#define NINTENTS (sizeof(intents) / sizeof(intents[0]))

/* Page offsets of dst and src, every pair (same and different), and
 * lengths from 1 byte to 70 pages: whole pages, a byte short and over,
 * odd heads and tails. */
Test(copy_bytes, exact_copies_of_every_shape)
{
	static const size_t offs[] = { 0, 1, 64, 2047, 4095 };
	static const size_t lens[] = { 1, 2, 63, 4095, 4096, 4097, 8191, 8192, 8193,
				       3 * PG + 5, 5 * PG, 5 * PG + 4095, 17 * PG + 100,
				       70 * PG + 4095 };
	const size_t nlens = sizeof(lens) / sizeof(lens[0]) - (test_quick() ? 1 : 0);
	struct maps m = maps_map();
	for (size_t f = 0; f < NINTENTS; f++)
		for (size_t l = 0; l < nlens; l++)
			for (size_t a = 0; a < sizeof(offs) / sizeof(offs[0]); a++)
				for (size_t b = 0; b < sizeof(offs) / sizeof(offs[0]); b++)
					copy_at(&m, PG + offs[a], 2 * PG + offs[b], lens[l],
						intents[f]);
	maps_unmap(&m);
}

/* Right against the guards: the destination ending at its trailing guard or
 * starting at its leading one, the source likewise, in each combination
 * (the same page offset, or not). */
Test(copy_bytes, between_guard_pages)
{
	static const size_t lens[] = { 1, 100, 4095, 4096, 4097, 2 * PG + 1, 9 * PG - 1, 33 * PG,
				       40 * PG + 77 };
	struct maps m = maps_map();
	for (size_t f = 0; f < NINTENTS; f++)
		for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
			size_t n = lens[l], dend = m.d.len - n, send = m.s.len - n;
			copy_at(&m, dend, send, n, intents[f]);   /* both flush with the end */
			copy_at(&m, 0, 0, n, intents[f]);         /* both from the start */
			copy_at(&m, dend, 0, n, intents[f]);
			copy_at(&m, 0, send, n, intents[f]);
		}
	maps_unmap(&m);
}

/* len 0 returns 0 before anything else is looked at: NULL, past the top,
 * overlapping, bad flags; pointers at the guards are never touched. */
Test(copy_bytes, zero_length_first)
{
	unsigned char *top = (unsigned char *)(UINTPTR_MAX & ~(uintptr_t)(PG - 1));
	struct maps m = maps_map();
	memset(m.d.mem, FILL, m.d.len);
	unsigned char *dg = m.d.mem + m.d.len, *sg = m.s.mem + m.s.len;   /* the guards */
	static const unsigned flags[] = { 0, CP_COPY_HOT, CP_COPY_COLD, CP_COPY_HOT | CP_COPY_COLD,
					  4, 0x80000000u, ~0u };
	for (size_t f = 0; f < sizeof(flags) / sizeof(flags[0]); f++) {
		cr_assert_eq(cp_copy(NULL, NULL, 0, flags[f]), 0, "NULL, flags %#x", flags[f]);
		cr_assert_eq(cp_copy(top, top, 0, flags[f]), 0, "top, flags %#x", flags[f]);
		cr_assert_eq(cp_copy(dg, sg, 0, flags[f]), 0, "guards, flags %#x", flags[f]);
		cr_assert_eq(cp_copy(dg, dg, 0, flags[f]), 0, "same range, flags %#x", flags[f]);
		cr_assert_eq(cp_copy(m.d.mem + 1, m.s.mem, 0, flags[f]), 0, "flags %#x", flags[f]);
	}
	cr_assert_eq(first_not(m.d.mem, m.d.len, FILL), m.d.len, "a zero-length copy wrote");
	maps_unmap(&m);
}

/* Every bad input: -EINVAL, the destination all FILL, the source intact. */
Test(copy_bytes, bad_input_writes_nothing)
{
	unsigned char *top = (unsigned char *)(UINTPTR_MAX & ~(uintptr_t)(PG - 1));
	unsigned char *last = (unsigned char *)UINTPTR_MAX;
	struct maps m = maps_map();
	memset(m.d.mem, FILL, m.d.len);
	unsigned char *d = m.d.mem + PG, *s = m.s.mem + PG;
	const struct { const char *what; void *dst; const void *src; size_t len; unsigned f; } bad[] = {
		{ "NULL dst", NULL, s, 1, 0 }, { "NULL src", d, NULL, 1, 0 },
		{ "NULL both", NULL, NULL, PG, 0 }, { "NULL dst, HOT", NULL, s, 3 * PG, CP_COPY_HOT },
		{ "NULL src, COLD", d, NULL, 3 * PG, CP_COPY_COLD },
		{ "dst past the top", top, s, PG + 1, 0 }, { "src past the top", d, top, PG + 1, 0 },
		{ "dst's last byte + 1", last, s, 2, 0 }, { "src's last byte + 1", d, last, 2, 0 },
		{ "len SIZE_MAX", d, s, SIZE_MAX, 0 }, { "len wraps both", d, s, SIZE_MAX - PG, 0 },
		{ "HOT|COLD", d, s, 3 * PG, CP_COPY_HOT | CP_COPY_COLD },
		{ "HOT|COLD, 1 byte", d, s, 1, CP_COPY_HOT | CP_COPY_COLD },
		{ "flag 4", d, s, 3 * PG, 4 }, { "flag 8", d, s, 3 * PG, 8 },
		{ "HOT | 4", d, s, PG, CP_COPY_HOT | 4 }, { "COLD | 16", d, s, PG, CP_COPY_COLD | 16 },
		{ "flag 1 << 31", d, s, 5, 0x80000000u }, { "every flag", d, s, 5, ~0u },
	};
	for (size_t b = 0; b < sizeof(bad) / sizeof(bad[0]); b++)
		cr_assert_eq(cp_copy(bad[b].dst, bad[b].src, bad[b].len, bad[b].f), -EINVAL, "%s",
			     bad[b].what);
	cr_assert_eq(first_not(m.d.mem, m.d.len, FILL), m.d.len, "a rejected copy wrote");
	maps_unmap(&m);
}

/* Overlap in one writable mapping of pattern: identical, by one byte either
 * way, by all but one byte either way, same and different page offsets:
 * -EINVAL, nothing written. Adjacent ranges either way: copied. */
Test(copy_bytes, overlap_rejected_adjacent_copied)
{
	struct guarded g = guarded_map(16);
	char why[256];
	const size_t n = 3 * PG + 100, REF = 12 * PG;   /* the pattern the source gets */
	static const struct { size_t dst, src; } overlap[] = {
		{ 2 * PG, 2 * PG }, { 2 * PG + 1, 2 * PG }, { 2 * PG, 2 * PG + 1 },
		{ 2 * PG + 3 * PG + 99, 2 * PG }, { 2 * PG, 2 * PG + 3 * PG + 99 },
		{ 3 * PG, 2 * PG }, { 2 * PG, 3 * PG }, { 2 * PG + 7, 4 * PG + 5 },
	};
	for (size_t f = 0; f < NINTENTS; f++) {
		pattern_fill(g.mem, 16, 5);
		for (size_t o = 0; o < sizeof(overlap) / sizeof(overlap[0]); o++)
			cr_assert_eq(cp_copy(g.mem + overlap[o].dst, g.mem + overlap[o].src, n,
					     intents[f]), -EINVAL, "flags %u: dst %zu, src %zu, %zu "
				     "bytes", intents[f], overlap[o].dst, overlap[o].src, n);
		cr_assert(!pattern_verify(g.mem, g.len, 0, 0, g.len, 5, why, sizeof(why)),
			  "flags %u: an overlapping copy wrote: %s", intents[f], why);
		for (size_t way = 0; way < 4; way++) {
			/* source right before or right after, odd offsets or page ones */
			size_t a = (way & 1 ? 2 * PG + n : 2 * PG) + (way & 2 ? 0 : 33);
			size_t b = (way & 1 ? 2 * PG : 2 * PG + n) + (way & 2 ? 0 : 33);
			memset(g.mem, FILL, g.len);
			unsigned char *want = g.mem + REF;
			pattern_fill(want, 16 - REF / PG, 9);
			memcpy(g.mem + a, want, n);              /* the source: pattern */
			cr_assert_eq(cp_copy(g.mem + b, g.mem + a, n, intents[f]), 0,
				     "flags %u: adjacent, way %zu", intents[f], way);
			cr_assert(!memcmp(g.mem + b, want, n) && !memcmp(g.mem + a, want, n),
				  "flags %u: adjacent, way %zu: wrong bytes", intents[f], way);
			size_t lo = a < b ? a : b, hi = lo + 2 * n;
			cr_assert_eq(first_not(g.mem, lo, FILL), lo, "way %zu: wrote before", way);
			cr_assert_eq(first_not(g.mem + hi, REF - hi, FILL), REF - hi,
				     "way %zu: wrote after", way);
		}
	}
	guard_unmap(&g);
}

/* ---- which kernel each intent runs ------------------------------------- */

/* Recording copy kernels: each call's kind, where it starts (bytes from the
 * destination's page base) and its pages. */
#define MAX_RECS 8
static struct { uintptr_t base; unsigned n; struct { char kind; size_t at, npages; } c[MAX_RECS]; } rec;
static void record(char kind, void *dst, const void *src, size_t npages)
{
	if (rec.n < MAX_RECS)
		rec.c[rec.n].kind = kind, rec.c[rec.n].at = (uintptr_t)dst - rec.base,
		rec.c[rec.n].npages = npages;
	rec.n++;
	memcpy(dst, src, npages * PG);
}
static void rec_t(void *d, const void *s, size_t n) { record('T', d, s, n); }
static void rec_nt(void *d, const void *s, size_t n) { record('N', d, s, n); }
static const struct cp_copy_kernel k_t = { "rec_t", "test", 0, rec_t };
static const struct cp_copy_kernel k_nt = { "rec_nt", "test", CP_NONTEMPORAL, rec_nt };

/* Where the bands part: copy goes non-temporal from COPY_NT, copy_uncached
 * from UNCACHED_NT (below COPY_NT, as on the x86 rows). */
#define COPY_NT     8
#define UNCACHED_NT 4

static void bands_of(struct cp__copy_bands *b, const struct cp__copy_band *rows, unsigned n)
{
	for (unsigned i = 0; i < CP__MAX_BANDS; i++)
		b->band[i] = i < n ? rows[i]
				   : (struct cp__copy_band){ CP__BAND_UNUSED, rows[n - 1].kernel };
}

/* copy: rec_t, rec_nt from COPY_NT; copy_uncached: rec_t, rec_nt from
 * UNCACHED_NT; nothing estimated (no threshold), so flags 0 takes the copy
 * bands as cp_copy_pages does. */
static void publish(const struct cp__copy_band *copy, unsigned nc,
		    const struct cp__copy_band *uncached, unsigned nu)
{
	struct cp__policy p = cp__state()->defaults;
	bands_of(&p.copy, copy, nc);
	bands_of(&p.copy_uncached, uncached, nu);
	p.cached_min_mbps = 0;
	cr_assert_eq(cp__policy_publish(&p, "test"), 0);
	cr_assert_eq(cp__state()->policy.copy_estimate_from_pages, CP__BAND_UNUSED);
}

static void publish_recording(void)
{
	const struct cp__copy_band c[] = { { 0, &k_t }, { COPY_NT, &k_nt } };
	const struct cp__copy_band u[] = { { 0, &k_t }, { UNCACHED_NT, &k_nt } };
	publish(c, 2, u, 2);
}

static void publish_defaults(void)
{
	cr_assert_eq(cp__policy_publish(&cp__state()->defaults, cp__state()->default_source), 0);
}

/* cp_copy of npages whole pages with a head of `head` bytes and a tail of
 * `tail` (same page offsets): the calls cover exactly the whole pages, in
 * order, each of `kind` (0: none may run) and of at most 4080 KiB. */
static void expect_calls(size_t npages, size_t head, size_t tail, unsigned flags, char kind)
{
	size_t len = head + npages * PG + tail, map = npages + 2;
	struct copy_pair c;
	char why[256];
	cr_assert_eq(copy_pair_map(&c, map, 0, 7000 + npages), 0);
	unsigned char *dst = c.d + (head ? PG - head : 0), *src = c.s + (head ? PG - head : 0);
	rec.base = (uintptr_t)c.d;
	rec.n = 0;
	cr_assert_eq(cp_copy(dst, src, len, flags), 0);
	cr_assert(!memcmp(dst, src, len), "%zu pages, head %zu, tail %zu, flags %u: wrong bytes",
		  npages, head, tail, flags);
	cr_assert_eq(first_not(c.d, (size_t)(dst - c.d), FILL), (size_t)(dst - c.d));
	size_t after = map * PG - (size_t)(dst - c.d) - len;
	cr_assert_eq(first_not(dst + len, after, FILL), after);
	cr_assert(!pattern_verify(c.src.mem, c.src.len, 0, 0, map * PG, c.seed, why, sizeof(why)),
		  "the source changed: %s", why);
	copy_pair_unmap(&c);
	if (!kind) {
		cr_assert_eq(rec.n, 0, "%zu pages, head %zu, flags %u: a recorder ran", npages,
			     head, flags);
		return;
	}
	cr_assert(rec.n > 0 && rec.n <= MAX_RECS, "%zu pages, flags %u: %u kernel calls", npages,
		  flags, rec.n);
	size_t at = head ? PG : 0;                    /* dst's first page boundary */
	for (unsigned i = 0; i < rec.n; i++) {
		cr_assert_eq(rec.c[i].kind, kind, "%zu pages, head %zu, tail %zu, flags %u: call "
			     "%u ran rec_%s, expected rec_%s", npages, head, tail, flags, i,
			     rec.c[i].kind == 'T' ? "t" : "nt", kind == 'T' ? "t" : "nt");
		cr_assert_eq(rec.c[i].at, at, "%zu pages, head %zu, flags %u: call %u at byte %zu, "
			     "expected %zu (the head went to a kernel, or a gap)", npages, head,
			     flags, i, rec.c[i].at, at);
		cr_assert(rec.c[i].npages >= 1 && rec.c[i].npages <= CP__MAX_CALL_PAGES,
			  "call %u of %zu pages", i, rec.c[i].npages);
		at += rec.c[i].npages * PG;
	}
	cr_assert_eq(at, (head ? PG : 0) + npages * PG, "%zu pages, head %zu, tail %zu, flags %u: "
		     "the calls end at byte %zu (the tail went to a kernel, or pages were left)",
		     npages, head, tail, flags, at);
}

/* HOT runs only the temporal kernel, COLD only the non-temporal one, below
 * and above where each band list parts; 0 the copy bands (cp_copy_pages'
 * choice); odd heads and tails never reach a kernel; past 4080 KiB the
 * calls are split. */
Test(copy_bytes, intents_choose_the_kernel)
{
	publish_recording();
	static const size_t pages[] = { 1, 2, UNCACHED_NT - 1, UNCACHED_NT, COPY_NT - 1, COPY_NT,
					COPY_NT + 9, CP__MAX_CALL_PAGES + 30 };
	static const struct { size_t head, tail; } edges[] = {
		{ 0, 0 }, { 1, 0 }, { 0, 1 }, { 4095, 4095 }, { 100, 3000 },
	};
	for (size_t p = 0; p < sizeof(pages) / sizeof(pages[0]); p++)
		for (size_t e = 0; e < sizeof(edges) / sizeof(edges[0]); e++) {
			size_t n = pages[p], h = edges[e].head, t = edges[e].tail;
			expect_calls(n, h, t, CP_COPY_HOT, 'T');
			expect_calls(n, h, t, CP_COPY_COLD, 'N');
			expect_calls(n, h, t, 0, n >= COPY_NT ? 'N' : 'T');
			cr_assert_eq(cp_copy_kernel_for(n), n >= COPY_NT ? &k_nt : &k_t);
		}
	/* less than a whole page between page boundaries: memcpy alone */
	expect_calls(0, 100, 200, CP_COPY_HOT, 0);
	expect_calls(0, 4095, 4095, CP_COPY_COLD, 0);
	publish_defaults();
}

/* Different page offsets: no kernel can take the pages, memcpy copies it
 * all, whatever the intent. */
Test(copy_bytes, different_offsets_never_reach_a_kernel)
{
	publish_recording();
	struct copy_pair c;
	cr_assert_eq(copy_pair_map(&c, 24, 1, 99), 0);
	static const size_t shifts[][2] = { { 0, 1 }, { 1, 0 }, { 64, 128 }, { 4095, 0 } };
	for (size_t f = 0; f < NINTENTS; f++)
		for (size_t i = 0; i < sizeof(shifts) / sizeof(shifts[0]); i++) {
			size_t len = 20 * PG + 7;
			memset(c.dst.mem, FILL, c.dst.len);
			rec.n = 0;
			cr_assert_eq(cp_copy(c.d + shifts[i][0], c.s + shifts[i][1], len, intents[f]), 0);
			cr_assert(!memcmp(c.d + shifts[i][0], c.s + shifts[i][1], len));
			cr_assert_eq(rec.n, 0, "flags %u, offsets %zu and %zu: %u kernel calls",
				     intents[f], shifts[i][0], shifts[i][1], rec.n);
		}
	copy_pair_unmap(&c);
	publish_defaults();
}

/* Band lists of one class: HOT on copy bands that are all non-temporal
 * takes the first temporal copy kernel listed, COLD on uncached bands that
 * are all temporal the first non-temporal one; neither runs a recorder of
 * the wrong class. */
Test(copy_bytes, one_class_bands_fall_back_to_the_list)
{
	const struct cp_copy_kernel *const *list;
	size_t n = cp_copy_kernels(&list);
	const struct cp__copy_band nt = { 0, &k_nt }, t = { 0, &k_t };
	publish(&nt, 1, &t, 1);
	for (size_t pages = 1; pages <= 33; pages += 16) {
		expect_calls(pages, 5, 5, CP_COPY_HOT, 0);
		expect_calls(pages, 5, 5, CP_COPY_COLD, 0);
	}
	cr_assert_not(list[0]->flags & CP_NONTEMPORAL);
	cr_assert(list[n - 1]->flags & CP_NONTEMPORAL, "no non-temporal copy kernel listed");
	publish_defaults();
}
