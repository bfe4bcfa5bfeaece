/* SPDX-License-Identifier: MIT */
/* Selection over described CPUs, shared by the selection and residency
 * suites: describe a CPU, decide its state exactly as the library's init does,
 * and compare band lists. */
#ifndef CP_SELECT_UTIL_H
#define CP_SELECT_UTIL_H
#include "testutil.h"
#include "testhooks.h"
#include <stdio.h>

struct want_band {
	size_t from_pages;
	const char *kernel;
};

static inline void assert_bands(const char *who, const char *list, const struct cp__bands *b,
				const struct want_band *want, unsigned n)
{
	unsigned got = cp__bands_count(b);
	char text[256] = "";
	for (unsigned i = 0; i < got; i++) {
		size_t l = strlen(text);
		snprintf(text + l, sizeof(text) - l, " [%zu %s]", b->band[i].from_pages,
			 b->band[i].kernel->name);
	}
	cr_expect_eq(got, n, "%s %s: %u bands, want %u:%s", who, list, got, n, text);
	for (unsigned i = 0; i < n && i < got; i++)
		cr_expect(b->band[i].from_pages == want[i].from_pages &&
			  !strcmp(b->band[i].kernel->name, want[i].kernel),
			  "%s %s band %u: got%s, want [%zu %s]", who, list, i, text,
			  want[i].from_pages, want[i].kernel);
}
#define BANDS(...) ((const struct want_band[]){ __VA_ARGS__ }), \
	(unsigned)(sizeof((const struct want_band[]){ __VA_ARGS__ }) / sizeof(struct want_band))

struct described {
	struct cp__cpu cpu;
	struct cp__kernel_list usable;
	struct cp__policy policy;
	char source[48];             /* "builtin:NAME" or "generic" */
};

/* Decide for a described CPU exactly as the library's init does
 * (cp__state_decide), optionally masking features as CLEARPAGES_DISABLE would. */
static inline void select_for(struct described *d, unsigned disabled, const struct cp__profile *pr)
{
	struct cp__decide_in in = { .cpu = &d->cpu, .disable = disabled, .quiet = 1 };
	struct cp__state s;
	cp__state_decide(&in, &s);
	if (pr)
		cp__policy_with_profile(&s, pr, &s.policy);
	d->usable = s.kernels;
	d->policy = s.policy;
	snprintf(d->source, sizeof(d->source), "%s", s.default_source);
}

#define MIB_PAGES(n) ((size_t)(n) << 8)

#if defined(__x86_64__)
/* An x86 CPU as detection describes it, with its L2 and LLC sizes. */
static inline struct described x86_caches(const char *vendor, unsigned family, unsigned model,
					  unsigned features, size_t l2_kib, size_t llc_mib)
{
	struct described d;
	memset(&d, 0, sizeof(d));
	strcpy(d.cpu.vendor, vendor);
	strcpy(d.cpu.model, "described");
	d.cpu.family = family;
	d.cpu.model_id = model;
	d.cpu.features = features | CP__F_SIMD;   /* as detection always sets it */
	d.cpu.l2_bytes = l2_kib << 10;
	d.cpu.llc_bytes = llc_mib << 20;
	cp__cpu_identify(&d.cpu);
	select_for(&d, 0, NULL);
	return d;
}

/* The same with a 1 MiB L2. */
static inline struct described x86(const char *vendor, unsigned family, unsigned model,
				   unsigned features, size_t llc_mib)
{
	return x86_caches(vendor, family, model, features, 1024, llc_mib);
}
#endif

#if defined(__aarch64__)
static inline struct described arm(unsigned features, unsigned dczva_block)
{
	struct described d;
	memset(&d, 0, sizeof(d));
	strcpy(d.cpu.vendor, "arm64");
	d.cpu.features = features | CP__F_SIMD;   /* as detection always sets it */
	d.cpu.dczva_block_bytes = dczva_block;
	d.cpu.l2_bytes = (size_t)1 << 20;
	d.cpu.llc_bytes = (size_t)8 << 20;
	select_for(&d, 0, NULL);
	return d;
}
#endif
#endif
