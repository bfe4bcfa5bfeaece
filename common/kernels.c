/* SPDX-License-Identifier: MIT */
/*
 * The kernel table of this architecture, expanded from arch/<arch>/kernels.def
 * (found through -Iarch/<arch>), and the one CLEARPAGES_DISABLE token table,
 * from common/features.def.
 */
#include <string.h>
#include "internal.h"

#define TEMPORAL    0
#define NONTEMPORAL CP_NONTEMPORAL
#define F(id)       CP__F_##id
#define CP_KERNEL_SYM2(arch, name) cp_##arch##_##name
#define CP_KERNEL_SYM(arch, name) CP_KERNEL_SYM2(arch, name)

const struct cp__kernel_desc cp__kernel_table[] = {
#define CP_KERNEL(name, class, needs, ranked_by, what) \
	{ { #name, CP_ARCH_NAME, class, CP_KERNEL_SYM(CP_ARCH_ID, name) }, needs, ranked_by },
#include "kernels.def"
#undef CP_KERNEL
};
const size_t cp__kernel_table_len = sizeof(cp__kernel_table) / sizeof(cp__kernel_table[0]);

const struct cp__feature_token cp__feature_tokens[] = {
#define CP_FEATURE(id, token, arch, bit) { #token, CP__F_##id, #arch },
#include "features.def"
#undef CP_FEATURE
};
const size_t cp__feature_tokens_len =
	sizeof(cp__feature_tokens) / sizeof(cp__feature_tokens[0]);
