/* SPDX-License-Identifier: MIT */
/* The command line as the scenarios see it (clearbench.c parses it): the
 * limits, the option bits each scenario declares, the kinds of target. */
#ifndef CLEARBENCH_OPTS_H
#define CLEARBENCH_OPTS_H

#include <stddef.h>
#include "clearpages.h"

#define BENCH_MAX_SIZES    64
#define BENCH_MAX_KERNELS  32
#define BENCH_MAX_MEMORY   ((size_t)2 << 30)   /* largest region a scenario may map */
/* populate measures what VMMs and GPU hosts prefault, so its extents go further
 * (each try maps one extent; sizes above half of MemAvailable are skipped). */
#define BENCH_MAX_POPULATE ((size_t)64 << 30)
#define BENCH_MAX_THREAD_COUNTS 16

/* Options, as bits: each scenario says which it uses (clearbench.c); any other
 * given option is an error. */
enum {
	BO_QUICK = 1u << 0, BO_CSV = 1u << 1, BO_JSON = 1u << 2, BO_PLOT = 1u << 3,
	BO_KERNEL = 1u << 4, BO_THREADS = 1u << 5, BO_SIZES = 1u << 6, BO_ROUNDS = 1u << 7,
	BO_REGION = 1u << 8, BO_BATCH = 1u << 9, BO_RANDOM = 1u << 10, BO_HUGETLB = 1u << 11,
	BO_OUT = 1u << 12, BO_TUNE = 1u << 13, BO_FORCE = 1u << 14, BO_INSTALL = 1u << 15,
	BO_TARGET = 1u << 16, BO_POOL = 1u << 17, BO_LOOP = 1u << 18, BO_SAMPLES = 1u << 19,
	BO_MAPPING = 1u << 20
};

/* What a clear lands on (targets.c): the cache as a loop leaves it, memory
 * not cached, or memory not cached that the caller then writes. */
enum bench_kind { BK_HOT, BK_COLD, BK_USE, BK_NKINDS };
#define BK_ALL ((1u << BK_NKINDS) - 1)

/* populate's targets: the range as a try finds it (never touched, its first half
 * written, all written), and the mapping's page size (4 KiB pages, THP advised). */
enum bench_state { BS_FRESH, BS_HALF, BS_FULL, BS_NSTATES };
enum bench_mapping { BM_4K, BM_THP, BM_NMAPPINGS };

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
	size_t nthread_counts;     /* --threads as a list (populate takes several), 0 = default */
	unsigned thread_counts[BENCH_MAX_THREAD_COUNTS];
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
	unsigned states;           /* populate --target: 1 << BS_* (0 = all) */
	unsigned mappings;         /* populate --mapping: 1 << BM_* (0 = all) */
	size_t pool;               /* --pool bytes for cold and use targets, 0 = default */
	int loop_only;             /* --loop: calloc's loop rows alone */
	const char *samples_path;  /* sweep --samples FILE: every timed sample as CSV */
	size_t nargs;              /* compare's files */
	const char *args[2];
	const char *argv0;         /* this program, for the second-libc memset helper */
};

#endif
