/* SPDX-License-Identifier: MIT */
/*
 * Targets as callers present them. A loop over one buffer (hot) keeps it in
 * the cache, which allocators, VMMs and page pools never see: they clear
 * memory nobody touched lately. cold puts every clear on another slot of a
 * pool several times the LLC; use does the same, then writes one word per
 * 64-byte line of what it cleared, inside the timing (calloc, then fill).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "map.h"
#include "opts.h"
#include "stats.h"
#include "targets.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25           /* Linux 6.1; glibc 2.36's headers lack it */
#endif

#define HUGE_2M ((size_t)2 << 20)
#define POOL_DEFAULT ((size_t)4 << 30)
/* Measured on the family 6 model 167 guest: first stores to ~10 % of freshly
 * faulted huge pages stall ~130 us (host side), ~1 % by the third pass. */
#define POOL_WARM_PASSES 3

const char *const bench_kind_names[BK_NKINDS] = { "hot", "cold", "use" };

int bench_parse_targets(const char *list, unsigned *mask, char *bad, size_t badlen)
{
	*mask = 0;
	for (const char *p = list; p;) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		unsigned k = 0;
		while (k < BK_NKINDS && (strlen(bench_kind_names[k]) != n ||
					 strncmp(p, bench_kind_names[k], n)))
			k++;
		if (k == BK_NKINDS) {
			snprintf(bad, badlen, "%.*s", (int)n, p);
			return -1;
		}
		*mask |= 1u << k;
		p = e ? e + 1 : NULL;
	}
	return 0;
}


size_t bench_pool_size(const struct bench_opts *opts, size_t top, unsigned copies,
		       char *why, size_t whylen)
{
	why[0] = '\0';
	if (opts->pool)
		return opts->pool;
	/* leave a quarter of what is free to everything else on the machine */
	size_t avail = bench_mem_available() / 4 * 3, size = POOL_DEFAULT;
	while (size / 2 >= 2 * top && size * copies > avail)
		size /= 2;
	if (size < POOL_DEFAULT)
		snprintf(why, whylen, "the pool is %zu MiB, not %zu: MemAvailable holds %u "
			 "copies of no more", size >> 20, POOL_DEFAULT >> 20, copies);
	return size;
}

/* Every 2 MiB page of the pool once, in a random order. */
static void warm_pass(struct bench_pool *p)
{
	size_t n = p->bytes / HUGE_2M;
	size_t *idx = malloc(n * sizeof(*idx));
	if (!idx)
		abort();
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	bench_shuffle(idx, n, &p->rng);
	for (size_t i = 0; i < n; i++)
		memset(p->base + idx[i] * HUGE_2M, 0x5a, HUGE_2M);
	free(idx);
}

int bench_pool_open(struct bench_pool *p, size_t bytes)
{
	memset(p, 0, sizeof(*p));
	p->bytes = (bytes + HUGE_2M - 1) & ~(HUGE_2M - 1);
	p->rng = 0x2545f4914f6cdd1dull;
	/* bench_map advises THP: 4 KiB pages would put a TLB miss on every
	 * clear of a small slot, and the page walk would dominate */
	if (!(p->base = bench_map(p->bytes)))
		return -1;
	/* A second 4 GiB pool faulted while a first was held came partly as
	 * 4 KiB pages here, which khugepaged then collapsed during the timing:
	 * collapse them now, synchronously (an error leaves the pool as it is;
	 * the note says how much is huge). */
	madvise(p->base, p->bytes, MADV_COLLAPSE);
	for (int i = 0; i < POOL_WARM_PASSES; i++)
		warm_pass(p);
	return 0;
}

void bench_pool_close(struct bench_pool *p)
{
	bench_unmap(p->base, p->bytes);
	free(p->order);
	memset(p, 0, sizeof(*p));
}

static void shuffle_slots(struct bench_pool *p)
{
	for (size_t i = p->nslots; i > 1; i--) {
		size_t j = (size_t)(bench_random(&p->rng) % i);
		uint32_t t = p->order[i - 1];
		p->order[i - 1] = p->order[j];
		p->order[j] = t;
	}
	/* the slot just cleared is the last one a new order may start with */
	if (p->nslots > 1 && p->order[0] == p->last) {
		p->order[0] = p->order[p->nslots - 1];
		p->order[p->nslots - 1] = (uint32_t)p->last;
	}
	p->next = 0;
}

void *bench_pool_next(struct bench_pool *p, size_t extent)
{
	if (extent != p->extent) {
		p->extent = extent;
		p->nslots = p->bytes / extent;
		free(p->order);
		if (!(p->order = malloc(p->nslots * sizeof(*p->order))))
			abort();
		for (size_t i = 0; i < p->nslots; i++)
			p->order[i] = (uint32_t)i;
		p->last = p->nslots;
		shuffle_slots(p);
	}
	if (p->next == p->nslots)
		shuffle_slots(p);
	p->last = p->order[p->next++];
	return p->base + p->last * extent;
}

int bench_pool_open_for(struct bench_pool *p, const struct bench_opts *opts, size_t top,
			char *why, size_t whylen, long *thp_kib)
{
	size_t bytes = bench_pool_size(opts, top, 1, why, whylen);
	char sz[16];
	bench_progress("the pool of cold and use targets: %s, faulted in and warmed first",
		       bench_size_str(bytes, sz, sizeof(sz)));
	long thp0 = bench_thp_kib();
	if (bench_pool_open(p, bytes))
		return 1;
	long thp1 = bench_thp_kib();
	*thp_kib = thp0 >= 0 && thp1 >= 0 ? thp1 - thp0 : -1;
	return 0;
}

static volatile uint64_t read_sink;   /* the loads' sum: the compiler must keep them */

void bench_read_lines(const void *buf, size_t bytes)
{
	uint64_t sum = 0;
	for (size_t off = 0; off < bytes; off += 64)
		sum += *(const volatile uint64_t *)((const char *)buf + off);
	read_sink = sum;
}

size_t bench_kind_sizes(const struct bench_opts *opts, enum bench_kind kind, size_t *sizes)
{
	if (opts->nsizes) {
		memcpy(sizes, opts->sizes, opts->nsizes * sizeof(*sizes));
		return opts->nsizes;
	}
	size_t n = 0, step = opts->quick || kind != BK_HOT ? 4 : 2;
	size_t top = opts->quick ? (size_t)256 << 20 : (size_t)1 << 30;
	for (size_t s = 4096; s <= top; s *= step)
		sizes[n++] = s;
	return n;
}

size_t bench_largest(const size_t *sizes, size_t n)
{
	size_t top = 0;
	for (size_t i = 0; i < n; i++)
		top = sizes[i] > top ? sizes[i] : top;
	return top;
}

int bench_check_pool(const struct bench_opts *opts, unsigned targets)
{
	size_t sizes[BENCH_MAX_SIZES];
	size_t top = bench_largest(sizes, bench_kind_sizes(opts, BK_COLD, sizes));
	if (!opts->pool || !(targets & ~(1u << BK_HOT)) || opts->pool >= 2 * top)
		return 0;
	char a[16], b[16];
	fprintf(stderr, "clearbench: --pool '%s': want at least twice the largest extent (%s)\n",
		bench_size_str(opts->pool, a, sizeof(a)), bench_size_str(2 * top, b, sizeof(b)));
	return 2;
}

void bench_write_lines(void *buf, size_t bytes)
{
	/* volatile: the stores are the point, the compiler may not drop them */
	for (size_t off = 0; off < bytes; off += 64)
		*(volatile uint64_t *)((char *)buf + off) = off | 1;
}
