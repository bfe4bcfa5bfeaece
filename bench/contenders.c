/* SPDX-License-Identifier: MIT */
/* What the scenarios measure: kernels, the dispatcher, memset. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <gnu/libc-version.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include "contenders.h"
#include "map.h"
#include "opts.h"
#include "rounds.h"

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

static void *(*volatile memcpy_fn)(void *, const void *, size_t) = memcpy;

static void copy_kernel(const struct bench_contender *c, void *dst, const void *src, size_t bytes)
{
	if (c->copy_kernel)
		c->copy_kernel->copy(dst, src, bytes / CP_PAGE_SIZE);
	else
		memcpy_fn(dst, src, bytes);
}

static void copy_auto(const struct bench_contender *c, void *dst, const void *src, size_t bytes)
{
	(void)c;
	cp_copy_pages(dst, src, bytes / CP_PAGE_SIZE);
}

size_t bench_copy_contenders(struct bench_contender *out, size_t max)
{
	const struct cp_copy_kernel *const *list;
	size_t nk = cp_copy_kernels(&list), n = 0;
	for (size_t i = 0; i < nk + 2 && n < max; i++) {
		if (i < nk && n + 2 >= max)
			continue;   /* room for auto and memcpy */
		memset(&out[n], 0, sizeof(out[n]));
		out[n].copy = i == nk ? copy_auto : copy_kernel;
		out[n].copy_kernel = i < nk ? list[i] : NULL;
		snprintf(out[n++].name, sizeof(out[0].name), "%s",
			 i < nk ? list[i]->name : i == nk ? "auto" : "memcpy");
	}
	return n;
}

static void clear_auto(const struct bench_contender *c, void *buf, size_t bytes)
{
	(void)c;
	cp_clear_pages(buf, bytes / CP_PAGE_SIZE);
}

static void clear_cold_call(const struct bench_contender *c, void *buf, size_t bytes)
{
	(void)c;
	cp_zero(buf, bytes, CP_ZERO_COLD);
}

void bench_contender_cold_call(struct bench_contender *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "cold_call");
	c->clear = clear_cold_call;
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



/*
 * The memset of a second libc. The helper is this program re-executed by that
 * libc's dynamic loader (--library-path), so its memset is the other libc's
 * while the buffer, the warm-up, the passes and the clock are the same code
 * as here. The helper times itself and answers seconds per pass over a pipe,
 * so no pipe latency enters the figures; the parent blocks meanwhile.
 */

/* Hot targets only: on cold and use targets the helper's figures did not
 * match the same memset measured in this process (bench/results/
 * intel-family6-model167/README.md), so sweep leaves the helper out there. */
struct libc_request { size_t bytes, span, warmup, reps; };

static pid_t helper_pid;
static int to_helper = -1, from_helper = -1;
static char helper_version[16];

const char *bench_libc_version(void)
{
	return gnu_get_libc_version();
}

static int read_all(int fd, void *p, size_t n)
{
	for (size_t got = 0; got < n;) {
		ssize_t r = read(fd, (char *)p + got, n - got);
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

static int write_all(int fd, const void *p, size_t n)
{
	for (size_t put = 0; put < n;) {
		ssize_t r = write(fd, (const char *)p + put, n - put);
		if (r <= 0)
			return -1;
		put += (size_t)r;
	}
	return 0;
}

int bench_libc_helper_main(void)
{
	char version[16] = { 0 };
	struct libc_request q;
	struct bench_contender c;
	void *buf = NULL;
	size_t mapped = 0, slot = 0;
	snprintf(version, sizeof(version), "%s", gnu_get_libc_version());
	if (write_all(1, version, sizeof(version)))
		return 1;
	/* memset here is this libc's: the same contender and passes as the parent's */
	bench_contender_batched(&c, NULL, 0, 0);
	while (read_all(0, &q, sizeof(q)) == 0) {
		if (q.span > mapped) {
			bench_unmap(buf, mapped);
			if (!(buf = bench_map(q.span)))
				return 1;
			mapped = q.span;
		}
		struct bench_rounds cfg = { 1, q.warmup, q.reps, q.span, BK_HOT, NULL, NULL, NULL };
		slot %= q.span > q.bytes ? q.span / q.bytes : 1;
		double per_pass = bench_time_passes(&c, buf, q.bytes, &cfg, &slot);
		if (write_all(1, &per_pass, sizeof(per_pass)))
			return 1;
	}
	return 0;
}

static double timed_other_libc(const struct bench_contender *c, size_t bytes,
			       const struct bench_rounds *cfg)
{
	(void)c;
	struct libc_request q = { bytes, cfg->span > bytes ? cfg->span : bytes, cfg->warmup,
				  cfg->reps };
	double per_pass;
	if (write_all(to_helper, &q, sizeof(q)) || read_all(from_helper, &per_pass, sizeof(per_pass))) {
		fprintf(stderr, "clearbench: the memset helper under glibc %s stopped\n",
			helper_version);
		exit(1);
	}
	return per_pass;
}

const char *bench_source_tree(void)
{
	static char root[PATH_MAX];
	static int looked;
	char probe[PATH_MAX + 32];
	if (!looked) {   /* ROOT/build/<arch>/clearbench, ROOT/bench/ its sources */
		looked = 1;
		ssize_t n = readlink("/proc/self/exe", root, sizeof(root) - 1);
		root[n > 0 ? n : 0] = '\0';
		for (int up = 0; up < 3; up++) {
			char *slash = strrchr(root, '/');
			*(slash ? slash : root) = '\0';
		}
		snprintf(probe, sizeof(probe), "%s/bench/trixie-libc.sh", root);
		if (!root[0] || access(probe, R_OK))
			root[0] = '\0';
	}
	return root[0] ? root : NULL;
}

const char *bench_hint(const char *in_tree, const char *installed)
{
	return bench_source_tree() ? in_tree : installed;
}

/* The folder holding the other libc: CLEARBENCH_LIBC2, else .deps/trixie-libc
 * of the source tree this binary was built in (none for an installed one). */
static void libc2_dir(char *dir, size_t len)
{
	const char *env = getenv("CLEARBENCH_LIBC2");
	if (env && *env)
		snprintf(dir, len, "%s", env);
	else if (bench_source_tree())
		snprintf(dir, len, "%.3000s/.deps/trixie-libc", bench_source_tree());
	else
		snprintf(dir, len, "/nonexistent");
}

int bench_libc2_loader(const struct bench_opts *opts, char *loader, size_t loader_len,
		       char *lib, size_t lib_len)
{
#if defined(__x86_64__)
	static const char loader_name[] = "ld-linux-x86-64.so.2", triplet[] = "x86_64-linux-gnu";
#else
	static const char loader_name[] = "ld-linux-aarch64.so.1", triplet[] = "aarch64-linux-gnu";
#endif
	char dir[PATH_MAX];
	libc2_dir(dir, sizeof(dir));
	snprintf(lib, lib_len, "%.3000s/usr/lib/%s", dir, triplet);
	snprintf(loader, loader_len, "%.3100s/%s", lib, loader_name);
	return !opts->emulated && !access(loader, X_OK);
}

int bench_memset_other_libc(const struct bench_opts *opts, struct bench_contender *c)
{
	char lib[PATH_MAX + 64], loader[PATH_MAX + 96], exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0 || !bench_libc2_loader(opts, loader, sizeof(loader), lib, sizeof(lib)))
		return 0;
	exe[n] = '\0';
	if (to_helper < 0) {
		int down[2], up[2];
		if (pipe(down) || pipe(up))
			return 0;
		fflush(NULL);
		helper_pid = fork();
		if (helper_pid == 0) {
			dup2(down[0], 0);
			dup2(up[1], 1);
			close(down[0]); close(down[1]); close(up[0]); close(up[1]);
			execl(loader, loader, "--library-path", lib, exe, "--libc-helper", (char *)NULL);
			_exit(127);
		}
		close(down[0]);
		close(up[1]);
		to_helper = down[1];
		from_helper = up[0];
		if (helper_pid < 0 || read_all(from_helper, helper_version, sizeof(helper_version))) {
			fprintf(stderr, "clearbench: %s did not start the memset helper; the second "
				"memset baseline is left out\n", loader);
			bench_memset_other_libc_stop();
			return 0;
		}
		helper_version[sizeof(helper_version) - 1] = '\0';
	}
	if (!strcmp(helper_version, bench_libc_version()))
		return 0;   /* the same libc twice is no second baseline */
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "memset_%s", helper_version);
	c->timed = timed_other_libc;
	return 1;
}

void bench_memset_other_libc_stop(void)
{
	if (to_helper >= 0)
		close(to_helper);
	if (from_helper >= 0)
		close(from_helper);
	to_helper = from_helper = -1;
	if (helper_pid > 0)
		waitpid(helper_pid, NULL, 0);
	helper_pid = 0;
}
