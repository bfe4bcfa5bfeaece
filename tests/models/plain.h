/* SPDX-License-Identifier: MIT */
/*
 * Helpers for the plain (non-Criterion) checkers: the qemu-x86_64 model
 * driver, the stress program and the fuzz targets. Criterion re-execs its
 * workers natively, so code that must stay under qemu cannot use it.
 *
 * A region is guard-paged memory (guard.h) kept filled with FILL; a check clears
 * part of it, verifies every byte of the region, then restores the fill.
 */
#ifndef CP_PLAIN_H
#define CP_PLAIN_H

#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "clearpages.h"
#include "../guard.h"

/* Map `pages` guarded pages (guard.h) filled with FILL. 0, or -1 (errno). */
static inline int region_map(struct guarded *r, size_t pages)
{
	if (guard_map(r, pages))
		return -1;
	memset(r->mem, FILL, r->len);
	return 0;
}

/* Every byte of r: [start, start + len) zero, the rest FILL (guard_verify).
 * On success the fill is restored and 0 returned; otherwise why[] says where
 * it broke. */
static inline int region_verify(struct guarded *r, size_t start, size_t len,
				char *why, size_t whylen)
{
	if (guard_verify(r->mem, r->len, start, len, why, whylen))
		return -1;
	memset(r->mem + start, FILL, len);
	return 0;
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
static inline int check_clear_op(struct guarded *r, const struct clear_op *op,
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

/* A fault or an illegal instruction is a failure of the check that ran. Where
 * the thread armed a return point (fault_armed, fault_return: cp_check around
 * each clear) it goes back there and the run goes on; otherwise name the
 * check, print the tally with it counted, and stop. */
static __thread sigjmp_buf fault_return;
static __thread volatile sig_atomic_t fault_armed;

static inline const char *signal_name(int sig)
{
	return sig == SIGILL ? "SIGILL" : sig == SIGSEGV ? "SIGSEGV" :
	       sig == SIGBUS ? "SIGBUS" : "SIGFPE";
}

static void fatal_signal(int sig)
{
	if (fault_armed) {
		fault_armed = 0;
		siglongjmp(fault_return, sig);
	}
	char line[256], what[161];
	size_t w = strlen(current_check) < 160 ? strlen(current_check) : 160;
	memcpy(what, current_check, w);
	what[w] = '\0';
	size_t n = put_text(line, 0, "FAIL  ");
	n = put_text(line, n, what);
	n = put_text(line, n, ": ");
	n = put_text(line, n, signal_name(sig));
	n = put_text(line, n, "\n");
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
