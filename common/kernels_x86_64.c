/*
 * The x86_64 kernel table, in cp_kernels() order: temporal kernels fastest at
 * small extents first, then non-temporal kernels fastest at large extents first.
 *
 * Ranking measured with `make bench` (clearbench sweep: medians over 31..7
 * interleaved, shuffled, warmed-up rounds) on an Intel Xeon (Sapphire Rapids,
 * KVM, 2 vCPUs), GB/s:
 *              4 KiB   8 KiB   64 KiB   8 MiB   256 MiB   1 GiB
 *   avx2       209     188     62.9     28.1     8.5      8.2
 *   rep_stosb  174     212     62.7     28.7    10.1      9.7
 *   rep_stosq  174     210     63.3     28.3    10.0      9.8
 *   sse2       109     108     63.1     28.3     8.4      8.1
 *   movq        55      58     48.7     28.6     8.4      8.3
 *   avx2_nt     11      15     22.7     24.3    23.5     23.0
 *   movnti      11      15     22.3     23.9    23.2     22.3
 * avx2 is fastest at one page; rep_stosb/rep_stosq lead from 8 KiB (the
 * policy's middle band, see policy.c). clzero is ranked first of the
 * non-temporal kernels on figures measured on an AMD EPYC host and quoted in
 * the project's issues (clzero about 38 GB/s from 8 MiB; avx2_nt and clzero
 * about 39 at 64 MiB): one instruction per line and no read-for-ownership.
 * This Intel host cannot run it, so its rank is not measured here.
 * rep_stosb is ranked by ERMS/FSRM: without either it drops to the end of the
 * temporal kernels.
 */
#include "internal.h"

#define K(name, flags) { #name, "x86_64", flags, cp_x86_64_##name }

const struct cp__kernel_desc cp__kernel_table[] = {
	/* temporal */
	{ K(avx2, 0),                   CP__F_AVX2, 0 },
	{ K(rep_stosb, 0),              0, CP__F_ERMS | CP__F_FSRM },
	{ K(rep_stosq, 0),              0, 0 },
	{ K(sse2, 0),                   0, 0 },
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
