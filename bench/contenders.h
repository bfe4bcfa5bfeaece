/* SPDX-License-Identifier: MIT */
/* What gets measured (contenders.c): kernels, the dispatcher, memset, the
 * second libc's memset in a helper process. */
#ifndef CLEARBENCH_CONTENDERS_H
#define CLEARBENCH_CONTENDERS_H

#include <stddef.h>
#include "clearpages.h"
#include "opts.h"

struct bench_rounds;
struct bench_contender {
	char name[24];
	/* clear [buf, buf + bytes); bytes is a multiple of CP_PAGE_SIZE */
	void (*clear)(const struct bench_contender *c, void *buf, size_t bytes);
	/* Instead of clear: a contender that times itself elsewhere (memset under
	 * another libc, in a helper process): seconds per pass, measured as
	 * bench_time_passes does, on a hot buffer of its own (cfg's kind is hot). */
	double (*timed)(const struct bench_contender *c, size_t bytes,
			const struct bench_rounds *cfg);
	/* Instead of clear: copy [src, src + bytes) to dst (the copy scenario;
	 * rounds.c hands it a source and a destination of the kind of target) */
	void (*copy)(const struct bench_contender *c, void *dst, const void *src, size_t bytes);
	const struct cp_copy_kernel *copy_kernel;   /* copy kernel contenders; NULL otherwise */
	const void *ctx;                   /* the scenario's own settings (copy's huge orders) */
	const struct cp_kernel *kernel;    /* kernel contenders; NULL otherwise */
	size_t batch_bytes;                /* calls of at most this; 0 = one call */
	int descending;                    /* batches from the top address down */
};
/* The kernels of opts (in cp_kernels() order), then auto, memset and auto_page
 * when `with_baselines`. Returns the count (at most BENCH_MAX_KERNELS + 3). */
size_t bench_contenders(const struct bench_opts *opts, int with_baselines,
			struct bench_contender *out);
/* A contender calling kernel k (NULL: memset) on batches of at most batch_bytes
 * (0: one call), in ascending or descending address order. */
void bench_contender_batched(struct bench_contender *c, const struct cp_kernel *k,
			     size_t batch_bytes, int descending);
/* Debian 13's loader and library folder (bench/trixie-libc.sh), to run this binary under the
 * other libc: 1 if there, 0 if not fetched or under emulation. */
int bench_libc2_loader(const struct bench_opts *opts, char *loader, size_t loader_len,
		       char *lib, size_t lib_len);
/* The memset of a second libc (Debian 13's glibc, bench/trixie-libc.sh) in a
 * helper process, timed the same way; 0 when that libc is not there. The
 * name says which libc ("memset_2.41"). bench_libc_helper_main is the helper. */
int bench_memset_other_libc(const struct bench_opts *opts, struct bench_contender *c);
void bench_memset_other_libc_stop(void);
const char *bench_libc_version(void);           /* this process's glibc: "2.36" */
/* The source tree this binary was built in (ROOT of ROOT/build/<arch>/clearbench), or NULL
 * when it runs from an install; the hint that works where it runs: `make ...` in a tree,
 * the variable or package (and clearbench(1)) once installed. */
const char *bench_source_tree(void);
const char *bench_hint(const char *in_tree, const char *installed);
int bench_libc_helper_main(void);
/* Every copy kernel of cp_copy_kernels() (at most max - 2), then auto
 * (cp_copy_pages) and memcpy; the count. */
size_t bench_copy_contenders(struct bench_contender *out, size_t max);
/* cp_zero() with CP_ZERO_COLD, named cold_call. */
void bench_contender_cold_call(struct bench_contender *c);
/* memset(0), which the compiler may not elide. */
void bench_memset_zero(void *buf, size_t bytes);

#endif
