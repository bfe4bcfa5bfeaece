/*
 * clearbench [SCENARIO] [options]: main, options, the header naming the host.
 * Scenarios live in their own files and are listed in scenarios.def.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "clearbench.h"
#include "testhooks.h"

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

static void usage(FILE *f)
{
	fprintf(f,
"usage: clearbench [SCENARIO] [options]\n"
"Measures the clearpages kernels, the dispatcher and the clearing orders here.\n\n"
"scenarios (default %s):\n", scenarios[0].name);
	for (size_t i = 0; i < NSCENARIOS; i++)
		fprintf(f, "  %-9s %s\n", scenarios[i].name, scenarios[i].help);
	fprintf(f,
"\noptions:\n"
"  --quick            short run (every scenario well under a minute)\n"
"  --csv FILE         write the results as CSV\n"
"  --json FILE        write the results and the host as JSON\n"
"  --plot FILE.png    GB/s against extent (gnuplot, pngcairo)\n"
"  --kernel a,b       measure these kernels only (default: every usable one)\n"
"  --threads N        workers for fault (default: one per CPU)\n"
"  --sizes 4k,2M,1G   extents for sweep (multiples of 4 KiB, at most 2G)\n"
"  --rounds N         timed rounds per contender (default: scaled by extent)\n"
"  --region SIZE      region for batch and fault's region rows (default 1G)\n"
"  --batch N          pages per call for fault's batched order (default 64)\n"
"  --random-fault     fault: a random fault index instead of 0\n"
"  --hugetlb          fault: MAP_HUGETLB instead of THP (needs vm.nr_hugepages)\n"
"  --out FILE         tune: save the profile there (default: print it only)\n"
"  --force            tune: save it even when verify does not pass\n"
"  --install          tune: install it as the system profile (root, verify passed)\n"
"  --help             this text\n"
"Figures are medians over rounds that visit the contenders in a new random\n"
"order each time, each warmed up first; GB/s is 10^9 bytes per second.\n");
}

static int bad(const char *opt, const char *val, const char *why)
{
	fprintf(stderr, "clearbench: %s '%s': %s\n", opt, val, why);
	return 2;
}

static int parse_count(const char *opt, const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (!*s || *s == '-' || *end || errno || v == 0 || v > max) {
		char why[64];
		snprintf(why, sizeof(why), "want a whole number from 1 to %lu", max);
		return bad(opt, s, why);
	}
	*out = v;
	return 0;
}

/* A size of whole pages, at most BENCH_MAX_MEMORY. */
static int parse_extent(const char *opt, const char *s, size_t *out)
{
	if (cp__parse_size(s, out) || *out == 0)
		return bad(opt, s, "want a size such as 4k, 2M or 1G");
	if (*out % CP_PAGE_SIZE)
		return bad(opt, s, "not a multiple of 4 KiB");
	if (*out > BENCH_MAX_MEMORY)
		return bad(opt, s, "larger than the 2 GiB this benchmark maps at most");
	return 0;
}

static int parse_sizes(char *list, struct bench_opts *o)
{
	for (char *save, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (o->nsizes == BENCH_MAX_SIZES)
			return bad("--sizes", tok, "too many sizes");
		if (parse_extent("--sizes", tok, &o->sizes[o->nsizes]))
			return 2;
		o->nsizes++;
	}
	return o->nsizes ? 0 : bad("--sizes", "", "empty list");
}

static int parse_kernels(char *list, struct bench_opts *o)
{
	for (char *save, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct cp_kernel *k = cp_kernel_find(tok);
		if (!k)
			return bad("--kernel", tok, "not a usable kernel here (see the header's list)");
		if (o->nkernels == BENCH_MAX_KERNELS)
			return bad("--kernel", tok, "too many kernels");
		o->kernels[o->nkernels++] = k;
	}
	o->kernels_given = 1;
	return o->nkernels ? 0 : bad("--kernel", "", "empty list");
}

/* Under qemu-user the figures are the emulator's, not the CPU's. */
static int detect_emulation(void)
{
#if defined(__aarch64__)
#ifdef BENCH_CROSS_BUILT
	return 1;
#else
	/* qemu-user shows the host's /proc/cpuinfo: x86 fields on an arm64 binary */
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];
	int x86 = 0;
	while (f && !x86 && fgets(line, sizeof(line), f))
		x86 = !strncmp(line, "vendor_id", 9);
	if (f)
		fclose(f);
	return x86;
#endif
#else
	return 0;
#endif
}

static int parse_args(int argc, char **argv, struct bench_opts *o, const struct scenario **sc)
{
	enum { O_QUICK = 256, O_CSV, O_JSON, O_PLOT, O_KERNEL, O_THREADS, O_SIZES, O_ROUNDS,
	       O_REGION, O_BATCH, O_RANDOM, O_HUGETLB, O_OUT, O_FORCE, O_INSTALL, O_HELP };
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
		{ "out", required_argument, 0, O_OUT }, { "force", no_argument, 0, O_FORCE },
		{ "install", no_argument, 0, O_INSTALL },
		{ 0, 0, 0, 0 }
	};
	unsigned long v;
	int c, rc = 0;
	opterr = 1;
	while (!rc && (c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case O_QUICK: o->quick = 1; break;
		case O_CSV: o->csv_path = optarg; break;
		case O_JSON: o->json_path = optarg; break;
		case O_PLOT: o->plot_path = optarg; break;
		case O_KERNEL: rc = parse_kernels(optarg, o); break;
		case O_SIZES: rc = parse_sizes(optarg, o); break;
		case O_REGION: rc = parse_extent("--region", optarg, &o->region); break;
		case O_RANDOM: o->random_fault = 1; break;
		case O_HUGETLB: o->hugetlb = 1; break;
		case O_OUT: o->out_path = optarg; break;
		case O_FORCE: o->force = 1; break;
		case O_INSTALL: o->install = 1; break;
		case O_THREADS:
			if (!(rc = parse_count("--threads", optarg, 1024, &v)))
				o->threads = (unsigned)v;
			break;
		case O_ROUNDS:
			if (!(rc = parse_count("--rounds", optarg, 100000, &v)))
				o->rounds = (unsigned)v;
			break;
		case O_BATCH:
			if (!(rc = parse_count("--batch", optarg, 1 << 18, &v)))
				o->batch_pages = v;
			break;
		case O_HELP: usage(stdout); exit(0);
		default: return 2;   /* getopt printed the one line */
		}
	}
	if (rc)
		return rc;
	*sc = &scenarios[0];
	if (optind < argc) {
		size_t i = 0;
		while (i < NSCENARIOS && strcmp(scenarios[i].name, argv[optind]))
			i++;
		if (i == NSCENARIOS)
			return bad("scenario", argv[optind], "unknown (see --help)");
		*sc = &scenarios[i];
		if (++optind < argc)
			return bad("argument", argv[optind], "unexpected (one scenario at a time)");
	}
	if ((o->out_path || o->force || o->install) && strcmp((*sc)->name, "tune"))
		return bad("option", o->out_path ? "--out" : o->force ? "--force" : "--install",
			   "for tune only");
	return 0;
}

int main(int argc, char **argv)
{
	static struct bench_opts opts;
	const struct scenario *sc;
	int rc = parse_args(argc, argv, &opts, &sc);
	if (rc)
		return rc;
	if (!opts.kernels_given) {
		const struct cp_kernel *const *list;
		size_t n = cp_kernels(&list);
		for (size_t i = 0; i < n && i < BENCH_MAX_KERNELS; i++)
			opts.kernels[opts.nkernels++] = list[i];
	}
	opts.emulated = detect_emulation();
	setvbuf(stdout, NULL, _IOLBF, 0);
	bench_header(&opts, sc->name);
	return sc->run(&opts);
}
