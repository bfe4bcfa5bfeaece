/*
 * The x86_64 kernel table, in cp_kernels() order: temporal kernels fastest at
 * small extents first, then non-temporal kernels fastest at large extents first.
 *
 * Ranking measured with `build/x86_64/clearbench sweep` (see README), medians
 * over interleaved, shuffled, warmed-up rounds; figures in the README.
 * rep_stosb is ranked by ERMS/FSRM: without either it drops to the end of the
 * temporal kernels.
 */
#include "internal.h"

#define K(name, flags) { #name, "x86_64", flags, cp_x86_64_##name }

const struct cp__kernel_desc cp__kernel_table[] = {
	/* temporal */
	{ K(avx2, 0),                   CP__F_AVX2, 0 },
	{ K(rep_stosb, 0),              0, CP__F_ERMS | CP__F_FSRM },
	{ K(sse2, 0),                   0, 0 },
	{ K(rep_stosq, 0),              0, 0 },
	{ K(movq, 0),                   0, 0 },
	/* non-temporal */
	{ K(clzero, CP_NONTEMPORAL),    CP__F_CLZERO, 0 },
	{ K(avx2_nt, CP_NONTEMPORAL),   CP__F_AVX2, 0 },
	{ K(movnti, CP_NONTEMPORAL),    0, 0 },
};
const size_t cp__kernel_table_len = sizeof(cp__kernel_table) / sizeof(cp__kernel_table[0]);

const struct cp__feature_token cp__feature_tokens[] = {
	{ "erms",   CP__F_ERMS,   1 },
	{ "fsrm",   CP__F_FSRM,   1 },
	{ "avx2",   CP__F_AVX2,   1 },
	{ "clzero", CP__F_CLZERO, 1 },
	{ "dczva",  CP__F_DCZVA,  0 },
	{ "sve",    CP__F_SVE,    0 },
	{ "mops",   CP__F_MOPS,   0 },
};
const size_t cp__feature_tokens_len =
	sizeof(cp__feature_tokens) / sizeof(cp__feature_tokens[0]);
