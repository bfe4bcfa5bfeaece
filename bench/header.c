/* The header every scenario prints first: CPU, features, caches, kernels and
 * the extent policy (the kernel auto picks per extent); also as JSON. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "clearbench.h"
#include "testhooks.h"

static void feature_list(unsigned mask, char *buf, size_t len)
{
	buf[0] = '\0';
	for (size_t i = 0; i < cp__feature_tokens_len; i++)
		if ((mask & cp__feature_tokens[i].feature) &&
		    !strcmp(cp__feature_tokens[i].arch, CP_ARCH_NAME)) {
			size_t l = strlen(buf);
			snprintf(buf + l, len - l, "%s%s", l ? " " : "", cp__feature_tokens[i].token);
		}
	if (!buf[0])
		snprintf(buf, len, "(none)");
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

void bench_header(const struct bench_opts *opts, const char *scenario)
{
	const struct cp__state *s = cp__state();
	const struct cp__policy *p = &s->policy;
	char feat[128], det[128], a[16], b[16], c[16], thp[64];
	struct utsname u;
	uname(&u);
	printf("clearbench %s: clearpages %s, %s, Linux %s\n", scenario, cp_version(),
	       s->kernels.n ? s->kernels.k[0]->arch : "?", u.release);
	printf("cpu:      %s (%s), %u CPUs usable\n", s->cpu.model, s->cpu.vendor, cpus_here());
	feature_list(s->features, feat, sizeof(feat));
	feature_list(s->cpu.features, det, sizeof(det));
	printf("features: %s%s%s%s\n", feat, s->features != s->cpu.features ? " (detected: " : "",
	       s->features != s->cpu.features ? det : "",
	       s->features != s->cpu.features ? ")" : "");
	printf("caches:   L1d %s, L2 %s, LLC %s (as one core sees it)\n",
	       l1d_bytes() ? bench_size_str(l1d_bytes(), a, sizeof(a)) : "?",
	       bench_size_str(s->cpu.l2_bytes, b, sizeof(b)),
	       bench_size_str(s->cpu.llc_bytes, c, sizeof(c)));
	printf("kernels: ");
	for (size_t i = 0; i < s->kernels.n; i++)
		printf(" %s%s", s->kernels.k[i]->name,
		       s->kernels.k[i]->flags & CP_NONTEMPORAL ? "(nt)" : "");
	printf("%s\n", opts->kernels_given ? "  [--kernel limits what is measured]" : "");
	printf("auto:    ");
	for (unsigned i = 0; i < cp__bands_count(&p->any); i++)
		printf(" %s from %s%s", p->any.band[i].kernel->name,
		       bench_size_str((p->any.band[i].from_pages ? p->any.band[i].from_pages : 1) *
				      CP_PAGE_SIZE, a, sizeof(a)),
		       i + 1 < cp__bands_count(&p->any) ? "," : "");
	printf("%s\n", s->forced ? " (CLEARPAGES_KERNEL forces one kernel)" : "");
	printf("policy:   %s\n", cp_policy_source());
	thp_mode(thp, sizeof(thp));
	printf("memory:   THP %s; GB/s = 10^9 bytes/s\n", thp);
	if (opts->emulated)
		printf("WARNING:  running under an emulator (qemu-user): these figures measure the "
		       "emulator and mean nothing about the CPU\n");
}

void bench_header_json(FILE *f)
{
	const struct cp__state *s = cp__state();
	char feat[128];
	fprintf(f, "{\"model\": ");
	bench_json_str(f, s->cpu.model);
	fprintf(f, ", \"vendor\": ");
	bench_json_str(f, s->cpu.vendor);
	feature_list(s->features, feat, sizeof(feat));
	fprintf(f, ", \"features\": ");
	bench_json_str(f, feat);
	fprintf(f, ", \"cpus\": %u, \"l1d_bytes\": %zu, \"l2_bytes\": %zu, \"llc_bytes\": %zu",
		cpus_here(), l1d_bytes(), s->cpu.l2_bytes, s->cpu.llc_bytes);
	fprintf(f, ", \"nt_from_bytes\": %zu, \"kernels\": [",
		cp__policy_nt_from(&s->policy) * CP_PAGE_SIZE);
	for (size_t i = 0; i < s->kernels.n; i++) {
		fputs(i ? ", " : "", f);
		bench_json_str(f, s->kernels.k[i]->name);
	}
	fprintf(f, "], \"policy_source\": ");
	bench_json_str(f, cp_policy_source());
	fprintf(f, ", \"version\": ");
	bench_json_str(f, cp_version());
	fprintf(f, "}");
}
