/* SPDX-License-Identifier: MIT */
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

/* Options, as bits: each scenario says which it uses (clearbench.c); any other
 * given option is an error. */
enum {
	BO_QUICK = 1u << 0, BO_CSV = 1u << 1, BO_JSON = 1u << 2, BO_PLOT = 1u << 3,
	BO_KERNEL = 1u << 4, BO_THREADS = 1u << 5, BO_SIZES = 1u << 6, BO_ROUNDS = 1u << 7,
	BO_REGION = 1u << 8, BO_BATCH = 1u << 9, BO_RANDOM = 1u << 10, BO_HUGETLB = 1u << 11,
	BO_OUT = 1u << 12, BO_TUNE = 1u << 13, BO_FORCE = 1u << 14, BO_INSTALL = 1u << 15,
	BO_TARGET = 1u << 16, BO_POOL = 1u << 17, BO_LOOP = 1u << 18, BO_SAMPLES = 1u << 19
};

/* What a clear lands on (targets.c): the cache as a loop leaves it, memory
 * not cached, or memory not cached that the caller then writes. */
enum bench_kind { BK_HOT, BK_COLD, BK_USE, BK_NKINDS };
#define BK_ALL ((1u << BK_NKINDS) - 1)

struct bench_opts {
	unsigned given;            /* BO_* given on the command line */
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
	const char *out_path;      /* --out: report's folder (tune's profile file) */
	int out_is_folder;         /* the scenario takes --out as a folder (report) */
	int tune;                  /* report --tune */
	int force;                 /* tune --force: write what verify refused */
	int install;               /* tune --install: the system profile */
	unsigned targets;          /* --target: 1 << BK_* (0 = the scenario's default) */
	size_t pool;               /* --pool bytes for cold and use targets, 0 = default */
	int loop_only;             /* --loop: calloc's loop rows alone */
	const char *samples_path;  /* sweep --samples FILE: every timed sample as CSV */
	size_t nargs;              /* compare's files */
	const char *args[2];
	const char *argv0;         /* this program, for the second-libc memset helper */
};

/* Scenarios: int bench_<name>(const struct bench_opts *); 0 or an exit status. */
#define SCENARIO(name, fn, help) int fn(const struct bench_opts *opts);
#include "scenarios.def"
#undef SCENARIO

/* ---- stats.c: clocks, statistics, random numbers ---- */
double bench_now(void);                             /* seconds, monotonic */
/* This thread's CPU time, user + system (page faults included): on a shared host a preempted
 * thread does not count the time others ran. */
double bench_thread_cpu_now(void);
double bench_median(const double *v, size_t n);     /* v is not modified */
double bench_percentile(const double *v, size_t n, double p);  /* p in [0, 100] */
/* the median with a ~95 % distribution-free interval [*lo, *hi] */
double bench_median_interval(const double *v, size_t n, double *lo, double *hi);
double bench_min(const double *v, size_t n);
double bench_max(const double *v, size_t n);
void bench_mean_stddev(const double *v, size_t n, double *mean, double *stddev);
uint64_t bench_random(uint64_t *state);             /* xorshift64*, state != 0 */
void bench_shuffle(size_t *idx, size_t n, uint64_t *state);
double bench_gbs(size_t bytes, double seconds);     /* decimal GB/s, as the Linux threads */
/* "4K", "2M", "1G", or bytes when not a whole unit. */
const char *bench_size_str(size_t bytes, char *buf, size_t len);
/* Progress line on stderr, shown once a run has lasted a few seconds. */
void bench_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void bench_progress_mute(int mute);                 /* report: its own line per scenario */

/* ---- contenders.c: what gets measured, on what memory ---- */
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
int bench_libc_helper_main(void);
/* cp_clear_pages_cold(), named cold_call. */
void bench_contender_cold_call(struct bench_contender *c);
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
	enum bench_kind kind;      /* BK_HOT: buf; else each pass on a slot of pool */
	struct bench_pool *pool;
	unsigned *place;           /* NULL, or place[c * rounds + r]: c's place in round r */
};
/* Rounds for one extent: many at 4 KiB, few at 1 GiB; opts->rounds wins. */
struct bench_rounds bench_rounds_for(const struct bench_opts *opts, size_t bytes);
/* The same for a kind of target: cold and use take fewer rounds (each pass
 * lands elsewhere, so samples vary less); pool is that of cold and use. */
struct bench_rounds bench_rounds_for_kind(const struct bench_opts *opts, size_t bytes,
					  enum bench_kind kind, struct bench_pool *pool);
/* One visit: cfg->warmup * reps untimed passes, then reps timed ones; seconds
 * per pass. Hot passes walk buf's slots from *slot on. */
double bench_time_passes(const struct bench_contender *c, void *buf, size_t bytes,
			 const struct bench_rounds *cfg, size_t *slot);
/* Each round visits the contenders in a fresh random order; each visit is
 * `warmup` untimed passes, then `reps` timed passes. samples[c * rounds + r]
 * is seconds per pass (and cfg->place, where given, the order). With a span,
 * each pass clears the next slot of it. */
void bench_run_rounds(const struct bench_contender *c, size_t n, void *buf, size_t bytes,
		      const struct bench_rounds *cfg, uint64_t *rng, double *samples);
/* bench_run_rounds into a new array (the caller frees it), with a random
 * order that carries on from call to call. */
double *bench_sample(const struct bench_contender *c, size_t n, void *buf, size_t bytes,
		     const struct bench_rounds *cfg);

/* ---- targets.c: cold and use targets, a pool of memory not in the cache ---- */
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
/* use: one 8-byte store per 64-byte line, as a caller filling what it got. */
void bench_write_lines(void *buf, size_t bytes);
/* sweep.c: a --pool too small for two slots of the largest cold or use
 * extent: one line, 2 (before anything runs); else 0. */
int bench_check_pool(const struct bench_opts *opts, unsigned targets);
/* MemAvailable of /proc/meminfo in bytes, 0 when unknown. */
size_t bench_mem_available(void);
/* This process's AnonHugePages in KiB (smaps_rollup), or -1. */
long bench_thp_kib(void);

/* ---- zero.c: cp_zero on a filled extent (the zero scenario; tune's discard_from) ---- */
/* What follows the call in a try: nothing, one write per 64-byte line, the first tenth. */
enum bench_zero_use { BZ_CALL, BZ_WRITE, BZ_TENTH, BZ_NUSES };
#define BZ_NCONTENDERS 4
struct bench_zero_contender { const char *name; unsigned flags; };
/* auto (no flags), temporal (HOT), nontemporal (COLD): stores; then discard (MAY_DISCARD). */
extern const struct bench_zero_contender bench_zero_contenders[BZ_NCONTENDERS];
extern const char *const bench_zero_use_names[BZ_NUSES];   /* "call", "call+write", ... */
struct bench_zero_try {
	double seconds;
	size_t discarded;          /* bytes cp_zero_ex handed back */
	double rss_change;         /* resident bytes after the call alone minus before */
};
/* Every contender (cp_zero flags) with every use in `uses` (1 << BZ_*), `rounds`
 * rounds in a fresh random order each (rng); each try fills the extent outside
 * the timing first. ms[z * BZ_NUSES + u]: the median in ms (uses not asked for
 * are left alone); last[z]: z's last call-alone try (the last of any use when
 * the call alone is not asked for). */
void bench_zero_medians(unsigned char *buf, size_t bytes, const unsigned *flags, size_t nz,
			unsigned uses, size_t rounds, uint64_t *rng, double *ms,
			struct bench_zero_try *last);

/* ---- perf.c: hardware counters, where perf_event_open gives them ---- */
/* An L1-dcache-loads counter for this thread, or -1 (VMs often have none). */
int bench_l1d_loads_open(void);
/* L1-dcache loads during one c->clear(buf, bytes); NAN when fd < 0. */
double bench_l1d_loads_of(int fd, const struct bench_contender *c, void *buf, size_t bytes);

/* ---- table.c: text tables, CSV, JSON ---- */
enum { BT_TEXT = 1, BT_DATA = 2 };   /* printed on stdout / written to CSV and JSON */
struct bench_cell {
	char text[64];             /* as printed */
	double value;              /* as written, when is_num */
	int is_num;
};
#define BENCH_MAX_COLS 48
struct bench_table {
	char title[160];
	char csv_suffix[32];       /* second and later data tables: NAME-<suffix>.csv */
	unsigned flags;
	size_t ncols, nrows, cap;
	size_t filled;             /* cells filled in the last row */
	char cols[BENCH_MAX_COLS][32];
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
/* s between two `quote` characters, each quote inside doubled (CSV fields with
 * '"', gnuplot strings with '\''). */
void bench_put_quoted(FILE *f, const char *s, char quote);
void bench_table_free(struct bench_table *t);
struct bench_table *bench_table_clone(const struct bench_table *t);
/* The CSV file of a second or later data table is --csv's NAME-<suffix>.csv. */
void bench_table_csv_suffix(struct bench_table *t, const char *suffix);
/* Column index by name, or ncols. */
size_t bench_table_col(const struct bench_table *t, const char *name);
/* Lines printed under the tables and stored in the JSON "notes". */
void bench_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Write the BT_DATA tables to --csv / --json; 0 or 1 after a message. */
int bench_write_outputs(const struct bench_opts *opts, const char *scenario,
			struct bench_table *const *tables, size_t ntables);
/* Before the run: can every output of opts be written? 0, or 2 after one line. */
int bench_check_outputs(const struct bench_opts *opts);
/* The CSV path of the i-th data table for --csv `path` (buf of len). */
const char *bench_csv_path(const char *path, const struct bench_table *t, size_t i,
			   char *buf, size_t len);
/* report: keep a copy of every table and note bench_write_outputs sees. */
struct bench_capture {
	struct bench_table *tables[16];
	size_t ntables;
	char *notes[64];
	size_t nnotes;
};
void bench_capture_start(struct bench_capture *cap);   /* also forgets earlier notes */
void bench_capture_stop(void);
void bench_capture_free(struct bench_capture *cap);

/* ---- plot.c: gnuplot (pngcairo) ---- */
#define BENCH_PLOT_MAX_SERIES 48
struct bench_series {
	char name[48];
	int bold;                  /* a line the reader looks for: thick */
	int dashed;                /* non-temporal kernels, published figures */
	size_t n;
	double x[BENCH_MAX_SIZES], y[BENCH_MAX_SIZES];
	double lo[BENCH_MAX_SIZES], hi[BENCH_MAX_SIZES];  /* min-max bars when has_bars */
	int has_bars;
};
struct bench_plot_spec {
	const char *path, *title, *xlabel, *ylabel;
	int x_bytes;               /* x is bytes: log2 axis, 4K..1G ticks, one at the last x */
	int logx, logy;
	double hline;              /* a reference line at this y (speed-up 1.0); 0 = none */
	size_t nmarks;             /* vertical marks (where auto switches kernels) */
	double mark_x[16];
	char mark_label[16][48];
	size_t nseries;
	struct bench_series s[BENCH_PLOT_MAX_SERIES];
};
void bench_plot_spec_init(struct bench_plot_spec *p, const char *path, const char *title,
			  const char *xlabel, const char *ylabel);
/* Lines (linespoints, min-max bars where given); one x value: a bar chart. 0 or 1. */
int bench_plot_lines(const struct bench_plot_spec *p);
/* Clustered bars: ncat categories (x), nser series; v[ser * ncat + cat], NAN = none. */
int bench_plot_bars(const char *path, const char *title, const char *ylabel,
		    size_t ncat, const char *const *cats, size_t nser, const char *const *sers,
		    const double *v, double hline);
/* The title suffix naming the machine (a plot travels without its header). */
const char *bench_plot_host(void);
/* A second title line instead of this host's name (compare: the two hosts). */
void bench_plot_subtitle(const char *s);
/* Series from a table: rows with the series name in scol, x in xcol, y in ycol,
 * min/max in locol/hicol (or (size_t)-1). Returns the series index or -1. */
int bench_series_add(struct bench_plot_spec *p, const struct bench_table *t, size_t scol,
		     const char *name, size_t xcol, size_t ycol, size_t locol, size_t hicol);

/* For scenarios without a plot: with --plot, one line on stderr and 2; else 0. */
int bench_no_plot(const struct bench_opts *opts, const char *scenario);

/* ---- header.c: the header naming the host ---- */
void bench_header(const struct bench_opts *opts, const char *scenario);
/* The header as a JSON object (for table.c). */
void bench_header_json(FILE *f, const struct bench_opts *opts);
/* Text as HTML (&, <, > escaped). */
void bench_html_text(FILE *f, const char *s);
extern const char bench_emulated_warning[];
/* The header as HTML rows (report.c). */
void bench_header_html(FILE *f, const struct bench_opts *opts);
/* Where auto (cp_kernel_for) changes kernel, from one page to 1 GiB: band i
 * starts at from_pages[i] and uses kernel[i]. Returns the band count. */
#define BENCH_MAX_BANDS 16
size_t bench_auto_bands(size_t *from_pages, const struct cp_kernel **kernel, size_t max);
/* The same for any per-extent choice (bench_uncached_kernel: the uncached bands). */
size_t bench_bands_of(const struct cp_kernel *(*pick)(size_t npages), size_t *from_pages,
		      const struct cp_kernel **kernel, size_t max);
/* A JSON string literal (table.c). */
void bench_json_str(FILE *f, const char *s);
/* Size with an optional k/M/G suffix (powers of 1024); 0 or -1. */
int bench_parse_size(const char *s, size_t *out);
/* Under qemu-user the figures are the emulator's. */
int bench_emulated(void);

/* ---- published.c: the Linux threads' figures each scenario reproduces ---- */
struct bench_published {
	const char *scenario;
	const char *thread;        /* the thread's subject */
	const char *author;
	const char *host;          /* the machine it was measured on */
	const char *what;          /* the experiment */
	size_t nrows, ncols;
	const char *cols[6];
	const char *rows[8][6];    /* as published */
};
/* The published tables of a scenario, or 0. */
size_t bench_published_for(const char *scenario, const struct bench_published **out);
/* One line naming a table's source: "THREAD (AUTHOR; HOST)". */
const char *bench_published_source(const struct bench_published *p, char *buf, size_t len);

/* ---- report_html.c: the report's page ---- */
struct bench_report_part {
	const char *scenario;
	int rc;                    /* the scenario's exit status */
	double seconds;
	int has_plot;
	struct bench_capture cap;
};
/* DIR/index.html from the parts; 0 or 1. */
int bench_report_write_html(const struct bench_opts *opts, const char *dir,
			    const struct bench_report_part *parts, size_t nparts);

#endif
