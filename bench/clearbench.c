/* SPDX-License-Identifier: MIT */
/*
 * clearbench [SCENARIO] [options]: main and the options. Scenarios live in
 * their own files and are listed in scenarios.def; each uses only some of
 * the options (scenario_uses below), and any other is refused.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "args.h"
#include "contenders.h"
#include "header.h"
#include "introspect.h"
#include "opts.h"
#include "populate.h"
#include "scenarios.h"
#include "stats.h"
#include "table.h"
#include "targets.h"
#include "tune.h"

static const struct scenario {
	const char *name;
	int (*run)(const struct bench_opts *);
	const char *help;
} scenarios[] = {
#define SCENARIO(name, fn, help) { #name, fn, help },
#include "scenarios.def"
#undef SCENARIO
};
#define NSCENARIOS (sizeof(scenarios) / sizeof(scenarios[0]))

#define BO_OUTPUTS (BO_QUICK | BO_CSV | BO_JSON)
/* The options each scenario reads; a scenario missing here (a new one) takes
 * every measuring option. */
static const struct { const char *name; unsigned uses; } scenario_uses[] = {
	{ "sweep",    BO_OUTPUTS | BO_PLOT | BO_KERNEL | BO_SIZES | BO_ROUNDS | BO_TARGET |
		      BO_POOL | BO_SAMPLES },
	{ "batch",    BO_OUTPUTS | BO_PLOT | BO_KERNEL | BO_REGION | BO_ROUNDS },
	{ "walk",     BO_OUTPUTS | BO_PLOT | BO_KERNEL | BO_REGION | BO_ROUNDS },
	{ "latency",  BO_OUTPUTS | BO_PLOT | BO_KERNEL | BO_REGION | BO_ROUNDS },
	{ "fault",    BO_OUTPUTS | BO_PLOT | BO_THREADS | BO_REGION | BO_ROUNDS | BO_BATCH |
		      BO_RANDOM | BO_HUGETLB },
	{ "tune",     BO_OUTPUTS | BO_KERNEL | BO_SIZES | BO_ROUNDS | BO_OUT | BO_FORCE |
		      BO_INSTALL | BO_TARGET | BO_POOL },
	{ "parallel", BO_OUTPUTS | BO_PLOT | BO_THREADS | BO_SIZES | BO_ROUNDS },
	{ "zero",     BO_OUTPUTS | BO_PLOT | BO_SIZES | BO_ROUNDS },
	{ "copy",     BO_OUTPUTS | BO_PLOT | BO_SIZES | BO_ROUNDS | BO_TARGET | BO_POOL },
	{ "calloc",   BO_OUTPUTS | BO_SIZES | BO_ROUNDS | BO_LOOP },
	{ "populate", BO_OUTPUTS | BO_PLOT | BO_THREADS | BO_SIZES | BO_ROUNDS | BO_TARGET |
		      BO_MAPPING },
	/* report passes the measuring options on to the scenarios that take them */
	{ "report",   BO_QUICK | BO_OUT | BO_TUNE | BO_KERNEL | BO_SIZES | BO_REGION | BO_ROUNDS |
		      BO_THREADS | BO_TARGET | BO_POOL },
	{ "compare",  BO_PLOT },
};

/* Bit i of BO_* is options[i]; --version and --help come after them. */
static const struct { const char *name, *arg, *help; } options[] = {
	{ "--quick", "", "short run (every scenario well under a minute)" },
	{ "--csv", "FILE", "write the results as CSV: FILE.csv, then one FILE-NAME.csv per further "
	  "table (one table per file); every row, where the terminal shows the summary" },
	{ "--json", "FILE", "write the results, the notes and the host as JSON" },
	{ "--plot", "FILE.png", "the scenario's plot (gnuplot, pngcairo)" },
	{ "--kernel", "a,b", "measure these kernels only (default: every usable one)" },
	{ "--threads", "N", "workers for fault, most threads for parallel (default: the CPUs); "
	  "populate: a list, 1,2,4" },
	{ "--sizes", "4k,2M,1G", "extents (multiples of 4 KiB, at most 2G; populate: 64G)" },
	{ "--rounds", "N", "timed rounds per contender (default: scaled by extent)" },
	{ "--region", "SIZE", "the region batch, walk, latency and fault clear" },
	{ "--batch", "N", "pages per call for fault's batched order (default 64)" },
	{ "--random-fault", "", "fault: a random fault index instead of 0" },
	{ "--hugetlb", "", "fault: MAP_HUGETLB instead of THP (needs vm.nr_hugepages)" },
	{ "--out", "DIR|FILE", "report: the folder for index.html, plots, CSV and JSON; tune: save "
	  "the profile there (default: print it only)" },
	{ "--tune", "", "report: run tune too" },
	{ "--force", "", "tune: save it even when verify does not pass" },
	{ "--install", "", "tune: install it as the system profile (root, verify passed)" },
	{ "--target", "hot,cold,use", "the kinds of memory cleared or copied onto (default all "
	  "three): hot = one buffer again and again (cached), cold = each clear on another slot "
	  "of a pool not in the cache, use = cold, then one write per 64-byte line inside the "
	  "timing (copy: one read per line of the destination); tune: the kinds it measures "
	  "besides hot (use: the uncached bands; cold: the residency threshold); populate: "
	  "fresh,half,full" },
	{ "--pool", "SIZE", "the pool of cold and use (default 4G, less where memory is short)" },
	{ "--loop", "", "calloc: only the calloc + free loop of mimalloc #1104, blocks reused from "
	  "an arena (at --sizes, default 256M,1G; --quick: 256M)" },
	{ "--samples", "FILE", "sweep: every timed sample as CSV (target, extent, round, its place "
	  "in the round's order, the contender before it, seconds, GB/s)" },
	{ "--mapping", "4k,thp", "populate: 4 KiB pages, transparent huge pages (default both)" },
	{ "--version", "", "the clearpages version clearbench is built with" },
	{ "--help", "", "this text; after a scenario, that scenario's own" },
};
#define NOPTIONS (sizeof(options) / sizeof(options[0]) - 2)

static unsigned uses_of(const char *scenario)
{
	for (size_t i = 0; i < sizeof(scenario_uses) / sizeof(scenario_uses[0]); i++)
		if (!strcmp(scenario_uses[i].name, scenario))
			return scenario_uses[i].uses;
	return ~(unsigned)(BO_OUT | BO_TUNE | BO_FORCE | BO_INSTALL | BO_TARGET | BO_POOL | BO_LOOP |
			   BO_SAMPLES | BO_MAPPING);
}

/* The options of `uses` (and --version, --help), one paragraph each. */
static void list_options(FILE *f, unsigned uses)
{
	for (size_t i = 0; i < NOPTIONS + 2; i++) {
		char name[40], lead[48];
		if (i < NOPTIONS && !(uses & (1u << i)))
			continue;
		snprintf(name, sizeof(name), "%s %s", options[i].name, options[i].arg);
		snprintf(lead, sizeof(lead), "  %-18s ", name);
		if (strlen(lead) > 21) {   /* a long name on a line of its own */
			fprintf(f, "  %s\n", name);
			snprintf(lead, sizeof(lead), "%21s", "");
		}
		bench_print_wrapped(f, lead, 21, options[i].help);
	}
}

static const char about[] =
	"Figures are medians over rounds that visit the contenders in a new random order each "
	"time, each warmed up first; GB/s is 10^9 bytes per second. The terminal gets the "
	"summary; --csv and --json every row.";

/* `clearbench --help`: the scenarios and every option. */
static void usage(FILE *f)
{
	fprintf(f,
"usage: clearbench [SCENARIO] [options]\n"
"       clearbench report --out DIR [--quick] [--tune]\n"
"       clearbench compare A.json B.json [--plot FILE.png]\n"
"       clearbench SCENARIO --help    that scenario's own help\n"
"Measures the clearpages kernels, the dispatcher and the clearing orders here.\n\n"
"scenarios (default %s):\n", scenarios[0].name);
	for (size_t i = 0; i < NSCENARIOS; i++) {
		char lead[16];
		unsigned uses = uses_of(scenarios[i].name);
		snprintf(lead, sizeof(lead), "  %-9s ", scenarios[i].name);
		bench_print_wrapped(f, lead, 12, scenarios[i].help);
		fprintf(f, "            options:");   /* on one line: the smoke test reads it */
		for (size_t o = 0; o < NOPTIONS; o++)
			if (uses & (1u << o))
				fprintf(f, " %s", options[o].name);
		fputc('\n', f);
	}
	fprintf(f, "\noptions (each scenario takes those listed under it; any other is an error):\n");
	list_options(f, ~0u);
	fputc('\n', f);
	bench_print_wrapped(f, "", 0, about);
}

/* `clearbench SCENARIO --help`: what it measures and the options it takes. */
static void scenario_usage(FILE *f, const struct scenario *sc)
{
	if (!strcmp(sc->name, "populate")) {
		bench_populate_usage(f);
		return;
	}
	fprintf(f, "usage: clearbench %s%s\n", sc->name, !strcmp(sc->name, "compare") ?
		" A.json B.json [--plot FILE.png]" : !strcmp(sc->name, "report") ?
		" --out DIR [options]" : " [options]");
	bench_print_wrapped(f, "", 0, sc->help);
	fprintf(f, "\noptions:\n");
	list_options(f, uses_of(sc->name));
	fputc('\n', f);
	bench_print_wrapped(f, "", 0, about);
	fprintf(f, "More: clearbench(1), and clearbench --help for every scenario.\n");
}

static int parse_args(int argc, char **argv, struct bench_opts *o, const struct scenario **sc)
{
	/* O_QUICK + i is option_names[i] and BO_* bit i */
	enum { O_QUICK = 256, O_CSV, O_JSON, O_PLOT, O_KERNEL, O_THREADS, O_SIZES, O_ROUNDS,
	       O_REGION, O_BATCH, O_RANDOM, O_HUGETLB, O_OUT, O_TUNE, O_FORCE, O_INSTALL, O_TARGET,
	       O_POOL, O_LOOP, O_SAMPLES, O_MAPPING, O_HELP, O_VERSION };
	static const struct option longopts[] = {
		{ "quick", no_argument, 0, O_QUICK },     { "csv", required_argument, 0, O_CSV },
		{ "json", required_argument, 0, O_JSON }, { "plot", required_argument, 0, O_PLOT },
		{ "kernel", required_argument, 0, O_KERNEL },
		{ "threads", required_argument, 0, O_THREADS },
		{ "sizes", required_argument, 0, O_SIZES },
		{ "rounds", required_argument, 0, O_ROUNDS },
		{ "region", required_argument, 0, O_REGION },
		{ "batch", required_argument, 0, O_BATCH },
		{ "random-fault", no_argument, 0, O_RANDOM },
		{ "hugetlb", no_argument, 0, O_HUGETLB }, { "help", no_argument, 0, O_HELP },
		{ "out", required_argument, 0, O_OUT }, { "tune", no_argument, 0, O_TUNE },
		{ "version", no_argument, 0, O_VERSION }, { "force", no_argument, 0, O_FORCE },
		{ "install", no_argument, 0, O_INSTALL },
		{ "target", required_argument, 0, O_TARGET },
		{ "pool", required_argument, 0, O_POOL },
		{ "loop", no_argument, 0, O_LOOP },
		{ "samples", required_argument, 0, O_SAMPLES },
		{ "mapping", required_argument, 0, O_MAPPING },
		{ 0, 0, 0, 0 }
	};
	unsigned long v;
	static char threads_copy[512];
	const char *target_arg = NULL, *mapping_arg = NULL, *threads_arg = "";
	int c, rc = 0, help = 0;
	opterr = 1;
	while (!rc && (c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c >= O_QUICK && c < O_QUICK + (int)NOPTIONS)
			o->given |= 1u << (c - O_QUICK);
		switch (c) {
		case O_QUICK: o->quick = 1; break;
		case O_CSV: o->csv_path = optarg; break;
		case O_JSON: o->json_path = optarg; break;
		case O_PLOT:
			o->plot_path = optarg;
			if (strlen(optarg) < 5 || strcmp(optarg + strlen(optarg) - 4, ".png"))
				rc = bench_arg_bad("--plot", optarg, "want a file name ending in .png");
			break;
		case O_OUT: o->out_path = optarg; break;
		case O_TUNE: o->tune = 1; break;
		case O_FORCE: o->force = 1; break;
		case O_INSTALL: o->install = 1; break;
		case O_KERNEL: rc = bench_arg_kernels(optarg, o); break;
		case O_SIZES: rc = bench_arg_sizes(optarg, o); break;
		case O_REGION:
			rc = bench_arg_extent("--region", optarg, BENCH_MAX_MEMORY, &o->region);
			break;
		case O_TARGET: target_arg = optarg; break;
		case O_MAPPING: mapping_arg = optarg; break;
		case O_POOL: rc = bench_arg_pool(optarg, o); break;
		case O_LOOP: o->loop_only = 1; break;
		case O_SAMPLES: o->samples_path = optarg; break;
		case O_RANDOM: o->random_fault = 1; break;
		case O_HUGETLB: o->hugetlb = 1; break;
		case O_THREADS:   /* the list is cut up in place: its whole for messages */
			snprintf(threads_copy, sizeof(threads_copy), "%s", optarg);
			threads_arg = threads_copy;
			rc = bench_arg_threads(optarg, o);
			break;
		case O_ROUNDS:
			if (!(rc = bench_arg_count("--rounds", optarg, 100000, &v)))
				o->rounds = (unsigned)v;
			break;
		case O_BATCH:
			if (!(rc = bench_arg_count("--batch", optarg, 1 << 18, &v)))
				o->batch_pages = v;
			break;
		case O_HELP: help = 1; break;   /* the scenario's own after its name */
		case O_VERSION: printf("clearbench (clearpages) %s\n", cp_version()); exit(0);
		default: return 2;   /* getopt printed the one line */
		}
	}
	if (rc)
		return rc;
	*sc = &scenarios[0];
	int named = optind < argc;
	if (named) {
		size_t i = 0;
		while (i < NSCENARIOS && strcmp(scenarios[i].name, argv[optind]))
			i++;
		if (i == NSCENARIOS)
			return bench_arg_bad("scenario", argv[optind], "unknown (see --help)");
		*sc = &scenarios[i];
		optind++;
	}
	if (help) {
		if (named)
			scenario_usage(stdout, *sc);
		else
			usage(stdout);
		exit(0);
	}
	/* compare takes two files; every other scenario none */
	size_t want = !strcmp((*sc)->name, "compare") ? 2 : 0;
	for (; optind < argc; optind++) {
		if (o->nargs == want)
			return bench_arg_bad("argument", argv[optind], want ? "unexpected (compare "
					     "takes two JSON files)" : "unexpected (one scenario at a time)");
		o->args[o->nargs++] = argv[optind];
	}
	if (o->nargs < want)
		return bench_arg_bad((*sc)->name, o->nargs ? o->args[0] : "",
				     "want two JSON files A and B");
	unsigned extra = o->given & ~uses_of((*sc)->name);
	for (size_t i = 0; i < NOPTIONS; i++)
		if (extra & (1u << i))
			return bench_arg_bad(options[i].name, (*sc)->name, "not an option of this "
					     "scenario (see --help for the ones it takes)");
	if ((rc = bench_arg_check_scenario((*sc)->name, threads_arg, o)))
		return rc;
	int populate = !strcmp((*sc)->name, "populate");
	if (target_arg && (rc = bench_arg_targets(target_arg, populate, o)))
		return rc;
	if (mapping_arg && (rc = bench_arg_mappings(mapping_arg, o)))
		return rc;
	if (!strcmp((*sc)->name, "report") && !o->out_path)
		return bench_arg_bad("report", "", "want --out DIR");
	o->out_is_folder = !strcmp((*sc)->name, "report");
	if ((uses_of((*sc)->name) & BO_POOL) && bench_check_pool(o, o->targets ? o->targets : BK_ALL))
		return 2;
	return bench_check_outputs(o);
}

int main(int argc, char **argv)
{
	static struct bench_opts opts;
	const struct scenario *sc;
	/* the second-libc memset helper: clearbench itself, run by sweep under
	 * the other libc's loader (contenders.c); not a user command */
	if (argc == 2 && !strcmp(argv[1], "--libc-helper"))
		return bench_libc_helper_main();
	opts.argv0 = argv[0];
	int rc = parse_args(argc, argv, &opts, &sc);
	if (rc)
		return rc;
	if (!opts.kernels_given) {
		const struct cp_kernel *const *list;
		size_t n = cp_kernels(&list);
		for (size_t i = 0; i < n && i < BENCH_MAX_KERNELS; i++)
			opts.kernels[opts.nkernels++] = list[i];
	}
	opts.emulated = bench_emulated();
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* report prints one header per scenario into its files, compare the two hosts' */
	if (strcmp(sc->name, "report") && strcmp(sc->name, "compare"))
		bench_header(&opts, sc->name);
	/* every scenario times the library as it runs after its start-up */
	if (strcmp(sc->name, "compare"))
		bench_counter_rate();
	return sc->run(&opts);
}
