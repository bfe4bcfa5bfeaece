/* SPDX-License-Identifier: MIT */
/*
 * The kernel registry: this architecture's kernel table (from
 * arch/<arch>/kernels.def), the CLEARPAGES_DISABLE tokens (common/features.def)
 * and the usable list in cp_kernels() order. Pure: no state, no I/O.
 */
#ifndef CP_REGISTRY_H
#define CP_REGISTRY_H

#include <stddef.h>
#include "cp_public.h"
#include "cpu.h"

/* This build's architecture, as cp_kernel.arch spells it, and as the raw
 * kernel symbols spell it (cp_<id>_<name>). */
#if defined(__x86_64__)
#define CP_ARCH_NAME "x86_64"
#define CP_ARCH_ID x86_64
#elif defined(__aarch64__)
#define CP_ARCH_NAME "arm64"
#define CP_ARCH_ID arm64
#else
#error "clearpages: x86_64 or arm64 only"
#endif

/* One row of the kernel table. */
struct cp__kernel_desc {
	struct cp_kernel kernel;
	unsigned needs;           /* CP__F_* all required to run it (CP__F_SIMD
				     for every CP_SIMD kernel) */
	unsigned ranked_by;       /* CP__F_*: without all of them the kernel drops to
				     the end of its class (rep_stosb without ERMS/FSRS) */
};
extern const struct cp__kernel_desc cp__kernel_table[];
extern const size_t cp__kernel_table_len;

/* A CLEARPAGES_DISABLE token: tokens of both architectures are known. */
struct cp__feature_token {
	const char *token;
	unsigned feature;
	const char *arch;         /* CP_ARCH_NAME spelling, or "any": both arches */
};
extern const struct cp__feature_token cp__feature_tokens[];
extern const size_t cp__feature_tokens_len;

#define CP__MAX_KERNELS 32
struct cp__kernel_list {
	size_t n;
	const struct cp_kernel *k[CP__MAX_KERNELS];
};

/* The copy kernels (arch/<arch>/copy_kernels.def): rows as above. */
struct cp__copy_kernel_desc {
	struct cp_copy_kernel kernel;
	unsigned needs, ranked_by;
};
extern const struct cp__copy_kernel_desc cp__copy_kernel_table[];
extern const size_t cp__copy_kernel_table_len;
struct cp__copy_kernel_list {
	size_t n;
	const struct cp_copy_kernel *k[CP__MAX_KERNELS];
};
/* The copy kernels a CPU with `features` can run, in cp_copy_kernels() order. */
void cp__copy_registry_build(unsigned features, struct cp__copy_kernel_list *out);
const struct cp_copy_kernel *cp__copy_list_find(const struct cp__copy_kernel_list *list,
						const char *name);

/* The kernels a CPU with `features` can run, in cp_kernels() order. */
void cp__registry_build(unsigned features, struct cp__kernel_list *out);
/* Ranked by features `features` has none of: it drops to the end of its
 * class, and a built-in row naming it takes the generic choice instead. */
static inline int cp__kernel_demoted(const struct cp__kernel_desc *d, unsigned features)
{
	return d->ranked_by && !(d->ranked_by & features);
}
/* The row of a kernel of the table (NULL for a kernel not in it). */
const struct cp__kernel_desc *cp__kernel_desc_of(const struct cp_kernel *k);
/* The same for the copy kernels. */
static inline int cp__copy_kernel_demoted(const struct cp__copy_kernel_desc *d, unsigned features)
{
	return d->ranked_by && !(d->ranked_by & features);
}
const struct cp__copy_kernel_desc *cp__copy_kernel_desc_of(const struct cp_copy_kernel *k);
/* By name in a list; NULL when absent or name is NULL. */
const struct cp_kernel *cp__list_find(const struct cp__kernel_list *list, const char *name);
/* CLEARPAGES_DISABLE's syntax: comma-separated, case-insensitive tokens,
 * blanks around them ignored, the other architecture's tokens accepted and
 * ignored. Returns the features to mask; each unknown token goes to
 * `unknown` (which may be NULL). */
unsigned cp__disable_parse(const char *list,
			   void (*unknown)(const char *tok, size_t len, void *ctx), void *ctx);
/* Whether a token applies to this build's architecture (its own, or "any"). */
int cp__feature_token_here(const struct cp__feature_token *t);
/* The token `len` bytes at `tok` (case-insensitive): NULL when unknown. */
const struct cp__feature_token *cp__feature_token_find(const char *tok, size_t len);

#endif
