/* SPDX-License-Identifier: MIT */
/* Cold and use targets (targets.c): a pool of memory not in the cache. */
#ifndef CLEARBENCH_TARGETS_H
#define CLEARBENCH_TARGETS_H

#include <stddef.h>
#include <stdint.h>
#include "opts.h"

struct bench_pool {
	char *base;
	size_t bytes;              /* whole 2 MiB pages */
	size_t extent, nslots;     /* slots of extent bytes, visited in a shuffled order */
	uint32_t *order;
	size_t next, last;
	uint64_t rng;
};
extern const char *const bench_kind_names[BK_NKINDS];   /* "hot", "cold", "use" */
/* --target hot,cold,use into a mask of 1 << BK_*; 0, or -1 naming the bad token. */
int bench_parse_targets(const char *list, unsigned *mask, char *bad, size_t badlen);
/* The pool size for extents up to top: --pool, else 4 GiB where MemAvailable
 * holds `copies` of it, else halved down to 2 * top; why says so when smaller. */
size_t bench_pool_size(const struct bench_opts *opts, size_t top, unsigned copies,
		       char *why, size_t whylen);
/* Map, fault in (THP advised) and warm the pool with a few passes over its
 * 2 MiB pages in random order: this guest's host stalls on first stores to
 * freshly faulted huge pages. 0, or -1 after a message. */
int bench_pool_open(struct bench_pool *p, size_t bytes);
void bench_pool_close(struct bench_pool *p);
/* The next slot of extent bytes: a shuffled order of every slot, reshuffled
 * when used up, never the slot just cleared twice in a row. */
void *bench_pool_next(struct bench_pool *p, size_t extent);
/* bench_pool_size(opts, top, 1) opened as bench_pool_open; *thp_kib: the
 * AnonHugePages it brought (-1 unknown). */
int bench_pool_open_for(struct bench_pool *p, const struct bench_opts *opts, size_t top,
			char *why, size_t whylen, long *thp_kib);
/* use: one 8-byte store per 64-byte line, as a caller filling what it got. */
void bench_write_lines(void *buf, size_t bytes);
/* use of a copy: one 8-byte load per 64-byte line, as a caller reading what it got. */
void bench_read_lines(const void *buf, size_t bytes);

/* The extents of a kind (sweep's and copy's): --sizes, else every power of two
 * from 4 KiB to 1 GiB on hot (--quick: every fourth one to 256 MiB), every
 * fourth one on cold and use. */
size_t bench_kind_sizes(const struct bench_opts *opts, enum bench_kind kind, size_t *sizes);
size_t bench_largest(const size_t *sizes, size_t n);
/* A --pool too small for two slots of the largest cold or use extent (a
 * clear's two slots, or a copy's source and destination): one line, 2
 * (before anything runs); else 0 (clearbench.c, sweep and copy ask). */
int bench_check_pool(const struct bench_opts *opts, unsigned targets);

#endif
