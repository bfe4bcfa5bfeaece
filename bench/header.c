/* SPDX-License-Identifier: MIT */
/* The header every scenario prints first: CPU, features, caches, kernels, the
 * extent policy (the kernel auto picks per extent) and where it came from;
 * also as JSON (every output file) and as HTML rows (the report). */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "contenders.h"
#include "header.h"
#include "introspect.h"
#include "json.h"
#include "opts.h"
#include "stats.h"

#define GIB_PAGES (((size_t)1 << 30) / CP_PAGE_SIZE)

int bench_parse_size(const char *s, size_t *out)
{
	char *end;
	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	unsigned shift = 0;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	}
	if (errno || *end || v > (~0ull >> shift))
		return -1;
	*out = (size_t)(v << shift);
	return 0;
}

int bench_emulated(void)
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

size_t bench_auto_bands(size_t *from_pages, const struct cp_kernel **kernel, size_t max)
{
	return bench_bands_of(cp_kernel_for, from_pages, kernel, max);
}

static unsigned cpus_here(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		return (unsigned)CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

static size_t l1d_bytes(void)
{
#ifdef _SC_LEVEL1_DCACHE_SIZE
	long v = sysconf(_SC_LEVEL1_DCACHE_SIZE);
	return v > 0 ? (size_t)v : 0;
#else
	return 0;
#endif
}

static void thp_mode(char *buf, size_t len)
{
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	snprintf(buf, len, "unknown");
	if (f && fgets(buf, (int)len, f)) {
		char *a = strchr(buf, '['), *b = a ? strchr(a, ']') : NULL;
		if (a && b) {
			*b = '\0';
			memmove(buf, a + 1, strlen(a + 1) + 1);
		}
	}
	if (f)
		fclose(f);
}


/* Where a per-extent choice changes, from one page to 1 GiB: pick(pages,
 * ctx) at every power of two, then the exact switch point by bisection
 * between the two powers where the choice changed. */
static size_t bands_by(const void *(*pick)(size_t npages, const void *ctx), const void *ctx,
		       size_t *from_pages, const void **kernel, size_t max)
{
	size_t n = 0;
	const void *prev = NULL;
	size_t prev_pages = 0;
	for (size_t pages = 1; pages <= GIB_PAGES && n < max; pages *= 2) {
		const void *k = pick(pages, ctx);
		if (k != prev) {
			size_t lo = prev_pages, hi = pages;   /* kernel(lo) = prev, kernel(hi) = k */
			while (prev && hi - lo > 1) {
				size_t mid = lo + (hi - lo) / 2;
				if (pick(mid, ctx) == prev)
					lo = mid;
				else
					hi = mid;
			}
			from_pages[n] = prev ? hi : 1;
			kernel[n++] = k;
			prev = k;
		}
		prev_pages = pages;
	}
	return n;
}

struct clear_pick { const struct cp_kernel *(*pick)(size_t npages); };
static const void *clear_pick(size_t npages, const void *ctx)
{
	return ((const struct clear_pick *)ctx)->pick(npages);
}
struct copy_pick { const struct cp_copy_kernel *(*pick)(size_t npages); };
static const void *copy_pick(size_t npages, const void *ctx)
{
	return ((const struct copy_pick *)ctx)->pick(npages);
}

size_t bench_bands_of(const struct cp_kernel *(*pick)(size_t npages), size_t *from_pages,
		      const struct cp_kernel **kernel, size_t max)
{
	struct clear_pick ctx = { pick };
	const void *k[BENCH_MAX_BANDS];
	size_t n = bands_by(clear_pick, &ctx, from_pages, k,
			    max < BENCH_MAX_BANDS ? max : BENCH_MAX_BANDS);
	for (size_t i = 0; i < n; i++)
		kernel[i] = k[i];
	return n;
}

/* "k1 4K to 8K, k2 8K to 64M, k3 from 64M on" for a per-extent choice;
 * name(k) names one of pick's results. */
static void bands_text(const void *(*pick)(size_t npages, const void *ctx), const void *ctx,
		       const char *(*name)(const void *k), char *out, size_t len)
{
	size_t from[BENCH_MAX_BANDS];
	const void *k[BENCH_MAX_BANDS];
	char a[16], b[16];
	size_t nb = bands_by(pick, ctx, from, k, BENCH_MAX_BANDS);
	out[0] = '\0';
	for (size_t i = 0; i < nb; i++) {
		size_t l = strlen(out);
		if (i + 1 < nb)
			snprintf(out + l, len - l, "%s%s %s to %s", i ? ", " : "", name(k[i]),
				 bench_size_str(from[i] * CP_PAGE_SIZE, a, sizeof(a)),
				 bench_size_str(from[i + 1] * CP_PAGE_SIZE, b, sizeof(b)));
		else
			snprintf(out + l, len - l, "%s%s from %s on", i ? ", " : "", name(k[i]),
				 bench_size_str(from[i] * CP_PAGE_SIZE, a, sizeof(a)));
	}
}
static const char *clear_name(const void *k) { return ((const struct cp_kernel *)k)->name; }
static const char *copy_name(const void *k) { return ((const struct cp_copy_kernel *)k)->name; }
static void bands_line(const struct cp_kernel *(*pick)(size_t npages), char *out, size_t len)
{
	struct clear_pick ctx = { pick };
	bands_text(clear_pick, &ctx, clear_name, out, len);
}

/* The header's fields, once, for text, JSON and HTML alike. */
struct header {
	struct bench_host h;
	char arch[16], kernel_list[512], features[400], caches[128], autoline[512], thp[64];
	char uncachedline[512], copyline[512];
	char os[128];
};

static void header_fill(struct header *hd, const struct bench_opts *opts)
{
	struct utsname u;
	char a[16], b[16], c[16];
	memset(hd, 0, sizeof(*hd));
	bench_host_get(&hd->h);
	uname(&u);
	snprintf(hd->os, sizeof(hd->os), "Linux %s", u.release);
	const struct cp_kernel *const *list;
	size_t n = cp_kernels(&list);
	snprintf(hd->arch, sizeof(hd->arch), "%s", n ? list[0]->arch : "?");
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(hd->kernel_list);
		snprintf(hd->kernel_list + l, sizeof(hd->kernel_list) - l, "%s%s%s", i ? " " : "",
			 list[i]->name, list[i]->flags & CP_NONTEMPORAL ? "(nt)" : "");
	}
	if (opts && opts->kernels_given) {
		size_t l = strlen(hd->kernel_list);
		snprintf(hd->kernel_list + l, sizeof(hd->kernel_list) - l,
			 "  [--kernel limits what is measured]");
	}
	int differ = strcmp(hd->h.features, hd->h.detected) != 0;
	snprintf(hd->features, sizeof(hd->features), "%s%s%s%s", hd->h.features,
		 differ ? " (detected: " : "", differ ? hd->h.detected : "", differ ? ")" : "");
	snprintf(hd->caches, sizeof(hd->caches), "L1d %s, L2 %s, LLC %s (as one core sees it)",
		 l1d_bytes() ? bench_size_str(l1d_bytes(), a, sizeof(a)) : "?",
		 bench_size_str(hd->h.l2_bytes, b, sizeof(b)),
		 bench_size_str(hd->h.llc_bytes, c, sizeof(c)));
	bands_line(cp_kernel_for, hd->autoline, sizeof(hd->autoline));
	const struct copy_pick cached = { cp_copy_kernel_for },
				uncached = { bench_copy_uncached_kernel };
	bands_text(copy_pick, &cached, copy_name, hd->copyline, sizeof(hd->copyline));
	if (bench_copy_estimate_from_pages() != SIZE_MAX) {
		/* as the small clears' history, and from 1 MiB a chunk each call */
		size_t l = strlen(hd->copyline);
		l += (size_t)snprintf(hd->copyline + l, sizeof(hd->copyline) - l,
			"; from %s one page per 64-256 calls or 4 MiB (a destination copied again: none), "
			"from %s a 16 KiB chunk per call says uncached, then: ",
			bench_size_str(bench_copy_estimate_from_pages() * CP_PAGE_SIZE, a, sizeof(a)),
			bench_size_str(bench_history_below_pages() * CP_PAGE_SIZE, b, sizeof(b)));
		if (l < sizeof(hd->copyline))
			bands_text(copy_pick, &uncached, copy_name, hd->copyline + l,
				   sizeof(hd->copyline) - l);
	}
	if (bench_estimate_from_pages() == SIZE_MAX) {
		snprintf(hd->uncachedline, sizeof(hd->uncachedline),
			 "no estimate (extent alone: the line above)");
	} else {
		/* below the plan's first extent (1 MiB) the thread's history */
		size_t from = bench_estimate_from_pages(), plan = bench_history_below_pages();
		if (from == 0)
			from = 1;           /* the bands part at once: from the first page */
		size_t l = 0;
		if (from < plan) {
			l = (size_t)snprintf(hd->uncachedline, sizeof(hd->uncachedline),
				"from %s one page per 8-256 calls (a range cleared again: none), ",
				bench_size_str(from * CP_PAGE_SIZE, c, sizeof(c)));
			from = plan;
		}
		if (l < sizeof(hd->uncachedline))
			l += (size_t)snprintf(hd->uncachedline + l, sizeof(hd->uncachedline) - l,
				"from %s a 16 KiB %s chunk per 4 MiB%s under %u MB/s says uncached, then: ",
				bench_size_str(from * CP_PAGE_SIZE, c, sizeof(c)),
				bench_chunk_kernel(from, 4)->name, l ? "," : "", bench_cached_min_mbps());
		if (l < sizeof(hd->uncachedline))
			bands_line(bench_uncached_kernel, hd->uncachedline + l,
				   sizeof(hd->uncachedline) - l);
	}
	if (hd->h.forced) {
		size_t l = strlen(hd->autoline);
		snprintf(hd->autoline + l, sizeof(hd->autoline) - l,
			 " (CLEARPAGES_KERNEL forces one kernel)");
	}
	thp_mode(hd->thp, sizeof(hd->thp));
}

/* cp_zero's MAY_DISCARD on resident memory, as cp_policy_info reports it. */
static const char *discard_line(char *buf, size_t len)
{
	struct cp_policy_info info;
	info.size = sizeof(info);
	char c[32];
	if (cp_policy_info(&info))
		snprintf(buf, len, "unknown");
	else if (info.discard_from == CP_POLICY_NEVER)
		snprintf(buf, len, "never on resident memory (untouched parts: from one unit); "
			 "cp_zero(3)");
	else
		snprintf(buf, len, "MAY_DISCARD hands resident parts back from %s",
			 bench_size_str(info.discard_from, c, sizeof(c)));
	return buf;
}

const char bench_emulated_warning[] =
	"running under an emulator (qemu-user): these figures measure the emulator "
	"and mean nothing about the CPU";

void bench_header(const struct bench_opts *opts, const char *scenario)
{
	struct header hd;
	header_fill(&hd, opts);
	if (opts->emulated)   /* the first line, where nobody misses it */
		bench_print_wrapped(stdout, "WARNING:  ", 10, bench_emulated_warning);
	printf("clearbench %s: clearpages %s, %s, %s\n", scenario, cp_version(), hd.arch, hd.os);
	printf("cpu:      %s (%s), %u CPUs usable; host id %s\n", hd.h.model, hd.h.vendor,
	       cpus_here(), hd.h.host_id);
	printf("features: %s\n", hd.features);
	printf("caches:   %s\n", hd.caches);
	/* the lines that grow with the host's bands, wrapped under their value */
	bench_print_wrapped(stdout, "kernels:  ", 10, hd.kernel_list);
	bench_print_wrapped(stdout, "auto:     ", 10, hd.autoline);
	bench_print_wrapped(stdout, "uncached: ", 10, hd.uncachedline);
	bench_print_wrapped(stdout, "copy:     ", 10, hd.copyline);
	printf("policy:   %s\n", cp_policy_source());
	char discard[128];
	printf("discard:  %s\n", discard_line(discard, sizeof(discard)));
	printf("memory:   THP %s; GB/s = 10^9 bytes/s; memset from glibc %s\n", hd.thp,
	       bench_libc_version());
}

void bench_header_json(FILE *f, const struct bench_opts *opts)
{
	struct header hd;
	header_fill(&hd, opts);
	fprintf(f, "{\"host_id\": ");
	bench_json_str(f, hd.h.host_id);
	fprintf(f, ", \"model\": ");
	bench_json_str(f, hd.h.model);
	fprintf(f, ", \"vendor\": ");
	bench_json_str(f, hd.h.vendor);
	fprintf(f, ", \"uarch\": ");
	bench_json_str(f, hd.h.uarch);
	fprintf(f, ", \"family\": %u, \"model_id\": %u, \"arch\": ", hd.h.family, hd.h.model_id);
	bench_json_str(f, hd.arch);
	fprintf(f, ", \"features\": ");
	bench_json_str(f, hd.h.features);
	fprintf(f, ", \"detected\": ");
	bench_json_str(f, hd.h.detected);
	fprintf(f, ", \"cpus\": %u, \"l1d_bytes\": %zu, \"l2_bytes\": %zu, \"llc_bytes\": %zu",
		cpus_here(), l1d_bytes(), hd.h.l2_bytes, hd.h.llc_bytes);
	fprintf(f, ", \"auto\": ");
	bench_json_str(f, hd.autoline);
	fprintf(f, ", \"uncached\": ");
	bench_json_str(f, hd.uncachedline);
	fprintf(f, ", \"copy\": ");
	bench_json_str(f, hd.copyline);
	/* the bands as data, and where auto first goes non-temporal (0: never) */
	size_t from[BENCH_MAX_BANDS], nt_from = 0;
	const struct cp_kernel *bk[BENCH_MAX_BANDS];
	size_t nb = bench_auto_bands(from, bk, BENCH_MAX_BANDS);
	fprintf(f, ", \"auto_bands\": [");
	for (size_t i = 0; i < nb; i++) {
		fprintf(f, "%s{\"from_bytes\": %zu, \"kernel\": ", i ? ", " : "",
			from[i] * CP_PAGE_SIZE);
		bench_json_str(f, bk[i]->name);
		fputc('}', f);
		if (!nt_from && (bk[i]->flags & CP_NONTEMPORAL))
			nt_from = from[i] * CP_PAGE_SIZE;
	}
	fprintf(f, "], \"nt_from_bytes\": %zu", nt_from);
	fprintf(f, ", \"policy_source\": ");
	bench_json_str(f, cp_policy_source());
	struct cp_policy_info info;
	info.size = sizeof(info);
	if (cp_policy_info(&info) == 0 && info.discard_from != CP_POLICY_NEVER)
		fprintf(f, ", \"discard_from_bytes\": %zu", info.discard_from);
	else
		fprintf(f, ", \"discard_from_bytes\": null");
	const struct cp_kernel *const *list;
	size_t n = cp_kernels(&list);
	fprintf(f, ", \"kernels\": [");
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ", " : "", f);
		bench_json_str(f, list[i]->name);
	}
	fprintf(f, "], \"version\": ");
	bench_json_str(f, cp_version());
	fprintf(f, ", \"libc\": ");
	bench_json_str(f, bench_libc_version());
	fprintf(f, ", \"os\": ");
	bench_json_str(f, hd.os);
	fprintf(f, ", \"thp\": ");
	bench_json_str(f, hd.thp);
	fprintf(f, ", \"emulated\": %s}", opts && opts->emulated ? "true" : "false");
}

void bench_html_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		default: fputc(*s, f);
		}
	}
}

static void html_row(FILE *f, const char *key, const char *value)
{
	fprintf(f, "<tr><th>%s</th><td>", key);
	bench_html_text(f, value);
	fprintf(f, "</td></tr>\n");
}

void bench_header_html(FILE *f, const struct bench_opts *opts)
{
	struct header hd;
	char line[600];
	header_fill(&hd, opts);
	fprintf(f, "<table class=\"host\"><tbody>\n");
	snprintf(line, sizeof(line), "%s (%s), %u CPUs usable", hd.h.model, hd.h.vendor,
		 cpus_here());
	html_row(f, "cpu", line);
	html_row(f, "host id", hd.h.host_id);
	html_row(f, "features", hd.features);
	html_row(f, "caches", hd.caches);
	html_row(f, "kernels", hd.kernel_list);
	html_row(f, "auto", hd.autoline);
	html_row(f, "uncached", hd.uncachedline);
	html_row(f, "copy", hd.copyline);
	html_row(f, "policy", cp_policy_source());
	snprintf(line, sizeof(line), "clearpages %s, %s, %s, glibc %s, THP %s", cp_version(),
		 hd.arch, hd.os, bench_libc_version(), hd.thp);
	html_row(f, "software", line);
	fprintf(f, "</tbody></table>\n");
}
