/* SPDX-License-Identifier: MIT */
/*
 * The kernel table of this architecture, expanded from arch/<arch>/kernels.def
 * (found through -Iarch/<arch>), the one CLEARPAGES_DISABLE token table (from
 * common/features.def), and the usable list built from them.
 */
#include <stddef.h>
#include "registry.h"
#include "str.h"

#define TEMPORAL    0
#define NONTEMPORAL CP_NONTEMPORAL
#define GPR         0
#define SIMD        CP_SIMD
#define F(id)       CP__F_##id
#define CP_KERNEL_SYM2(arch, name) cp_##arch##_##name
#define CP_KERNEL_SYM(arch, name) CP_KERNEL_SYM2(arch, name)

/* The raw kernels' prototypes, from the same list (the public header's copy
 * is generated from it too: scripts/regen.sh). */
#define CP_KERNEL(name, class, regs, needs, ranked_by, what) \
	void CP_KERNEL_SYM(CP_ARCH_ID, name)(void *addr, size_t npages);
#include "kernels.def"
#undef CP_KERNEL

const struct cp__kernel_desc cp__kernel_table[] = {
/* regs SIMD: the CP_SIMD flag, and the pseudo-feature SIMD in needs. */
#define CP_KERNEL(name, class, regs, needs, ranked_by, what) \
	{ { #name, CP_ARCH_NAME, (class) | (regs), CP_KERNEL_SYM(CP_ARCH_ID, name) }, \
	  (needs) | ((regs) ? CP__F_SIMD : 0), ranked_by },
#include "kernels.def"
#undef CP_KERNEL
};
const size_t cp__kernel_table_len = sizeof(cp__kernel_table) / sizeof(cp__kernel_table[0]);

#define CP_COPY_FOR(clear, copy)   /* select.c's: copy counterparts */
#define CP_COPY_SYM2(arch, name) cp_##arch##_copy_##name
#define CP_COPY_SYM(arch, name) CP_COPY_SYM2(arch, name)
#define CP_COPY_KERNEL(name, class, regs, needs, ranked_by, what) \
	void CP_COPY_SYM(CP_ARCH_ID, name)(void *dst, const void *src, size_t npages);
#include "copy_kernels.def"
#undef CP_COPY_KERNEL

const struct cp__copy_kernel_desc cp__copy_kernel_table[] = {
#define CP_COPY_KERNEL(name, class, regs, needs, ranked_by, what) \
	{ { #name, CP_ARCH_NAME, (class) | (regs), CP_COPY_SYM(CP_ARCH_ID, name) }, \
	  (needs) | ((regs) ? CP__F_SIMD : 0), ranked_by },
#include "copy_kernels.def"
#undef CP_COPY_KERNEL
};
const size_t cp__copy_kernel_table_len =
	sizeof(cp__copy_kernel_table) / sizeof(cp__copy_kernel_table[0]);

const struct cp__feature_token cp__feature_tokens[] = {
#define CP_FEATURE(id, token, arch, bit) { #token, CP__F_##id, #arch },
#include "features.def"
#undef CP_FEATURE
};
const size_t cp__feature_tokens_len =
	sizeof(cp__feature_tokens) / sizeof(cp__feature_tokens[0]);

/* Table order within each class, temporal class first; a kernel ranked by
 * features the CPU lacks all of goes after the rest of its class. One walk
 * for both tables: rows of `size` bytes whose first member is the public
 * struct (flags at the same offset in both), needs and ranked_by at tail_at. */
struct row_tail { unsigned needs, ranked_by; };
_Static_assert(offsetof(struct cp_kernel, flags) == offsetof(struct cp_copy_kernel, flags),
	       "flags at one offset in both kernel structs");
static size_t build(const void *table, size_t len, size_t size, size_t tail_at,
		    unsigned features, const void **out)
{
	size_t n = 0;
	for (int nt = 0; nt <= 1; nt++)
		for (int demoted = 0; demoted <= 1; demoted++)
			for (size_t i = 0; i < len; i++) {
				const char *row = (const char *)table + i * size;
				const unsigned *flags = (const void *)(row + offsetof(struct cp_kernel, flags));
				const struct row_tail *t = (const void *)(row + tail_at);
				int is_nt = (*flags & CP_NONTEMPORAL) != 0;
				int slow = t->ranked_by && !(t->ranked_by & features);
				if (is_nt != nt || slow != demoted || (t->needs & ~features) ||
				    n == CP__MAX_KERNELS)
					continue;
				out[n++] = row;
			}
	return n;
}

void cp__registry_build(unsigned features, struct cp__kernel_list *out)
{
	out->n = build(cp__kernel_table, cp__kernel_table_len, sizeof(cp__kernel_table[0]),
		       offsetof(struct cp__kernel_desc, needs), features, (const void **)out->k);
}

void cp__copy_registry_build(unsigned features, struct cp__copy_kernel_list *out)
{
	out->n = build(cp__copy_kernel_table, cp__copy_kernel_table_len,
		       sizeof(cp__copy_kernel_table[0]),
		       offsetof(struct cp__copy_kernel_desc, needs), features, (const void **)out->k);
}

const struct cp__kernel_desc *cp__kernel_desc_of(const struct cp_kernel *k)
{
	for (size_t i = 0; i < cp__kernel_table_len; i++)
		if (&cp__kernel_table[i].kernel == k)
			return &cp__kernel_table[i];
	return NULL;
}

const struct cp__copy_kernel_desc *cp__copy_kernel_desc_of(const struct cp_copy_kernel *k)
{
	for (size_t i = 0; i < cp__copy_kernel_table_len; i++)
		if (&cp__copy_kernel_table[i].kernel == k)
			return &cp__copy_kernel_table[i];
	return NULL;
}

const struct cp_kernel *cp__list_find(const struct cp__kernel_list *list, const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < list->n; i++)
		if (cp__streq(list->k[i]->name, name))
			return list->k[i];
	return NULL;
}

const struct cp_copy_kernel *cp__copy_list_find(const struct cp__copy_kernel_list *list,
						const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < list->n; i++)
		if (cp__streq(list->k[i]->name, name))
			return list->k[i];
	return NULL;
}

unsigned cp__disable_parse(const char *list,
			   void (*unknown)(const char *tok, size_t len, void *ctx), void *ctx)
{
	unsigned mask = 0;
	for (const char *p = list; *p;) {
		size_t len = 0, b = 0, e;
		while (p[len] && p[len] != ',')
			len++;
		e = len;
		while (b < e && (p[b] == ' ' || p[b] == '\t')) b++;
		while (e > b && (p[e - 1] == ' ' || p[e - 1] == '\t')) e--;
		if (e > b) {
			const struct cp__feature_token *t = cp__feature_token_find(p + b, e - b);
			if (!t) {
				if (unknown)
					unknown(p + b, e - b, ctx);
			} else if (cp__feature_token_here(t)) {
				mask |= t->feature;
			}
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return mask;
}

int cp__feature_token_here(const struct cp__feature_token *t)
{
	return cp__streq(t->arch, CP_ARCH_NAME) || cp__streq(t->arch, "any");
}

const struct cp__feature_token *cp__feature_token_find(const char *tok, size_t len)
{
	for (size_t i = 0; i < cp__feature_tokens_len; i++)
		if (cp__strn_caseeq(tok, len, cp__feature_tokens[i].token))
			return &cp__feature_tokens[i];
	return NULL;
}
