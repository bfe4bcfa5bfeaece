/* SPDX-License-Identifier: MIT */
/*
 * Built-in profiles, one per measured microarchitecture, looked up by the
 * name detection gives (cp__cpu.uarch). Each row is `from this many pages on,
 * this kernel`; the figures behind every row are in bench/results/<host>/
 * (clearbench sweep and parallel on that host), cited beside it.
 */
#include "select.h"

#define KIB(n) ((size_t)(n) * 1024 / 4096)
#define MIB(n) ((size_t)(n) * 1024 * 1024 / 4096)

const struct cp__builtin cp__builtins[] = {
	/* bench/results/intel-sapphire-rapids/: avx2 leads at one page; rep
	 * stosb is level at 8 KiB and ahead by up to 10 % to 32 MiB; past 64 MiB
	 * one core's temporal stores fall to 9-11 GB/s against 22-25 for
	 * non-temporal. Two 4 MiB shares already gain 1.2x. */
	{ "intel-sapphire-rapids", 3,
	  { { 0, "avx2" }, { 2, "rep_stosb" }, { MIB(64), "avx2_nt" } }, MIB(4) },
	/* bench/results/intel-emerald-rapids/: zmm stores lead while the extent
	 * fits L1 (to 32 KiB); from L2 on rep stosb is level or ahead; temporal
	 * stores drop below non-temporal ones between 32 and 64 MiB. */
	{ "intel-emerald-rapids", 3,
	  { { 0, "avx512" }, { KIB(64), "rep_stosb" }, { MIB(64), "avx2_nt" } }, MIB(4) },
	/* bench/results/amd-zen4/: avx2 level with or ahead of rep stosb to
	 * 8 MiB; avx2_nt leads every kernel (clzero by 8-18 %) from 16 MiB, half
	 * the L3. One core nearly saturates memory: splitting loses below
	 * 16 MiB, so shares of 8 MiB. */
	{ "amd-zen4", 2,
	  { { 0, "avx2" }, { MIB(16), "avx2_nt" } }, MIB(8) },
	/* bench/results/amd-zen3/: avx2 stores 80 GB/s at 4 KiB against 48 for
	 * rep stosb, ~60 to 8 MiB; avx2_nt and clzero tie at ~39 from 64 MiB.
	 * Non-temporal from half the 32 MiB L3, as on Zen 4 (same L3 per CCX). */
	{ "amd-zen3", 2,
	  { { 0, "avx2" }, { MIB(16), "avx2_nt" } }, MIB(8) },
};
const size_t cp__builtins_len = sizeof(cp__builtins) / sizeof(cp__builtins[0]);
