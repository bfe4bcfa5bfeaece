/* SPDX-License-Identifier: MIT */
/*
 * Copies between guard pages, shared by the Criterion suites (tests/test_copy*.c)
 * and the plain model driver (tests/models/cp_check.c), which must run under
 * qemu. No Criterion.
 *
 * A source holds pattern(seed): every byte a function of its offset in the
 * range (so of its page and its place in the page) and of the seed. A copy
 * pair is a source of exactly npages between two PROT_NONE guards, filled
 * and then made read-only (a kernel that writes its source faults), and a
 * destination of npages + 2 * pad pages of FILL, the copy's target pad pages
 * in: pad 0 puts the guards right against the destination too.
 */
#ifndef CP_COPY_PATTERN_H
#define CP_COPY_PATTERN_H

#include "guard.h"

/* Page `page` of pattern(seed) into out[CP_PAGE_SIZE]. */
static inline void pattern_page(unsigned char *out, size_t page, uint64_t seed)
{
	for (size_t w = 0; w < CP_PAGE_SIZE / 8; w++) {
		uint64_t state = seed ^ ((uint64_t)(page * CP_PAGE_SIZE / 8 + w) << 1);
		uint64_t v = next_random(&state);
		memcpy(out + 8 * w, &v, 8);
	}
}

static inline void pattern_fill(unsigned char *p, size_t npages, uint64_t seed)
{
	for (size_t pg = 0; pg < npages; pg++)
		pattern_page(p + pg * CP_PAGE_SIZE, pg, seed);
}

/* [a, a + len) and [b, b + len) of mem (total bytes; offsets and len whole
 * pages) each hold pattern(seed) from their first byte, every other byte is
 * FILL (a == b: one range). 0, or -1 with why[] saying where it broke. */
static inline int pattern_verify(const unsigned char *mem, size_t total, size_t a, size_t b,
				 size_t len, uint64_t seed, char *why, size_t whylen)
{
	unsigned char want[CP_PAGE_SIZE];
	for (size_t at = 0; at < total; at += CP_PAGE_SIZE) {
		const char *where = "outside the ranges";
		if (at - a < len || at - b < len) {
			size_t from = at - a < len ? a : b;
			pattern_page(want, (at - from) / CP_PAGE_SIZE, seed);
			where = from == a ? "in range A" : "in range B";
		} else {
			memset(want, FILL, sizeof(want));
		}
		if (!memcmp(mem + at, want, CP_PAGE_SIZE))
			continue;
		size_t i = 0;
		while (mem[at + i] == want[i])
			i++;
		snprintf(why, whylen, "byte %zu (%s: A [%zu, +%zu), B [%zu, +%zu)) is 0x%02x, "
			 "expected 0x%02x", at + i, where, a, len, b, len, mem[at + i], want[i]);
		return -1;
	}
	return 0;
}

struct copy_pair {
	struct guarded src, dst;
	unsigned char *s, *d;        /* the copy's source and destination */
	size_t npages, pad;
	uint64_t seed;
};

/* 0, or -1 with errno (nothing left mapped). */
static inline int copy_pair_map(struct copy_pair *c, size_t npages, size_t pad, uint64_t seed)
{
	c->npages = npages;
	c->pad = pad;
	c->seed = seed;
	if (guard_map(&c->src, npages))
		return -1;
	if (guard_map(&c->dst, npages + 2 * pad)) {
		guard_unmap(&c->src);
		return -1;
	}
	pattern_fill(c->src.mem, npages, seed);
	memset(c->dst.mem, FILL, c->dst.len);
	if (npages && mprotect(c->src.mem, c->src.len, PROT_READ)) {
		guard_unmap(&c->dst);
		guard_unmap(&c->src);
		return -1;
	}
	c->s = c->src.mem;
	c->d = c->dst.mem + pad * CP_PAGE_SIZE;
	return 0;
}

/* After a copy of all npages: the destination is the source's pattern and
 * every byte around it FILL; the source still holds its pattern. */
static inline int copy_pair_verify(const struct copy_pair *c, char *why, size_t whylen)
{
	size_t at = c->pad * CP_PAGE_SIZE, len = c->npages * CP_PAGE_SIZE;
	char broke[200];
	if (pattern_verify(c->dst.mem, c->dst.len, at, at, len, c->seed, broke, sizeof(broke))) {
		snprintf(why, whylen, "%zu pages, destination %s: %s", c->npages,
			 c->pad ? "inside a fill" : "between guards", broke);
		return -1;
	}
	if (pattern_verify(c->src.mem, c->src.len, 0, 0, len, c->seed, broke, sizeof(broke))) {
		snprintf(why, whylen, "%zu pages: source changed: %s", c->npages, broke);
		return -1;
	}
	return 0;
}

/* Nothing written: the destination all FILL, the source intact. */
static inline int copy_pair_untouched(const struct copy_pair *c, char *why, size_t whylen)
{
	if (pattern_verify(c->dst.mem, c->dst.len, 0, 0, 0, c->seed, why, whylen))
		return -1;
	return pattern_verify(c->src.mem, c->src.len, 0, 0, c->npages * CP_PAGE_SIZE, c->seed,
			      why, whylen);
}

static inline void copy_pair_unmap(struct copy_pair *c)
{
	guard_unmap(&c->dst);
	guard_unmap(&c->src);
}

#endif
