/*
 * Helpers for the plain (non-Criterion) checkers: the qemu-x86_64 model
 * driver, the stress program and the fuzz targets. Criterion re-execs its
 * workers natively, so code that must stay under qemu cannot use it.
 *
 * A region is guard-paged memory kept filled with CHECK_FILL; a check clears
 * part of it, verifies every byte of the region, then restores the fill.
 */
#ifndef CP_PLAIN_H
#define CP_PLAIN_H

#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "clearpages.h"

#define CHECK_FILL 0xa5

struct region {
	unsigned char *mem;     /* first usable byte, CP_PAGE_SIZE-aligned */
	size_t len;             /* usable bytes: pages * CP_PAGE_SIZE */
	unsigned char *map;     /* the whole mapping, guards included */
	size_t map_len;
};

/* Map `pages` pages between two PROT_NONE guards, the usable part ending
 * right at the trailing guard, filled with CHECK_FILL. 0, or -1 (errno). */
static inline int region_map(struct region *r, size_t pages)
{
	size_t sys = (size_t)sysconf(_SC_PAGESIZE);
	size_t guard = sys < CP_PAGE_SIZE ? CP_PAGE_SIZE : sys;
	r->len = pages * CP_PAGE_SIZE;
	size_t span = (r->len + guard - 1) / guard * guard;
	r->map_len = span + 2 * guard;
	r->map = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r->map == MAP_FAILED)
		return -1;
	if (mprotect(r->map, guard, PROT_NONE) ||
	    mprotect(r->map + guard + span, guard, PROT_NONE)) {
		munmap(r->map, r->map_len);
		return -1;
	}
	r->mem = r->map + guard + span - r->len;
	memset(r->mem, CHECK_FILL, r->len);
	return 0;
}

static inline void region_unmap(struct region *r)
{
	munmap(r->map, r->map_len);
}

/* Offset of the first byte of [p, p + len) that is not v, or len.
 * memcmp against a reference page: glibc's vector compare keeps full
 * verification affordable under emulation. */
static inline size_t span_mismatch(const unsigned char *p, size_t len, unsigned char v)
{
	static unsigned char ref[2][CP_PAGE_SIZE];
	static int ready;
	if (!ready) {           /* racing threads write the same bytes */
		memset(ref[1], CHECK_FILL, CP_PAGE_SIZE);
		__atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
	}
	const unsigned char *want = v ? ref[1] : ref[0];
	for (size_t at = 0; at < len; at += CP_PAGE_SIZE) {
		size_t n = len - at < CP_PAGE_SIZE ? len - at : CP_PAGE_SIZE;
		if (memcmp(p + at, want, n) == 0)
			continue;
		for (size_t i = 0; i < n; i++)
			if (p[at + i] != v)
				return at + i;
	}
	return len;
}

/* Every byte of r: [start, start + len) zero, the rest CHECK_FILL. On success
 * the fill is restored and 0 returned; otherwise why[] says where it broke. */
static inline int region_verify(struct region *r, size_t start, size_t len,
				char *why, size_t whylen)
{
	size_t bad = span_mismatch(r->mem, start, CHECK_FILL);
	if (bad < start) {
		snprintf(why, whylen, "byte %zu before the range [%zu, +%zu) was written",
			 bad, start, len);
		return -1;
	}
	bad = span_mismatch(r->mem + start, len, 0);
	if (bad < len) {
		snprintf(why, whylen, "byte %zu of the range [%zu, +%zu) is 0x%02x, not 0",
			 start + bad, start, len, r->mem[start + bad]);
		return -1;
	}
	size_t after = r->len - start - len;
	bad = span_mismatch(r->mem + start + len, after, CHECK_FILL);
	if (bad < after) {
		snprintf(why, whylen, "byte %zu after the range [%zu, +%zu) was written",
			 start + len + bad, start, len);
		return -1;
	}
	memset(r->mem + start, CHECK_FILL, len);
	return 0;
}

/* splitmix64: reproducible streams from a seed, one per thread. */
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

/* ---- one clear of part of a region, by any entry point ----------------- */

enum clear_kind { OP_KERNEL, OP_CLEAR, OP_PAGES, OP_PAGES_HOT, OP_PAGES_COLD, OP_HUGE, OP_KINDS };
static const char *const clear_kind_name[OP_KINDS] = {
	"raw kernel", "cp_clear", "cp_clear_pages", "cp_clear_pages_hot",
	"cp_clear_pages_cold", "cp_clear_huge_opts",
};

struct clear_op {
	enum clear_kind kind;
	size_t start, len;              /* bytes into the region; whole pages but for OP_CLEAR */
	const struct cp_kernel *kernel; /* OP_KERNEL: the kernel; OP_HUGE: NULL = library's choice */
	size_t hot, radius, batch;      /* OP_HUGE: hot page index, opts */
	enum cp_order order;
};

static inline void describe_op(const struct clear_op *op, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s [%zu, +%zu)", clear_kind_name[op->kind], op->start, op->len);
	if (op->kind == OP_KERNEL || op->kind == OP_HUGE)
		n += snprintf(buf + n, size - (size_t)n, " kernel %s",
			      op->kernel ? op->kernel->name : "NULL");
	if (op->kind == OP_HUGE)
		snprintf(buf + n, size - (size_t)n, " order %d hot %zu radius %zu batch %zu",
			 (int)op->order, op->hot, op->radius, op->batch);
}

/* Run op on r, expecting success, then verify every byte of r (see region_verify). */
static inline int check_clear_op(struct region *r, const struct clear_op *op,
				 char *why, size_t whylen)
{
	void *at = r->mem + op->start;
	size_t pages = op->len / CP_PAGE_SIZE;
	struct cp_huge_opts o = CP_HUGE_OPTS_INIT;
	int rc = 0;

	switch (op->kind) {
	case OP_KERNEL: op->kernel->clear(at, pages); break;
	case OP_CLEAR: rc = cp_clear(at, op->len); break;
	case OP_PAGES: rc = cp_clear_pages(at, pages); break;
	case OP_PAGES_HOT: rc = cp_clear_pages_hot(at, pages); break;
	case OP_PAGES_COLD: rc = cp_clear_pages_cold(at, pages); break;
	case OP_HUGE:
		o.order = op->order;
		o.radius = op->radius;
		o.batch_pages = op->batch;
		o.kernel = op->kernel;
		rc = cp_clear_huge_opts(at, pages, op->hot, &o);
		break;
	case OP_KINDS: break;
	}
	if (rc) {
		snprintf(why, whylen, "returned %d", rc);
		return -1;
	}
	return region_verify(r, op->start, op->len, why, whylen);
}

/* ---- the tally and its last line ---------------------------------------- */

static unsigned tally_passed, tally_failed, tally_skipped;
static __thread const char *current_check = "startup";

static inline void check_pass(const char *what)
{
	__atomic_fetch_add(&tally_passed, 1, __ATOMIC_RELAXED);
	printf("ok    %s\n", what);
}

static inline void check_fail(const char *what, const char *why)
{
	__atomic_fetch_add(&tally_failed, 1, __ATOMIC_RELAXED);
	printf("FAIL  %s: %s\n", what, why);
}

static inline void check_skip(const char *what, const char *why)
{
	__atomic_fetch_add(&tally_skipped, 1, __ATOMIC_RELAXED);
	printf("skip  %s: %s\n", what, why);
}

/* Text building without stdio: the signal handler uses these too. */
static inline size_t put_text(char *buf, size_t n, const char *s)
{
	size_t l = strlen(s);
	memcpy(buf + n, s, l);
	return n + l;
}

static inline size_t put_uint(char *buf, size_t n, unsigned v)
{
	char digits[12];
	int d = 0;
	do { digits[d++] = (char)('0' + v % 10); v /= 10; } while (v);
	while (d)
		buf[n++] = digits[--d];
	return n;
}

/* "N passed, N failed[, N skipped]\n" into buf (>= 64 bytes). */
static inline size_t format_tally(char *buf, unsigned extra_failed)
{
	size_t n = put_uint(buf, 0, tally_passed);
	n = put_text(buf, n, " passed, ");
	n = put_uint(buf, n, tally_failed + extra_failed);
	n = put_text(buf, n, " failed");
	if (tally_skipped) {
		n = put_text(buf, n, ", ");
		n = put_uint(buf, n, tally_skipped);
		n = put_text(buf, n, " skipped");
	}
	buf[n++] = '\n';
	return n;
}

/* The last line: "N passed, N failed[, N skipped]". Exit status 1 on a failure. */
static inline int finish_tally(void)
{
	char line[96];
	fflush(stdout);
	size_t n = format_tally(line, 0);
	fwrite(line, 1, n, stdout);
	fflush(stdout);
	return tally_failed ? 1 : 0;
}

/* A fault or an illegal instruction is a failure of the check that ran: name
 * it, print the tally with it counted, and stop. */
static void fatal_signal(int sig)
{
	char line[256], what[161];
	size_t w = strlen(current_check) < 160 ? strlen(current_check) : 160;
	memcpy(what, current_check, w);
	what[w] = '\0';
	size_t n = put_text(line, 0, "FAIL  ");
	n = put_text(line, n, what);
	n = put_text(line, n, sig == SIGILL ? ": SIGILL\n" : sig == SIGSEGV ? ": SIGSEGV\n" :
		     sig == SIGBUS ? ": SIGBUS\n" : ": SIGFPE\n");
	n += format_tally(line + n, 1);
	if (write(1, line, n) < 0)
		_exit(2);
	_exit(1);
}

static inline void catch_fatal_signals(void)
{
	static const int sigs[] = { SIGILL, SIGSEGV, SIGBUS, SIGFPE };
	struct sigaction sa;
	setvbuf(stdout, NULL, _IOLBF, 0);   /* _exit() in the handler flushes nothing */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fatal_signal;
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

#endif
