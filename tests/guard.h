/* SPDX-License-Identifier: MIT */
/*
 * Guard-paged memory and byte verification, shared by the Criterion suites
 * (tests/testutil.h) and the plain checkers that must run under qemu
 * (tests/models/plain.h: the x86 model driver, stress, fuzz). No Criterion.
 */
#ifndef CP_GUARD_H
#define CP_GUARD_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "clearpages.h"

/* What the bytes around a cleared range hold: any write shows. */
#define FILL 0xa5

/* `pages` 4096-byte pages between two PROT_NONE guards, the usable part
 * ending right at the trailing guard: a kernel that strays one byte faults. */
struct guarded {
	unsigned char *mem;     /* first usable byte, 4096-aligned */
	size_t len;             /* usable bytes */
	unsigned char *map;     /* the whole mapping, guards included */
	size_t map_len;
};

/* 0, or -1 with errno. The memory is zero (fresh anonymous pages). */
static inline int guard_map(struct guarded *g, size_t pages)
{
	size_t sys = (size_t)sysconf(_SC_PAGESIZE);
	size_t guard = sys > CP_PAGE_SIZE ? sys : CP_PAGE_SIZE;
	g->len = pages * CP_PAGE_SIZE;
	size_t body = (g->len + guard - 1) / guard * guard;
	g->map_len = body + 2 * guard;
	g->map = mmap(NULL, g->map_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g->map == MAP_FAILED)
		return -1;
	if (mprotect(g->map + guard, body, PROT_READ | PROT_WRITE)) {
		munmap(g->map, g->map_len);
		return -1;
	}
	g->mem = g->map + guard + body - g->len;
	return 0;
}

static inline void guard_unmap(struct guarded *g)
{
	munmap(g->map, g->map_len);
}

/* Offset of the first byte of [p, p + len) that is not v, or len. For 0 and
 * FILL a page at a time against a reference page (memcmp is vectorised:
 * full verification stays affordable under emulation). */
static inline size_t first_not(const unsigned char *p, size_t len, unsigned char v)
{
	static const unsigned char zero_page[CP_PAGE_SIZE];
	static const unsigned char fill_page[CP_PAGE_SIZE] = { [0 ... CP_PAGE_SIZE - 1] = FILL };
	const unsigned char *ref = v == 0 ? zero_page : v == FILL ? fill_page : NULL;
	for (size_t at = 0; at < len; at += CP_PAGE_SIZE) {
		size_t n = len - at < CP_PAGE_SIZE ? len - at : CP_PAGE_SIZE;
		if (ref && memcmp(p + at, ref, n) == 0)
			continue;
		for (size_t i = 0; i < n; i++)
			if (p[at + i] != v)
				return at + i;
	}
	return len;
}

/* The one check of a clear: [start, start + len) of mem (total bytes) is zero
 * and every other byte still FILL. 0, or -1 with why[] saying where it broke. */
static inline int guard_verify(const unsigned char *mem, size_t total, size_t start,
			       size_t len, char *why, size_t whylen)
{
	size_t bad = first_not(mem, start, FILL);
	if (bad < start) {
		snprintf(why, whylen, "byte %zu before the range [%zu, +%zu) was written",
			 bad, start, len);
		return -1;
	}
	bad = first_not(mem + start, len, 0);
	if (bad < len) {
		snprintf(why, whylen, "byte %zu of the range [%zu, +%zu) is 0x%02x, not 0",
			 start + bad, start, len, mem[start + bad]);
		return -1;
	}
	size_t after = total - start - len;
	bad = first_not(mem + start + len, after, FILL);
	if (bad < after) {
		snprintf(why, whylen, "byte %zu after the range [%zu, +%zu) was written",
			 start + len + bad, start, len);
		return -1;
	}
	return 0;
}

/* splitmix64: reproducible streams from any seed, one state per thread. */
static inline uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform-enough pick in [0, n), n > 0. */
static inline size_t random_below(uint64_t *state, size_t n)
{
	return (size_t)(next_random(state) % n);
}

#endif
