/* SPDX-License-Identifier: MIT */
/*
 * populate's contenders and one try of one of them: a fresh mapping brought to
 * its state, the contender timed, the result verified, the mapping unmapped.
 *
 * The threaded contenders cut the range into contiguous shares of whole pages
 * (2 MiB on THP, so no huge page is faulted by two threads), the first shares
 * one page more where they do not divide, and start together from a barrier:
 * a thread's stack is an mmap, which would contend for the mmap lock with the
 * page faults of threads already running.
 *
 * qemu is QEMU's memory preallocation (-mem-prealloc, memory-backend
 * prealloc=on; touch_all_pages in util/oslib-posix.c, as of QEMU 9/10):
 * min(threads asked, 16, online CPUs, pages, max(1, bytes / 64 MiB)) threads
 * on contiguous shares of pages (the first shares one page more), all started
 * before any touches memory. It asks madvise(MADV_POPULATE_WRITE) on the first
 * page whether the kernel takes it; where it does, each thread populates its
 * share (one thread: the caller, no thread started); where not, each thread
 * reads the first byte of every page and writes it back. Anonymous memory's
 * page size is 4 KiB to QEMU even where THP backs it. Either way it keeps
 * what pages hold: it makes memory resident, not zero.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "clearpages.h"
#include "populate.h"
#include "stats.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23     /* Linux 5.14; older headers lack it */
#endif

#define PAGE ((size_t)CP_PAGE_SIZE)
#define HUGE_2M ((size_t)2 << 20)
#define QEMU_MAX_THREADS 16        /* QEMU's MAX_MEM_PREALLOC_THREAD_COUNT */
#define QEMU_BYTES_PER_THREAD ((size_t)64 << 20)
#define MAX_THREADS 1024           /* --threads takes up to this */

const char *const bench_state_names[BS_NSTATES] = { "fresh", "half", "full" };
const char *const bench_mapping_names[BM_NMAPPINGS] = { "4k", "thp" };
const char *const bench_pop_names[BP_NCONTENDERS] = {
	"memset", "store_per_page", "populate", "qemu", "cp_zero", "cp_zero_res",
	"cp_zero_res_par",
};

int bench_pop_zeroes(enum bench_pop_contender c, enum bench_state s)
{
	return s == BS_FRESH || c == BP_MEMSET || c >= BP_NTHREADED;
}

/* The threaded contenders' bodies: one share each, a negative errno in *err. */
typedef void share_fn(unsigned char *p, size_t len, int *err);

static void share_memset(unsigned char *p, size_t len, int *err)
{
	(void)err;
	memset(p, 0, len);
}

static void share_store_per_page(unsigned char *p, size_t len, int *err)
{
	(void)err;
	for (size_t off = 0; off < len; off += PAGE)
		*(volatile unsigned char *)(p + off) = 0;
}

static void share_populate(unsigned char *p, size_t len, int *err)
{
	if (len && madvise(p, len, MADV_POPULATE_WRITE))
		*err = -errno;
}

/* QEMU's fallback: the first byte of every page read and written back. */
static void share_touch(unsigned char *p, size_t len, int *err)
{
	(void)err;
	for (size_t off = 0; off < len; off += PAGE) {
		volatile unsigned char *b = p + off;
		*b = *b;
	}
}

struct share {
	share_fn *fn;
	unsigned char *addr;
	size_t len;
	pthread_barrier_t *start;
	int err;
};

static void *share_main(void *arg)
{
	struct share *sh = arg;
	pthread_barrier_wait(sh->start);
	sh->fn(sh->addr, sh->len, &sh->err);
	return NULL;
}

/* fn over [buf, buf + bytes) on n threads (the caller takes the first share),
 * shares of whole units; 0 or the first negative errno. */
static int run_shares(share_fn *fn, unsigned char *buf, size_t bytes, unsigned n, size_t unit)
{
	static struct share sh[MAX_THREADS];
	static pthread_t tid[MAX_THREADS];
	pthread_barrier_t start;
	size_t units = bytes / unit, per = units / n, extra = units % n, at = 0;
	int err = 0;
	pthread_barrier_init(&start, NULL, n);
	for (unsigned i = 0; i < n; i++) {
		size_t len = (per + (i < extra)) * unit;
		if (i == n - 1)
			len = bytes - at;   /* the tail past the last whole unit */
		sh[i] = (struct share){ fn, buf + at, len, &start, 0 };
		at += len;
		if (i && pthread_create(&tid[i], NULL, share_main, &sh[i])) {
			/* the barrier waits for n: without the thread it would never open */
			fprintf(stderr, "clearbench: populate: cannot start thread %u of %u\n", i, n);
			abort();
		}
	}
	share_main(&sh[0]);
	for (unsigned i = 1; i < n; i++)
		pthread_join(tid[i], NULL);
	pthread_barrier_destroy(&start);
	for (unsigned i = 0; i < n; i++)
		err = err ? err : sh[i].err;
	return err;
}

unsigned bench_pop_qemu_threads(unsigned threads, size_t bytes)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	size_t n = threads, pages = bytes / PAGE, by_size = bytes / QEMU_BYTES_PER_THREAD;
	n = n < QEMU_MAX_THREADS ? n : QEMU_MAX_THREADS;
	if (online > 0)
		n = n < (size_t)online ? n : (size_t)online;
	n = n < pages ? n : pages;
	n = n < (by_size ? by_size : 1) ? n : (by_size ? by_size : 1);
	return n ? (unsigned)n : 1;
}

static int run_qemu(unsigned char *buf, size_t bytes, unsigned n)
{
	int populate = !madvise(buf, PAGE, MADV_POPULATE_WRITE) || errno != EINVAL;
	if (populate && n == 1)
		return madvise(buf, bytes, MADV_POPULATE_WRITE) ? -errno : 0;
	return run_shares(populate ? share_populate : share_touch, buf, bytes, n, PAGE);
}

static int run_contender(enum bench_pop_contender c, unsigned char *buf, size_t bytes,
			 unsigned threads, size_t unit)
{
	static const unsigned lib_flags[] = { 0, CP_ZERO_RESIDENT,
					      CP_ZERO_RESIDENT | CP_ZERO_PARALLEL };
	static share_fn *const fns[] = { share_memset, share_store_per_page, share_populate };
	if (c == BP_QEMU)
		return run_qemu(buf, bytes, threads);
	if (c < BP_NTHREADED)
		return run_shares(fns[c], buf, bytes, threads, unit);
	return cp_zero(buf, bytes, lib_flags[c - BP_CP_ZERO]);
}

/* Residency first: reading a page that is not resident maps the zero page. */
static void verify(const unsigned char *buf, size_t bytes, int zero, uint64_t *rng, char *why,
		   size_t whylen)
{
	static unsigned char vec[65536];
	size_t pages = bytes / PAGE;
	for (size_t at = 0; at < pages; at += sizeof(vec)) {
		size_t n = pages - at < sizeof(vec) ? pages - at : sizeof(vec);
		if (mincore((void *)(buf + at * PAGE), n * PAGE, vec)) {
			snprintf(why, whylen, "mincore failed: %s", strerror(errno));
			return;
		}
		for (size_t i = 0; i < n; i++)
			if (!(vec[i] & 1)) {
				snprintf(why, whylen, "page %zu of %zu is not resident", at + i, pages);
				return;
			}
	}
	for (size_t i = 0; zero && i < pages; i++) {
		const unsigned char *p = buf + i * PAGE;
		size_t word = (size_t)(bench_random(rng) % (PAGE / 8)) * 8;
		uint64_t first, last, any;
		memcpy(&first, p, 8);
		memcpy(&last, p + PAGE - 8, 8);
		memcpy(&any, p + word, 8);
		if (first | last | any) {
			snprintf(why, whylen, "page %zu of %zu does not read zero (first, last or "
				 "byte %zu)", i, pages, word);
			return;
		}
	}
}

/* bytes (whole pages) mapped fresh at a 2 MiB boundary, advised; NULL after a message. */
static unsigned char *map_fresh(size_t bytes, enum bench_mapping m)
{
	size_t len = bytes + HUGE_2M;
	unsigned char *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				  -1, 0);
	if (map == MAP_FAILED) {
		fprintf(stderr, "clearbench: populate: mmap of %zu bytes: %s\n", len, strerror(errno));
		return NULL;
	}
	unsigned char *buf = (unsigned char *)(((uintptr_t)map + HUGE_2M - 1) & ~(HUGE_2M - 1));
	if (buf > map)
		munmap(map, (size_t)(buf - map));
	if (map + len > buf + bytes)
		munmap(buf + bytes, (size_t)(map + len - (buf + bytes)));
	/* both advised, so that 4k means 4 KiB pages whatever the THP mode is */
	madvise(buf, bytes, m == BM_THP ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	return buf;
}

void bench_pop_try(enum bench_pop_contender c, unsigned threads, size_t bytes,
		   enum bench_state s, enum bench_mapping m, uint64_t *rng,
		   struct bench_pop_try *out)
{
	memset(out, 0, sizeof(*out));
	unsigned char *buf = map_fresh(bytes, m);
	if (!buf) {
		out->err = -ENOMEM;
		return;
	}
	if (s != BS_FRESH)
		memset(buf, 0x5a, s == BS_HALF ? bytes / 2 / PAGE * PAGE : bytes);
	out->threads = c == BP_QEMU ? bench_pop_qemu_threads(threads, bytes) :
		       c == BP_CP_ZERO_RES_PAR ? 0 : c >= BP_NTHREADED ? 1 : threads;
	double t0 = bench_now();
	out->err = run_contender(c, buf, bytes, out->threads ? out->threads : 1,
				 m == BM_THP ? HUGE_2M : PAGE);
	out->seconds = bench_now() - t0;
	if (!out->err)
		verify(buf, bytes, bench_pop_zeroes(c, s), rng, out->failure, sizeof(out->failure));
	munmap(buf, bytes);
}
