/*
 * The arm64 kernel table, in cp_kernels() order: temporal kernels fastest at
 * small extents first, then non-temporal kernels fastest at large extents first.
 *
 * Not measured: the only arm64 this project runs on is qemu, whose timings say
 * nothing about hardware. The order follows published knowledge until a
 * clearbench sweep on a named arm64 CPU replaces it:
 *  - mops / mops_nt first where FEAT_MOPS exists: the CPU picks its own best
 *    fill, Arm recommends SET* for memset, and Linux's clear_page uses
 *    setpn/setmn/seten when the CPU has MOPS;
 *  - dc_zva next: no read-for-ownership; Linux's clear_page before MOPS and
 *    glibc's memset for large zero fills both use it;
 *  - sve, then stp_q, then stp: wider stores first (A64FX, Neoverse V1 favour
 *    full vectors; 128-bit stp over 64-bit stp on wide cores);
 *  - stnp last of the non-temporal ones: a hint some cores ignore.
 * No kernel is ranked by a feature (ranked_by 0): each one needs its feature.
 */
#include "internal.h"

#define K(name, flags) { #name, "arm64", flags, cp_arm64_##name }

const struct cp__kernel_desc cp__kernel_table[] = {
	/* temporal */
	{ K(mops, 0),                   CP__F_MOPS, 0 },
	{ K(dc_zva, 0),                 CP__F_DCZVA, 0 },
	{ K(sve, 0),                    CP__F_SVE, 0 },
	{ K(stp_q, 0),                  0, 0 },
	{ K(stp, 0),                    0, 0 },
	/* non-temporal */
	{ K(mops_nt, CP_NONTEMPORAL),   CP__F_MOPS, 0 },
	{ K(stnp, CP_NONTEMPORAL),      0, 0 },
};
const size_t cp__kernel_table_len = sizeof(cp__kernel_table) / sizeof(cp__kernel_table[0]);

const struct cp__feature_token cp__feature_tokens[] = {
	{ "dczva",  CP__F_DCZVA,  1 },
	{ "sve",    CP__F_SVE,    1 },
	{ "mops",   CP__F_MOPS,   1 },
	{ "erms",   CP__F_ERMS,   0 },
	{ "fsrm",   CP__F_FSRM,   0 },
	{ "avx2",   CP__F_AVX2,   0 },
	{ "clzero", CP__F_CLZERO, 0 },
};
const size_t cp__feature_tokens_len =
	sizeof(cp__feature_tokens) / sizeof(cp__feature_tokens[0]);
