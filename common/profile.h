/* SPDX-License-Identifier: MIT */
/*
 * Profiles: a measured extent policy for one CPU. The built-in ones
 * (common/builtin.c) and tuned files (format: docs/profiles-and-tuning.md,
 * "The format") share this form. The parser is pure: text in, a profile or
 * an error (line and reason) out; the caller reports it.
 */
#ifndef CP_PROFILE_H
#define CP_PROFILE_H

#include <stddef.h>
#include "policy.h"
#include "registry.h"

#define CP__PROFILE_MAX_BYTES 16384    /* a profile is a dozen lines */

/* The CPU a profile was measured on. */
struct cp__profile_cpu {
	char vendor[16];          /* x86: CPUID vendor; arm64: "arm64" */
	unsigned family, model;   /* x86: display family/model */
	unsigned midr_implementer, midr_part;   /* arm64 */
	char brand[64];           /* x86: brand string ("" in built-ins: any) */
};

struct cp__profile {
	unsigned version;         /* 1, 2 or 3 */
	int has_cpu;              /* version 2 always has one */
	struct cp__profile_cpu cpu;
	unsigned nbands;          /* version 2: 1 .. CP__MAX_BANDS */
	struct cp__band bands[CP__MAX_BANDS];
	int has_parallel;
	size_t parallel_min_share_pages;   /* 0 = never split */
	/* version 3: bands for uncached targets (none: derived from band's, as
	 * the generic rule does) and the residency threshold */
	unsigned nuncached;
	struct cp__band uncached[CP__MAX_BANDS];
	int has_cached_min_mbps;
	unsigned cached_min_mbps;
	int has_discard_from;
	size_t discard_from_pages;         /* CP__BAND_UNUSED: none (never) */
	/* version 1: the three-band keys, each optional (bit set when given) */
	unsigned v1_given;        /* 1 << enum cp__v1_key */
	size_t small_below_pages, nt_from_pages;
	const struct cp_kernel *small, *temporal, *nontemporal;
};
enum cp__v1_key { CP__V1_SMALL, CP__V1_SMALL_BELOW, CP__V1_TEMPORAL, CP__V1_NT_FROM,
		  CP__V1_NONTEMPORAL };

struct cp__profile_error {
	unsigned line;            /* 1-based; 0 = the file as a whole */
	const char *why;
	char detail[240];         /* where why needs words of its own */
};

/* Parse len bytes of text; kernels must be in `usable` and of the right class.
 * 0, or -EINVAL with err filled. */
int cp__profile_parse(const char *text, size_t len, const struct cp__kernel_list *usable,
		      struct cp__profile *out, struct cp__profile_error *err);

/* 1 when the profile may be applied on this CPU (no cpu line: version 1, any). */
struct cp__cpu;
int cp__profile_cpu_matches(const struct cp__profile *p, const struct cp__cpu *cpu);
/* "GenuineIntel 6 143 Intel(R) Xeon(R) ..." or "arm64 0x41 0xd0c", for messages. */
void cp__profile_cpu_describe(const struct cp__profile_cpu *c, char *out, size_t len);
void cp__profile_cpu_of(const struct cp__cpu *cpu, struct cp__profile_cpu *out);

#endif
