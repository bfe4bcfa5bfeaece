/* SPDX-License-Identifier: MIT */
/*
 * fault (the workload and the orders of the Linux folio_zero_user thread,
 * "cache neighbouring pages"): vm-scalability's
 * anon-w-seq on 2 MiB huge pages, emulated in user space. Each worker walks
 * its share of a region huge page by huge page: clear the page with
 * cp_clear_huge_opts() in one of the orders (what the kernel's fault handler
 * does: the thread's 'stime'), then write it sequentially (the workload: its
 * 'utime'). The memory is faulted in beforehand, so the kernel's own zeroing
 * stays out of the figures; both columns are user-space clocks standing in
 * for the kernel's stime and utime.
 *
 * Mixed rows: neighbourhood-last with kernel NULL under a low non-temporal
 * threshold (hot range temporal, far ranges non-temporal: "mixed") against
 * the same order with the best temporal kernel everywhere, on 2 MiB pages and
 * on a whole region cleared as one extent.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "introspect.h"
#include "map.h"
#include "opts.h"
#include "plot.h"
#include "scenarios.h"
#include "stats.h"
#include "table.h"

#define HUGE_2M ((size_t)2 << 20)
#define MIB ((size_t)1 << 20)
#define MIXED_NT_FROM_PAGES 16     /* 64 KiB: every far range of a 2 MiB page is NT */
#define MAX_VARIANTS 8

struct variant {
	const char *label;
	struct cp_huge_opts opts;
};

struct phase {
	const char *name;
	size_t extent;                 /* bytes per cp_clear_huge_opts() call */
	size_t region;                 /* bytes, shared out among the workers */
	unsigned workers;
	size_t nvariants, rounds;      /* timed passes per variant, each after a warm-up pass */
	struct variant v[MAX_VARIANTS];
	size_t *schedule;              /* rounds * nvariants variant indices */
	double *stime, *utime;         /* [variant][round][worker] seconds */
};

struct worker {
	const struct phase *ph;
	const struct bench_opts *opts;
	pthread_barrier_t *barrier;
	unsigned id;
	char *base;
	size_t bytes;
};

/* The workload's sequential write pass over what was just cleared. */
static void user_write(char *p, size_t bytes)
{
	uint64_t *w = (uint64_t *)p;
	for (size_t i = 0; i < bytes / sizeof(*w); i++)
		w[i] = i;
	__asm__ volatile("" : : "r"(p) : "memory");
}

/* One anon-w-seq pass over the worker's share: clear a huge page, write it. */
static void fault_pass(const struct worker *wk, const struct variant *v, uint64_t *rng,
		       double *stime, double *utime)
{
	size_t extent = wk->ph->extent, npages = extent / CP_PAGE_SIZE;
	*stime = *utime = 0;
	for (size_t off = 0; off < wk->bytes; off += extent) {
		size_t hot = wk->opts->random_fault ? bench_random(rng) % npages : 0;
		double t0 = bench_now();
		if (cp_clear_huge_opts(wk->base + off, npages, hot, &v->opts))
			abort();
		double t1 = bench_now();
		user_write(wk->base + off, extent);
		double t2 = bench_now();
		*stime += t1 - t0;
		*utime += t2 - t1;
	}
}

static void *worker_main(void *arg)
{
	struct worker *wk = arg;
	const struct phase *ph = wk->ph;
	uint64_t rng = 0x9e3779b97f4a7c15ull + wk->id;
	for (size_t step = 0; step < ph->rounds * ph->nvariants; step++) {
		size_t v = ph->schedule[step], round = step / ph->nvariants;
		size_t i = (v * ph->rounds + round) * ph->workers + wk->id;
		pthread_barrier_wait(wk->barrier);   /* all workers on one order at once */
		/* warm-up: a temporal pass right after a non-temporal one runs slow */
		fault_pass(wk, &ph->v[v], &rng, &ph->stime[i], &ph->utime[i]);
		fault_pass(wk, &ph->v[v], &rng, &ph->stime[i], &ph->utime[i]);
	}
	return NULL;
}

static char *map_region(const struct bench_opts *opts, size_t bytes)
{
	if (!opts->hugetlb)
		return bench_map(bytes);
	char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | (21 << MAP_HUGE_SHIFT), -1, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "clearbench: --hugetlb: mmap of %zu bytes failed (%s): reserve "
			"pages with /proc/sys/vm/nr_hugepages\n", bytes, strerror(errno));
		return NULL;
	}
	memset(p, 0x5a, bytes);   /* fault in: the kernel's zeroing stays out */
	return p;
}

/* Runs the phase's workers; 0, or 1 after a message. */
static int run_phase(struct phase *ph, const struct bench_opts *opts, uint64_t *rng)
{
	size_t share = ph->region / ph->workers / ph->extent * ph->extent;
	if (share == 0)
		share = ph->extent;
	size_t total = share * ph->workers;
	size_t nsteps = ph->rounds * ph->nvariants, nres = ph->nvariants * ph->rounds * ph->workers;
	ph->schedule = malloc(nsteps * sizeof(*ph->schedule));
	ph->stime = calloc(nres, sizeof(double));
	ph->utime = calloc(nres, sizeof(double));
	struct worker *wk = calloc(ph->workers, sizeof(*wk));
	pthread_t *tid = calloc(ph->workers, sizeof(*tid));
	if (!ph->schedule || !ph->stime || !ph->utime || !wk || !tid)
		abort();
	for (size_t r = 0; r < ph->rounds; r++) {   /* a new order of variants per round */
		for (size_t v = 0; v < ph->nvariants; v++)
			ph->schedule[r * ph->nvariants + v] = v;
		bench_shuffle(&ph->schedule[r * ph->nvariants], ph->nvariants, rng);
	}
	char *base = map_region(opts, total);
	if (!base)
		return 1;
	char ext[16], reg[16];
	bench_progress("fault: %s, %s extents over %s, %u workers", ph->name,
		       bench_size_str(ph->extent, ext, sizeof(ext)),
		       bench_size_str(total, reg, sizeof(reg)), ph->workers);
	pthread_barrier_t barrier;
	pthread_barrier_init(&barrier, NULL, ph->workers);
	unsigned started = 0;
	for (; started < ph->workers; started++) {
		wk[started] = (struct worker){ ph, opts, &barrier, started,
					       base + started * share, share };
		if (pthread_create(&tid[started], NULL, worker_main, &wk[started]))
			break;
	}
	if (started < ph->workers) {
		fprintf(stderr, "clearbench: fault: could start only %u of %u workers\n",
			started, ph->workers);
		exit(1);   /* the others wait at the barrier for ever */
	}
	for (unsigned i = 0; i < ph->workers; i++)
		pthread_join(tid[i], NULL);
	pthread_barrier_destroy(&barrier);
	bench_unmap(base, total);
	ph->region = total;
	free(wk);
	free(tid);
	return 0;
}

static void report_phase(const struct phase *ph, const struct bench_opts *opts,
			 struct bench_table *t)
{
	size_t n = ph->rounds * ph->workers;
	char ext[16], reg[16];
	for (size_t v = 0; v < ph->nvariants; v++) {
		double sm, ssd, um, usd, tot[n];
		const double *s = &ph->stime[v * n], *u = &ph->utime[v * n];
		for (size_t i = 0; i < n; i++)
			tot[i] = 1e3 * (s[i] + u[i]);
		double tm, tsd;
		bench_mean_stddev(s, n, &sm, &ssd);
		bench_mean_stddev(u, n, &um, &usd);
		bench_mean_stddev(tot, n, &tm, &tsd);
		bench_table_row(t);
		bench_cell_str(t, ph->name);
		bench_cell_str(t, ph->v[v].label);
		bench_cell_str(t, bench_size_str(ph->extent, ext, sizeof(ext)));
		bench_cell_str(t, bench_size_str(ph->region, reg, sizeof(reg)));
		bench_cell_str(t, opts->random_fault ? "random" : "0");
		bench_cell_num(t, ph->workers, "%.0f");
		bench_cell_num(t, (double)n, "%.0f");
		bench_cell_num(t, 1e3 * sm, "%.2f");
		bench_cell_num(t, 100 * ssd / sm, "+-%.1f%%");
		bench_cell_num(t, 1e3 * um, "%.2f");
		bench_cell_num(t, 100 * usd / um, "+-%.1f%%");
		bench_cell_num(t, tm, "%.2f");
	}
}

static void free_phase(struct phase *ph)
{
	free(ph->schedule);
	free(ph->stime);
	free(ph->utime);
}

static struct variant order_variant(const char *label, enum cp_order order, size_t batch,
				    const struct cp_kernel *kernel)
{
	struct variant v = { label, CP_HUGE_OPTS_INIT };
	v.opts.order = order;
	v.opts.batch_pages = batch;
	v.opts.kernel = kernel;
	return v;
}

/* stime, utime and total per order and phase, as bars. */
static int fault_plot(const char *path, const struct bench_table *t)
{
	const char *cats[32];
	char names[32][160];
	double v[3 * 32];
	static const char *const sers[] = { "stime (clear)", "utime (write)", "total" };
	size_t ncat = t->nrows < 32 ? t->nrows : 32;
	for (size_t r = 0; r < ncat; r++) {
		snprintf(names[r], sizeof(names[r]), "%s: %s", bench_cell_at(t, r, 0)->text,
			 bench_cell_at(t, r, 1)->text);
		cats[r] = names[r];
		v[0 * ncat + r] = bench_cell_at(t, r, 7)->value;
		v[1 * ncat + r] = bench_cell_at(t, r, 9)->value;
		v[2 * ncat + r] = bench_cell_at(t, r, 11)->value;
	}
	return bench_plot_bars(path, "clearbench fault: anon-w-seq emulated, ms per worker pass "
			       "(mean)", "ms per worker pass", ncat, cats, 3, sers, v, 0);
}

int bench_fault(const struct bench_opts *opts)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned workers = opts->threads ? opts->threads : ncpu > 0 ? (unsigned)ncpu : 1;
	size_t region = opts->region ? opts->region : opts->quick ? 128 * MIB : 1024 * MIB;
	size_t rounds = opts->rounds ? opts->rounds : opts->quick ? 2 : 5;
	size_t batch = opts->batch_pages ? opts->batch_pages : 64;
	region = region < HUGE_2M ? HUGE_2M : region - region % HUGE_2M;
	const struct cp_kernel *temporal = bench_hot_kernel(HUGE_2M / CP_PAGE_SIZE);

	struct phase ph[3] = {
		{ "orders", HUGE_2M, region, workers, 6, rounds, {
			order_variant("page-at-a-time", CP_ORDER_PAGE_AT_A_TIME, 0, NULL),
			order_variant("sequential", CP_ORDER_SEQUENTIAL, 0, NULL),
			order_variant("batched", CP_ORDER_SEQUENTIAL, batch, NULL),
			order_variant("neighbourhood-last", CP_ORDER_NEIGHBOURHOOD_LAST, 0, NULL),
			order_variant("converge", CP_ORDER_CONVERGE, 0, NULL),
			order_variant("hot-range-last", CP_ORDER_HOT_RANGE_LAST, 0, NULL) },
		  NULL, NULL, NULL },
		/* the mixed rows run under MIXED_NT_FROM_PAGES */
		{ "mixed-2M", HUGE_2M, region, workers, 2, rounds, {
			order_variant("nl mixed (hot T, far NT)", CP_ORDER_NEIGHBOURHOOD_LAST, 0, NULL),
			order_variant("nl all-temporal", CP_ORDER_NEIGHBOURHOOD_LAST, 0, temporal) },
		  NULL, NULL, NULL },
		{ "mixed-region", region, region, 1, 2, rounds, {
			order_variant("nl mixed (hot T, far NT)", CP_ORDER_NEIGHBOURHOOD_LAST, 0, NULL),
			order_variant("nl all-temporal", CP_ORDER_NEIGHBOURHOOD_LAST, 0, temporal) },
		  NULL, NULL, NULL },
	};
	static const char *const cols[] = {
		"phase", "order", "extent", "region", "fault_index", "workers", "runs",
		"stime_ms", "stime_sd", "utime_ms", "utime_sd", "total_ms"
	};
	struct bench_table *t = bench_table_new("fault: anon-w-seq emulated, per worker pass "
						"(mean +- stddev over runs)", BT_TEXT | BT_DATA,
						12, cols);
	uint64_t rng = 0x5851f42d4c957f2dull;
	int rc = 0;
	for (size_t i = 0; i < 3 && !rc; i++) {
		if (i == 1)   /* mixed: far ranges of a 2 MiB page go non-temporal */
			bench_policy_nt_from(MIXED_NT_FROM_PAGES);
		rc = run_phase(&ph[i], opts, &rng);
		if (!rc)
			report_phase(&ph[i], opts, t);
	}
	bench_policy_restore();
	if (!rc) {
		bench_table_print(t);
		printf("\n");
		bench_note("stime_ms = time in cp_clear_huge_opts(), utime_ms = the sequential write "
			   "pass after it: user-space clocks standing in for the kernel's stime/utime.");
		bench_note("memory faulted in beforehand (%s); radius 2; batched = sequential in "
			   "calls of %zu pages; kernel: the library's choice per range.",
			   opts->hugetlb ? "hugetlb" : "THP", batch);
		bench_note("mixed rows: non-temporal from %d KiB, so the hot range is temporal and "
			   "the far ranges non-temporal; all-temporal = %s everywhere.",
			   MIXED_NT_FROM_PAGES * 4, temporal->name);
		bench_note("the Linux folio_zero_user thread, cache neighbouring pages (Ankur Arora; "
			   "AMD Genoa, 384 processes, hugetlb): stime/utime discontiguous "
			   "1739.93/1016.61, contiguous 1853.70/1187.13, batched 1756.75/1133.32, "
			   "neighbourhood-last 1725.18/1123.78.");
		struct bench_table *tables[] = { t };
		rc = bench_write_outputs(opts, "fault", tables, 1);
		if (!rc && opts->plot_path)
			rc = fault_plot(opts->plot_path, t);
	}
	for (size_t i = 0; i < 3; i++)
		free_phase(&ph[i]);
	bench_table_free(t);
	return rc;
}
