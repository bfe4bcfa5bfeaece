/*
 * clearbench: the per-arch microbenchmark. One scenario per file; the table of
 * scenarios is bench/scenarios.def. Shared helpers: timing and statistics
 * (stats.c), the interleaved round runner (rounds.c), contenders and buffers
 * (contenders.c), tables and CSV/JSON output (table.c), plots (plot.c).
 */
#ifndef CLEARBENCH_H
#define CLEARBENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "clearpages.h"

#define BENCH_MAX_SIZES    64
#define BENCH_MAX_KERNELS  32
#define BENCH_MAX_MEMORY   ((size_t)2 << 30)   /* largest region a scenario may map */

struct bench_opts {
	int quick;                 /* --quick: every scenario well under a minute */
	const char *csv_path;      /* --csv FILE, or NULL */
	const char *json_path;     /* --json FILE, or NULL */
	const char *plot_path;     /* --plot FILE.png, or NULL */
	size_t nkernels;           /* kernels to measure (--kernel, else all usable) */
	const struct cp_kernel *kernels[BENCH_MAX_KERNELS];
	int kernels_given;         /* --kernel was given */
	unsigned threads;          /* --threads, 0 = one per CPU */
	size_t nsizes;             /* --sizes, 0 = the scenario's default */
	size_t sizes[BENCH_MAX_SIZES];
	unsigned rounds;           /* --rounds, 0 = scaled by extent */
	size_t region;             /* --region bytes, 0 = scenario default */
	size_t batch_pages;        /* --batch pages (fault), 0 = default */
	int random_fault;          /* --random-fault */
	int hugetlb;               /* --hugetlb */
	int emulated;              /* figures come from an emulator: meaningless */
	const char *out_path;      /* tune --out FILE, or NULL */
	int force;                 /* tune --force: write what verify refused */
	int install;               /* tune --install: the system profile */
};

/* Scenarios: int bench_<name>(const struct bench_opts *); 0 or an exit status. */
#define SCENARIO(name, fn, help) int fn(const struct bench_opts *opts);
#include "scenarios.def"
#undef SCENARIO

/* ---- stats.c: clocks, statistics, random numbers ---- */
double bench_now(void);                             /* seconds, monotonic */
double bench_median(const double *v, size_t n);     /* v is not modified */
double bench_percentile(const double *v, size_t n, double p);  /* p in [0, 100] */
double bench_min(const double *v, size_t n);
double bench_max(const double *v, size_t n);
void bench_mean_stddev(const double *v, size_t n, double *mean, double *stddev);
uint64_t bench_random(uint64_t *state);             /* xorshift64*, state != 0 */
void bench_shuffle(size_t *idx, size_t n, uint64_t *state);
double bench_gbs(size_t bytes, double seconds);     /* decimal GB/s, as the seeds */
/* "4K", "2M", "1G", or bytes when not a whole unit. */
const char *bench_size_str(size_t bytes, char *buf, size_t len);
/* Progress line on stderr, shown once a run has lasted a few seconds. */
void bench_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- contenders.c: what gets measured, on what memory ---- */
struct bench_contender {
	char name[24];
	/* clear [buf, buf + bytes); bytes is a multiple of CP_PAGE_SIZE */
	void (*clear)(const struct bench_contender *c, void *buf, size_t bytes);
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
/* memset(0), which the compiler may not elide. */
void bench_memset_zero(void *buf, size_t bytes);
/* Anonymous mapping of `bytes`, 2 MiB aligned, THP advised, faulted in so the
 * kernel's own zeroing stays out of the figures. NULL after a message. */
void *bench_map(size_t bytes);
void bench_unmap(void *buf, size_t bytes);

/* ---- rounds.c: interleaved, shuffled, warmed-up rounds ---- */
struct bench_rounds {
	size_t rounds;             /* timed samples per contender */
	size_t warmup;             /* untimed passes before each sample */
	size_t reps;               /* passes per sample (short extents) */
	size_t span;               /* > bytes: passes walk [buf, buf + span) in slots of bytes */
};
/* Rounds for one extent: many at 4 KiB, few at 1 GiB; opts->rounds wins. */
struct bench_rounds bench_rounds_for(const struct bench_opts *opts, size_t bytes);
/* Each round visits the contenders in a fresh random order; each visit is
 * `warmup` untimed passes, then `reps` timed passes. samples[c * rounds + r]
 * is seconds per pass. With a span, each pass clears the next slot of it. */
void bench_run_rounds(const struct bench_contender *c, size_t n, void *buf, size_t bytes,
		      const struct bench_rounds *cfg, uint64_t *rng, double *samples);
/* bench_run_rounds into a new array (the caller frees it), with a random
 * order that carries on from call to call. */
double *bench_sample(const struct bench_contender *c, size_t n, void *buf, size_t bytes,
		     const struct bench_rounds *cfg);

/* ---- perf.c: hardware counters, where perf_event_open gives them ---- */
/* An L1-dcache-loads counter for this thread, or -1 (VMs often have none). */
int bench_l1d_loads_open(void);
/* L1-dcache loads during one c->clear(buf, bytes); NAN when fd < 0. */
double bench_l1d_loads_of(int fd, const struct bench_contender *c, void *buf, size_t bytes);

/* ---- table.c: text tables, CSV, JSON ---- */
enum { BT_TEXT = 1, BT_DATA = 2 };   /* printed on stdout / written to CSV and JSON */
struct bench_cell {
	char text[40];             /* as printed */
	double value;              /* as written, when is_num */
	int is_num;
};
struct bench_table {
	char title[96];
	unsigned flags;
	size_t ncols, nrows, cap;
	size_t filled;             /* cells filled in the last row */
	char cols[24][32];
	struct bench_cell *cells;  /* nrows * ncols */
};
struct bench_table *bench_table_new(const char *title, unsigned flags, size_t ncols,
				    const char *const *cols);
/* Start a row, then fill it left to right. */
void bench_table_row(struct bench_table *t);
void bench_cell_str(struct bench_table *t, const char *s);
void bench_cell_num(struct bench_table *t, double v, const char *fmt);  /* fmt for text */
void bench_cell_na(struct bench_table *t);          /* "n/a" text, JSON null, empty CSV */
const struct bench_cell *bench_cell_at(const struct bench_table *t, size_t row, size_t col);
void bench_table_print(const struct bench_table *t);
void bench_table_free(struct bench_table *t);
/* Lines printed under the tables and stored in the JSON "notes". */
void bench_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Write the BT_DATA tables to --csv / --json; 0 or 1 after a message. */
int bench_write_outputs(const struct bench_opts *opts, const char *scenario,
			struct bench_table *const *tables, size_t ntables);

/* ---- plot.c: gnuplot (pngcairo) ---- */
/* GB/s against extent on a log axis into opts->plot_path, one line per
 * series: the rows of t with x in column xcol, the series name in scol and y
 * in ycol. 0 or 1. */
int bench_plot(const struct bench_opts *opts, const char *title, const char *xlabel,
	       const struct bench_table *t, size_t xcol, size_t scol, size_t ycol);

/* For scenarios without a plot: with --plot, one line on stderr and 2; else 0. */
int bench_no_plot(const struct bench_opts *opts, const char *scenario);

/* ---- clearbench.c: the header ---- */
void bench_header(const struct bench_opts *opts, const char *scenario);
/* The header as a JSON object (for table.c). */
void bench_header_json(FILE *f);
/* A JSON string literal (table.c). */
void bench_json_str(FILE *f, const char *s);

#endif
