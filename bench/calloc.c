/* SPDX-License-Identifier: MIT */
/*
 * clearbench calloc: calloc of 4 KiB .. 1 GiB blocks (fresh, reused, reused then written by
 * the caller) and a mixed-size churn, through glibc malloc, stock mimalloc and mimalloc
 * patched to zero through clearpages (consumers/mimalloc). Each sample runs in its own child
 * process (this binary again, the allocator LD_PRELOADed): that is how an allocator is
 * deployed, it gives every allocator a fresh address space (so "fresh" means fresh), and
 * mimalloc's shared library uses initial-exec TLS, made to be loaded at start, not dlopened.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "clearbench.h"

extern char **environ;

#define WORKER_ENV   "CLEARBENCH_CALLOC_WORKER"
#define LIBS_ENV     "CLEARBENCH_MIMALLOC"
#define NALLOC       5             /* glibc, stock, patched, then the optional variants */
#define NMODES       3             /* fresh, reused, written */
#define MAX_ROUNDS   64
#define CHURN_MAX    ((size_t)16 << 20)

static const char *const mode_names[NMODES] = { "fresh", "reused", "reused+write" };

struct alloc {
	const char *name;
	char lib[4096];            /* LD_PRELOAD value; empty for glibc */
};

/* ---- the worker (child) side ---- */

/* The worker's own CPU time (user + system, page faults included): on a shared host a
 * preempted worker must not count the time other processes ran. */
static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void touch_pages(unsigned char *p, size_t bytes)
{
	for (size_t i = 0; i < bytes; i += CP_PAGE_SIZE)
		((volatile unsigned char *)p)[i] = 1;
}

/* calloc + first touch of every page, as a program would use the block (write_all: the
 * caller then fills it). NULL when calloc fails. */
static void *calloc_use(size_t bytes, int write_all)
{
	unsigned char *p = calloc(1, bytes);
	if (p && write_all)
		bench_memset_zero(p, bytes);
	else if (p)
		touch_pages(p, bytes);
	return p;
}

/* Seconds for `n` passes of calloc_use + free after one untimed pass. CLOCK_THREAD_CPUTIME_ID
 * is a system call: blocks under 1 MiB are timed as one batch, free included; larger ones
 * one pass at a time, free (for mimalloc past 16 MiB an munmap) left out. */
static double reuse_passes(size_t bytes, size_t n, int write_all)
{
	double t = 0, t0 = 0;
	for (size_t i = 0; i <= n; i++) {
		if (i == 1 || (i && bytes >= (1u << 20)))
			t0 = cpu_now();
		void *p = calloc_use(bytes, write_all);
		if (!p)
			return -1;
		if (i && bytes >= (1u << 20))
			t += cpu_now() - t0;
		free(p);
	}
	return bytes >= (1u << 20) ? t : cpu_now() - t0;
}

/* Three GB/s figures for one size: fresh blocks (never freed while timed), then reused and
 * reused+write (calloc after a free of the same size). Past 16 MiB mimalloc gives a freed
 * block back to the OS, so its "reused" block is fresh too. */
static int work_size(size_t bytes, int quick, double *gbs)
{
	size_t budget = quick ? (8u << 20) : (64u << 20);
	size_t nfresh = budget / bytes ? budget / bytes : 1, nreps = nfresh < 2 ? 2 : nfresh;
	void **blocks = malloc(nfresh * sizeof(*blocks));
	if (!blocks)
		return 1;
	/* one-time start-up (the allocator's, clearpages' dispatch) stays out of the figures:
	 * a block of a size class no default size uses */
	free(calloc(1, 5000));
	double t0 = cpu_now();
	for (size_t i = 0; i < nfresh; i++)
		if (!(blocks[i] = calloc_use(bytes, 0)))
			return 1;
	double t = cpu_now() - t0;
	for (size_t i = 0; i < nfresh; i++)
		free(blocks[i]);
	free(blocks);
	gbs[0] = bench_gbs(bytes * nfresh, t);
	for (int m = 1; m < NMODES; m++) {
		if ((t = reuse_passes(bytes, nreps, m == 2)) < 0)
			return 1;
		gbs[m] = bench_gbs(bytes * nreps, t);
	}
	return 0;
}

/* Mixed sizes: 64 live slots, each step frees one and callocs a log-uniform 4 KiB..16 MiB
 * block (same seed for every allocator), touched; GB/s of calloc'ed bytes. */
static int work_churn(int quick, double *gbs)
{
	enum { SLOTS = 64 };
	void *slot[SLOTS] = { 0 };
	uint64_t rng = 0x9e3779b97f4a7c15ull;
	size_t total = 0, target = quick ? (64u << 20) : ((size_t)4 << 30);
	double t0 = cpu_now();
	while (total < target) {
		uint64_t r = bench_random(&rng);
		size_t j = r % SLOTS, shift = 12 + (r >> 8) % 13;
		size_t bytes = ((size_t)1 << shift) + ((r >> 16) % ((size_t)1 << shift));
		bytes = bytes > CHURN_MAX ? CHURN_MAX : bytes;
		free(slot[j]);
		if (!(slot[j] = calloc(1, bytes)))
			return 1;
		touch_pages(slot[j], bytes);
		total += bytes;
	}
	double t = cpu_now() - t0;
	for (size_t j = 0; j < SLOTS; j++)
		free(slot[j]);
	gbs[0] = bench_gbs(total, t);
	return 0;
}

/* "SIZE QUICK MI": SIZE 0 = churn; MI 1 = mimalloc must be the malloc here. */
static int worker(const char *spec)
{
	unsigned long long size;
	int quick, mi;
	double gbs[NMODES] = { 0 };
	if (sscanf(spec, "%llu %d %d", &size, &quick, &mi) != 3)
		return 2;
	if (mi != (dlsym(RTLD_DEFAULT, "mi_version") != NULL)) {
		fprintf(stderr, "calloc worker: mimalloc %s\n", mi ? "not preloaded" : "unexpected");
		return 1;
	}
	if (size ? work_size(size, quick, gbs) : work_churn(quick, gbs))
		return 1;
	dprintf(3, "%.6f %.6f %.6f\n", gbs[0], gbs[1], gbs[2]);
	return 0;
}

/* ---- the parent side ---- */

/* One child: this binary with `a`'s library preloaded; its figures into gbs. */
static int run_child(const struct alloc *a, size_t size, int quick, double *gbs)
{
	static char exe[4096];
	if (!exe[0] && readlink("/proc/self/exe", exe, sizeof(exe) - 1) < 0)
		return perror("calloc: /proc/self/exe"), 1;
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = calloc(n + 3, sizeof(*env));
	char spec[96], preload[4200];
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11) && strncmp(environ[i], WORKER_ENV "=", 25))
			env[k++] = environ[i];
	snprintf(spec, sizeof(spec), WORKER_ENV "=%zu %d %d", size, quick, a->lib[0] != 0);
	env[k++] = spec;
	if (a->lib[0]) {
		snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", a->lib);
		env[k++] = preload;
	}
	int fds[2];
	if (pipe(fds))
		return free(env), perror("calloc: pipe"), 1;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 3);
	char *argv[] = { exe, "calloc", NULL };
	pid_t pid;
	int rc = posix_spawn(&pid, exe, &fa, NULL, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	free(env);
	if (rc) {
		close(fds[0]);
		return fprintf(stderr, "calloc: cannot start %s: %s\n", exe, strerror(rc)), 1;
	}
	char line[128] = "";
	ssize_t got = read(fds[0], line, sizeof(line) - 1);
	close(fds[0]);
	int status;
	waitpid(pid, &status, 0);
	if (got <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) ||
	    sscanf(line, "%lf %lf %lf", &gbs[0], &gbs[1], &gbs[2]) != 3)
		return fprintf(stderr, "calloc: the %s worker failed at %zu bytes\n", a->name, size), 1;
	return 0;
}

/* CLEARBENCH_MIMALLOC=DIR, else build/<arch>/mimalloc: DIR/{stock,patched}/libmimalloc.so,
 * and DIR/patched-cponly/, DIR/patched-hot/ when built (build.sh, CP_MIMALLOC_VARIANTS).
 * Count of allocators, 0 if a required one is missing. */
static size_t find_allocs(struct alloc *a)
{
#if defined(__aarch64__)
	const char *dir = "build/arm64/mimalloc";
#else
	const char *dir = "build/x86_64/mimalloc";
#endif
	/* the optional variants: build.sh with CP_MIMALLOC_VARIANTS */
	static const char *const names[] = { "mimalloc", "mimalloc+cp", "+cp_only", "+cp_hot" };
	static const char *const subdirs[] = { "stock", "patched", "patched-cponly", "patched-hot" };
	const char *env = getenv(LIBS_ENV);
	char path[4096];
	size_t n = 1;
	dir = env && *env ? env : dir;
	a[0].name = "glibc";
	a[0].lib[0] = 0;
	for (size_t i = 0; i < NALLOC - 1; i++) {
		snprintf(path, sizeof(path), "%s/%s/libmimalloc.so", dir, subdirs[i]);
		if (!realpath(path, a[n].lib)) {
			if (i < 2) {
				fprintf(stderr, "clearbench: calloc: no %s (build it with `make "
					"consumer-mimalloc`, or set " LIBS_ENV "=DIR)\n", path);
				return 0;
			}
			continue;
		}
		a[n++].name = names[i];
	}
	return n;
}

/* Median of the per-round ratios num/den, and with `spread` their min-max. */
static void ratio_cells(struct bench_table *t, const double *num, const double *den, size_t r,
			int spread)
{
	double q[MAX_ROUNDS];
	for (size_t i = 0; i < r; i++)
		q[i] = num[i] / den[i];
	char cell[40];
	bench_cell_num(t, bench_median(q, r), "%.3f");
	snprintf(cell, sizeof(cell), "%.2f-%.2f", bench_min(q, r), bench_max(q, r));
	if (spread)
		bench_cell_str(t, cell);
}

/* Clear then write on reused (faulted-in) memory, no allocator: what calloc's caller does
 * next decides between the temporal (hot) and the non-temporal (cold) kernel. */
enum { CTW_HOT, CTW_COLD, CTW_AUTO, CTW_MEMSET, NCTW };

static void clear_then_write(int how, void *buf, size_t bytes)
{
	size_t np = bytes / CP_PAGE_SIZE;
	if (how == CTW_HOT)
		cp_clear_pages_hot(buf, np);
	else if (how == CTW_COLD)
		cp_clear_pages_cold(buf, np);
	else if (how == CTW_AUTO)
		cp_clear(buf, bytes);
	else
		bench_memset_zero(buf, bytes);
	memset(buf, 0x5a, bytes);
}

static struct bench_table *ctw_table(const struct bench_opts *opts, const size_t *sizes,
				     size_t nsizes, size_t rounds)
{
	static const char *const cols[] = { "block", "hot", "cold", "cp_clear", "memset",
					    "hot/cold", "hot/cold min-max" };
	size_t top = 0, budget = opts->quick ? (8u << 20) : (64u << 20);
	for (size_t i = 0; i < nsizes; i++)
		top = sizes[i] > top ? sizes[i] : top;
	unsigned char *buf = top ? bench_map(top) : NULL;
	if (!buf)
		return NULL;
	struct bench_table *t = bench_table_new("clear then write (reused memory, no allocator): "
						"GB/s of the clear + write, median", BT_TEXT | BT_DATA,
						7, cols);
	uint64_t rng = 0x853c49e6748fea9bull;
	for (size_t si = 0; si < nsizes; si++) {
		size_t bytes = sizes[si], reps = budget / bytes ? budget / bytes : 1;
		double g[NCTW][MAX_ROUNDS];
		size_t order[NCTW] = { 0, 1, 2, 3 };
		if (!bytes)
			continue;
		for (size_t r = 0; r < rounds; r++) {
			bench_shuffle(order, NCTW, &rng);
			for (size_t i = 0; i < NCTW; i++) {
				clear_then_write((int)order[i], buf, bytes);   /* warm-up */
				double t0 = cpu_now();
				for (size_t k = 0; k < reps; k++)
					clear_then_write((int)order[i], buf, bytes);
				g[order[i]][r] = bench_gbs(bytes * reps, cpu_now() - t0);
			}
		}
		char blk[16];
		bench_table_row(t);
		bench_cell_str(t, bench_size_str(bytes, blk, sizeof(blk)));
		for (size_t i = 0; i < NCTW; i++)
			bench_cell_num(t, bench_median(g[i], rounds), "%.2f");
		ratio_cells(t, g[CTW_HOT], g[CTW_COLD], rounds, 1);
	}
	bench_unmap(buf, top);
	return t;
}

int bench_calloc(const struct bench_opts *opts)
{
	const char *spec = getenv(WORKER_ENV);
	if (spec && *spec)
		return worker(spec);
	if (bench_no_plot(opts, "calloc"))
		return 2;
	struct alloc a[NALLOC];
	size_t na = find_allocs(a);
	if (!na)
		return 2;
	static const size_t dflt[] = { 4096, 16384, 65536, 262144, 1 << 20, 4 << 20, 16 << 20,
				       64 << 20, 256 << 20, 1 << 30 };
	size_t sizes[BENCH_MAX_SIZES + 1], nsizes = opts->nsizes;
	if (nsizes)
		memcpy(sizes, opts->sizes, nsizes * sizeof(*sizes));
	else
		memcpy(sizes, dflt, sizeof(dflt)), nsizes = sizeof(dflt) / sizeof(dflt[0]);
	sizes[nsizes++] = 0;   /* the churn row */
	size_t rounds = opts->rounds ? opts->rounds : opts->quick ? 3 : 5;
	rounds = rounds > MAX_ROUNDS ? MAX_ROUNDS : rounds;

	const char *cols[16] = { "block", "calloc" };
	size_t nc = 2;
	for (size_t i = 0; i < na; i++)
		cols[nc++] = a[i].name;
	cols[nc++] = "cp/stock";
	cols[nc++] = "cp/stock min-max";
	char extra_cols[NALLOC][32];
	for (size_t i = 3; i < na; i++) {
		snprintf(extra_cols[i], sizeof(extra_cols[i]), "%s/stock", a[i].name + 1);
		cols[nc++] = extra_cols[i];
	}
	struct bench_table *t = bench_table_new("calloc: GB/s, median over rounds (separate "
						"processes, LD_PRELOAD)", BT_TEXT | BT_DATA, nc, cols);
	uint64_t rng = 0x2545f4914f6cdd1dull;
	int rc = 0;
	for (size_t si = 0; si < nsizes && !rc; si++) {
		double g[NALLOC][NMODES][MAX_ROUNDS];
		size_t order[NALLOC] = { 0, 1, 2, 3, 4 };
		char blk[16];
		if (sizes[si])
			bench_size_str(sizes[si], blk, sizeof(blk));
		else
			snprintf(blk, sizeof(blk), "churn");
		bench_progress("calloc: %s (%zu/%zu)", blk, si + 1, nsizes);
		for (size_t r = 0; r < rounds && !rc; r++) {
			bench_shuffle(order, na, &rng);
			for (size_t i = 0; i < na && !rc; i++) {
				double v[NMODES];
				rc = run_child(&a[order[i]], sizes[si], opts->quick, v);
				for (size_t m = 0; m < NMODES; m++)
					g[order[i]][m][r] = v[m];
			}
		}
		for (size_t m = 0; m < (sizes[si] ? NMODES : 1) && !rc; m++) {
			bench_table_row(t);
			bench_cell_str(t, blk);
			bench_cell_str(t, sizes[si] ? mode_names[m] : "4K-16M mix");
			for (size_t i = 0; i < na; i++)
				bench_cell_num(t, bench_median(g[i][m], rounds), "%.2f");
			ratio_cells(t, g[2][m], g[1][m], rounds, 1);
			for (size_t i = 3; i < na; i++)
				ratio_cells(t, g[i][m], g[1][m], rounds, 0);
		}
	}
	if (rc) {
		bench_table_free(t);
		return 1;
	}
	struct bench_table *ctw = ctw_table(opts, sizes, nsizes, rounds);
	if (!ctw) {
		bench_table_free(t);
		return 1;
	}
	bench_table_print(t);
	printf("\n");
	bench_table_print(ctw);
	printf("\n");
	bench_note("GB/s = block bytes / CPU time (user + sys, page faults included) of calloc + "
		   "first write of every page; reused+write: the caller then writes the whole block. "
		   "fresh = blocks never freed while timed; cp/stock min-max = the per-round ratios; "
		   "%zu rounds, allocators shuffled.", rounds);
	bench_note("clear then write: cp_clear_pages_hot / _cold / cp_clear / memset, then "
		   "memset(0x5a) over the block, in one mapping faulted in beforehand.");
	struct bench_table *tables[] = { t, ctw };
	rc = bench_write_outputs(opts, "calloc", tables, 2);
	bench_table_free(t);
	bench_table_free(ctw);
	return rc;
}
