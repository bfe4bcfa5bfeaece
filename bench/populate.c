/* SPDX-License-Identifier: MIT */
/*
 * populate: making memory zero AND resident, as a VMM preallocating guest RAM,
 * a GPU host pinning a transfer pool or a database sizing its buffers does.
 * The kernel zeroes a fresh private anonymous page once, at its first write
 * fault; a store loop pays that fault and then writes the page again, while
 * MADV_POPULATE_WRITE pays the fault alone but keeps what written pages hold.
 * So the answer depends on the state the range is in: fresh (never touched),
 * half (its first half written with a pattern) or full (all written), on 4 KiB
 * pages or THP. Every try maps the range anew (populate_try.c); contenders run
 * in a new random order each round; figures are medians of --rounds tries.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "map.h"
#include "opts.h"
#include "populate.h"
#include "scenarios.h"
#include "stats.h"
#include "table.h"

#define MIB ((size_t)1 << 20)
#define DEFAULT_ROUNDS 3

int bench_populate_parse(const char *list, int mappings, unsigned *mask, char *bad,
			 size_t badlen)
{
	const char *const *names = mappings ? bench_mapping_names : bench_state_names;
	unsigned n = mappings ? BM_NMAPPINGS : BS_NSTATES;
	*mask = 0;
	for (const char *p = list; p;) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		unsigned k = 0;
		while (k < n && (strlen(names[k]) != len || strncmp(p, names[k], len)))
			k++;
		if (k == n) {
			snprintf(bad, badlen, "%.*s", (int)len, p);
			return -1;
		}
		*mask |= 1u << k;
		p = e ? e + 1 : NULL;
	}
	return 0;
}

void bench_populate_usage(FILE *f)
{
	fprintf(f,
"usage: clearbench populate [--target fresh,half,full] [--mapping 4k,thp] [--sizes 64M,1G]\n"
"                           [--threads 1,2,4] [--rounds N] [--quick] [--csv FILE]\n"
"                           [--json FILE] [--plot FILE.png]\n"
"Memory made zero and resident: GB/s of each way, on memory mapped anew for every try.\n\n"
"targets, the range as each try finds it (default all three):\n"
"  fresh              never touched private anonymous memory\n"
"  half               its first half written with a pattern, the second half fresh\n"
"  full               all of it written with a pattern\n"
"mappings (default both): 4k (MADV_NOHUGEPAGE), thp (MADV_HUGEPAGE, 2 MiB aligned)\n\n"
"contenders, the first four on each --threads count (contiguous shares):\n"
"  memset             memset(0)\n"
"  store_per_page     one byte store of 0 per 4 KiB page (zero on fresh memory only)\n"
"  populate           madvise(MADV_POPULATE_WRITE) (keeps data: zero on fresh only)\n"
"  qemu               QEMU's preallocation: populate, else touch each page; at most\n"
"                     16 threads, one per 64 MiB (keeps data: zero on fresh only)\n"
"  cp_zero            cp_zero(flags 0): the library's stores, one thread\n"
"  cp_zero_res        cp_zero(CP_ZERO_RESIDENT), one thread\n"
"  cp_zero_res_par    cp_zero(CP_ZERO_RESIDENT | CP_ZERO_PARALLEL): threads of its own\n\n"
"options:\n"
"  --sizes LIST       extents, multiples of 4 KiB up to 64G (default 64M,256M,1G,4G;\n"
"                     --quick: 64M); those above half of MemAvailable are skipped\n"
"  --threads LIST     thread counts (default 1,2,4,... and the CPUs this process may\n"
"                     use; --quick: 1 and that count)\n"
"  --rounds N         tries per contender and cell, in a new random order each round\n"
"                     (default %d)\n"
"  --quick            the short run above\n"
"  --csv FILE         FILE.csv: every cell (the scaling curves); FILE-summary.csv\n"
"  --json FILE        the host, the notes and both tables\n"
"  --plot FILE.png    GB/s against threads: FILE-TARGET-MAPPING.png, FILE.png the first\n"
"Every try is verified: every page resident (mincore), and where the contender zeroes,\n"
"every page's first and last 8 bytes and one random word read 0. A failure is reported\n"
"on stderr and the exit status is 1. A library call that answers -EINVAL (a library\n"
"without CP_ZERO_RESIDENT) is shown as unavailable.\n", DEFAULT_ROUNDS);
}

/* 1, 2, 4, ... below the CPUs this process may run on, then that count. */
static size_t default_threads(const struct bench_opts *opts, unsigned *t)
{
	cpu_set_t set;
	unsigned cpus = sched_getaffinity(0, sizeof(set), &set) ? 1 : (unsigned)CPU_COUNT(&set);
	size_t n = 0;
	for (unsigned k = 1; k < cpus && n < BENCH_MAX_THREAD_COUNTS - 1; k *= 2)
		if (!opts->quick || k == 1)
			t[n++] = k;
	t[n++] = cpus;
	return n;
}

/* The sizes to measure: given or the defaults, less those memory cannot hold. */
static size_t sizes_to_measure(const struct bench_opts *opts, size_t *out)
{
	static const size_t defaults[] = { 64 * MIB, 256 * MIB, 1024 * MIB, 4096 * MIB };
	const size_t *in = opts->nsizes ? opts->sizes : defaults;
	size_t nin = opts->nsizes ? opts->nsizes : opts->quick ? 1 : 4, n = 0;
	size_t avail = bench_mem_available();
	for (size_t i = 0; i < nin; i++) {
		char s[16], a[16];
		/* a try maps one extent at a time: half of what is free leaves the rest room */
		if (avail && in[i] > avail / 2) {
			bench_note("populate: %s skipped: more than half of MemAvailable (%s)",
				   bench_size_str(in[i], s, sizeof(s)),
				   bench_size_str(avail / MIB * MIB, a, sizeof(a)));
			continue;
		}
		out[n++] = in[i];
	}
	return n;
}

/* The entries of a cell: each threaded contender on each count, then the library's. */
static void cell_entries(struct bench_pop_cell *cell, const unsigned *threads, size_t nt)
{
	cell->n = 0;
	for (unsigned c = 0; c < BP_NCONTENDERS; c++)
		for (size_t k = 0; k < (c < BP_NTHREADED ? nt : 1); k++) {
			struct bench_pop_entry *e = &cell->e[cell->n++];
			e->c = (enum bench_pop_contender)c;
			e->threads = c < BP_NTHREADED ? threads[k] : c == BP_CP_ZERO_RES_PAR ? 0 : 1;
			e->gbs = NAN;
			e->err = 0;
			e->failed = 0;
		}
}

static const char *errno_name(int err)
{
	const char *name = strerrorname_np(-err);
	return name ? name : "an error";
}

/* One try's outcome into its entry; 1 when it is a sample. */
static int take_try(const struct bench_pop_cell *cell, struct bench_pop_entry *e,
		    const struct bench_pop_try *t, size_t samples)
{
	char s[16];
	if (!t->err && !t->failure[0])
		return 1;
	if (t->err == -EINVAL && !samples && !e->failed) {   /* not there: unavailable */
		e->err = t->err;
		return 0;
	}
	e->err = t->err;
	e->failed = 1;
	fprintf(stderr, "clearbench: populate: FAILED: %s on %u thread(s), %s %s %s: %s%s\n",
		bench_pop_names[e->c], t->threads, bench_state_names[cell->s],
		bench_mapping_names[cell->m], bench_size_str(cell->bytes, s, sizeof(s)),
		t->failure[0] ? t->failure : "returned -", t->failure[0] ? "" : errno_name(t->err));
	return 0;
}

/* Every entry of the cell, `rounds` rounds in a new random order each. */
static void measure_cell(struct bench_pop_cell *cell, size_t rounds, uint64_t *rng,
			 size_t cell_no, size_t ncells)
{
	size_t order[BENCH_POP_MAX_ENTRIES], ns[BENCH_POP_MAX_ENTRIES] = { 0 };
	double *sec = calloc(cell->n * rounds, sizeof(*sec));
	char s[16];
	if (!sec)
		abort();
	static double said;   /* a line every few seconds, not one per round of small cells */
	for (size_t r = 0; r < rounds; r++) {
		if (bench_now() - said >= 3.0) {
			said = bench_now();
			bench_progress("populate: %s %s %s, round %zu of %zu (cell %zu of %zu)",
				       bench_state_names[cell->s], bench_mapping_names[cell->m],
				       bench_size_str(cell->bytes, s, sizeof(s)), r + 1, rounds,
				       cell_no, ncells);
		}
		for (size_t i = 0; i < cell->n; i++)
			order[i] = i;
		bench_shuffle(order, cell->n, rng);
		for (size_t i = 0; i < cell->n; i++) {
			struct bench_pop_entry *e = &cell->e[order[i]];
			struct bench_pop_try t;
			if (e->err == -EINVAL && !e->failed)
				continue;   /* unavailable: asked once */
			bench_pop_try(e->c, e->threads, cell->bytes, cell->s, cell->m, rng, &t);
			if (take_try(cell, e, &t, ns[order[i]]))
				sec[order[i] * rounds + ns[order[i]]++] = t.seconds;
		}
	}
	for (size_t i = 0; i < cell->n; i++)
		if (ns[i])
			cell->e[i].gbs = bench_gbs(cell->bytes, bench_median(&sec[i * rounds], ns[i]));
	free(sec);
}

int bench_populate(const struct bench_opts *opts)
{
	unsigned threads[BENCH_MAX_THREAD_COUNTS];
	size_t sizes[BENCH_MAX_SIZES];
	size_t nt = opts->nthread_counts, nsizes = sizes_to_measure(opts, sizes);
	size_t rounds = opts->rounds ? opts->rounds : DEFAULT_ROUNDS;
	unsigned states = opts->states ? opts->states : (1u << BS_NSTATES) - 1;
	unsigned mappings = opts->mappings ? opts->mappings : (1u << BM_NMAPPINGS) - 1;
	if (nt)
		memcpy(threads, opts->thread_counts, nt * sizeof(*threads));
	else
		nt = default_threads(opts, threads);
	size_t ncells = 0;
	for (unsigned s = 0; s < BS_NSTATES; s++)
		for (unsigned m = 0; m < BM_NMAPPINGS; m++)
			ncells += (states >> s & 1) && (mappings >> m & 1) ? nsizes : 0;
	if (!ncells) {
		fprintf(stderr, "clearbench: populate: no size fits in memory here\n");
		return 1;
	}
	struct bench_pop_cell *cells = calloc(ncells, sizeof(*cells));
	if (!cells)
		abort();
	uint64_t rng = 0x9e3779b97f4a7c15ull;
	size_t n = 0;
	for (unsigned s = 0; s < BS_NSTATES; s++)
		for (unsigned m = 0; m < BM_NMAPPINGS; m++)
			for (size_t i = 0; i < nsizes && (states >> s & 1) && (mappings >> m & 1);
			     i++) {
				struct bench_pop_cell *cell = &cells[n++];
				cell->s = (enum bench_state)s;
				cell->m = (enum bench_mapping)m;
				cell->bytes = sizes[i];
				cell_entries(cell, threads, nt);
				measure_cell(cell, rounds, &rng, n, ncells);
			}
	int rc = bench_pop_output(opts, cells, ncells, rounds), failed = 0;
	for (size_t i = 0; i < ncells; i++)
		for (size_t k = 0; k < cells[i].n; k++)
			failed |= cells[i].e[k].failed;
	if (failed)
		fprintf(stderr, "clearbench: populate: FAILED: a contender did not make the memory "
			"what it promises (above)\n");
	free(cells);
	return rc || failed;
}
