/* What the scenarios measure (kernels, the dispatcher, memset) and the memory
 * they measure it on. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include "clearbench.h"

#define HUGE_2M ((size_t)2 << 20)

/* Through a volatile pointer: the compiler may not turn a memset whose result
 * it never sees into nothing. */
static void *(*volatile memset_fn)(void *, int, size_t) = memset;

void bench_memset_zero(void *buf, size_t bytes)
{
	memset_fn(buf, 0, bytes);
}

static void clear_batched(const struct bench_contender *c, void *buf, size_t bytes)
{
	size_t batch = c->batch_bytes ? c->batch_bytes : bytes;
	size_t nbatches = (bytes + batch - 1) / batch;
	for (size_t i = 0; i < nbatches; i++) {
		size_t off = (c->descending ? nbatches - 1 - i : i) * batch;
		size_t len = bytes - off < batch ? bytes - off : batch;
		if (c->kernel)
			c->kernel->clear((char *)buf + off, len / CP_PAGE_SIZE);
		else
			bench_memset_zero((char *)buf + off, len);
	}
}

/* One call over the whole buffer: the same harness cost as clear_auto, so a
 * kernel and the dispatcher that picks it compare like for like. */
static void clear_whole(const struct bench_contender *c, void *buf, size_t bytes)
{
	if (c->kernel)
		c->kernel->clear(buf, bytes / CP_PAGE_SIZE);
	else
		bench_memset_zero(buf, bytes);
}

void bench_contender_batched(struct bench_contender *c, const struct cp_kernel *k,
			     size_t batch_bytes, int descending)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", k ? k->name : "memset");
	c->clear = batch_bytes ? clear_batched : clear_whole;
	c->kernel = k;
	c->batch_bytes = batch_bytes;
	c->descending = descending;
}

static void clear_auto(const struct bench_contender *c, void *buf, size_t bytes)
{
	(void)c;
	cp_clear_pages(buf, bytes / CP_PAGE_SIZE);
}

static void clear_auto_page(const struct bench_contender *c, void *buf, size_t bytes)
{
	(void)c;
	for (size_t off = 0; off < bytes; off += CP_PAGE_SIZE)
		cp_clear_pages((char *)buf + off, 1);
}

size_t bench_contenders(const struct bench_opts *opts, int with_baselines,
			struct bench_contender *out)
{
	size_t n = 0;
	for (size_t i = 0; i < opts->nkernels; i++, n++)
		bench_contender_batched(&out[n], opts->kernels[i], 0, 0);
	if (!with_baselines)
		return n;
	static const struct { const char *name; void (*clear)(const struct bench_contender *,
							       void *, size_t); } base[] = {
		{ "auto", clear_auto }, { "memset", clear_whole }, { "auto_page", clear_auto_page },
	};
	for (size_t i = 0; i < sizeof(base) / sizeof(base[0]); i++, n++) {
		memset(&out[n], 0, sizeof(out[n]));
		snprintf(out[n].name, sizeof(out[n].name), "%s", base[i].name);
		out[n].clear = base[i].clear;
	}
	return n;
}

void *bench_map(size_t bytes)
{
	size_t len = bytes + HUGE_2M;
	char *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "clearbench: mmap of %zu bytes failed: %s\n", len, strerror(errno));
		return NULL;
	}
	/* Keep the 2 MiB-aligned part only, so munmap needs no bookkeeping. */
	char *buf = (char *)(((uintptr_t)map + HUGE_2M - 1) & ~(uintptr_t)(HUGE_2M - 1));
	if (buf > map)
		munmap(map, (size_t)(buf - map));
	size_t tail = (size_t)(map + len - (buf + bytes));
	if (tail)
		munmap(buf + bytes, tail);
	/* Huge pages keep TLB misses out of the comparison; without THP it still runs. */
	madvise(buf, bytes, MADV_HUGEPAGE);
	memset(buf, 0x5a, bytes);
	return buf;
}

void bench_unmap(void *buf, size_t bytes)
{
	if (buf)
		munmap(buf, bytes);
}
