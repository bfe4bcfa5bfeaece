/* SPDX-License-Identifier: MIT */
/*
 * Built-in profiles, one per measured microarchitecture, looked up by the
 * name detection gives (cp__cpu.uarch). Each row is `from this many pages on,
 * this kernel`; the figures behind every row are in bench/results/<host>/
 * (clearbench sweep and parallel on that host), cited beside it.
 *
 * The last but one number is the residency threshold, cached_min_mbps
 * (residency.h): a timed chunk between the rates of a cached and a cold
 * target is judged by the nearer. Where chunks were timed (amd-zen4), the
 * geometric mean of their rates; elsewhere of one core's streaming rates in
 * the LLC (the hot sweep at 4 MiB) and in DRAM (hot, from 4x the LLC), which
 * agreed with the chunks on the Intel VM but not on Zen 4 (see there). Their
 * uncached bands come from the generic rule (L2 size): on the two hosts that
 * ran the cold and use sweeps (intel-family6-model167, generic; amd-zen4)
 * it held.
 * Then discard_from (cp_zero's CP_ZERO_MAY_DISCARD on resident memory): 0,
 * the generic rule's, where the zero scenario never ran; CP__BAND_UNUSED
 * (never) where tune's discard fit said none.
 */
#include "select.h"

#define KIB(n) ((size_t)(n) * 1024 / 4096)
#define MIB(n) ((size_t)(n) * 1024 * 1024 / 4096)

const struct cp__builtin cp__builtins[] = {
	/* bench/results/intel-sapphire-rapids/: avx2 leads at one page; rep
	 * stosb is level at 8 KiB and ahead by up to 10 % to 32 MiB; past 64 MiB
	 * one core's temporal stores fall to 9-11 GB/s against 22-25 for
	 * non-temporal. Two 4 MiB shares already gain 1.2x. */
	/* Threshold: rep stosb 28 GB/s at 4 MiB, 10.3 from 128 MiB: 17 GB/s. */
	{ "intel-sapphire-rapids", 3,
	  { { 0, "avx2" }, { 2, "rep_stosb" }, { MIB(64), "avx2_nt" } }, MIB(4), 17000, 0 },
	/* bench/results/intel-emerald-rapids/: zmm stores lead to 16 KiB (by
	 * 5-45 %); at 32 KiB they fell to half in two of three sweeps while rep
	 * stosb held, and from there on rep stosb is level or ahead; at 32 MiB
	 * temporal stores are bimodal (10-22 GB/s from run to run) while
	 * non-temporal ones hold 17.5-20, and at 64 MiB temporal ones are at 8. */
	/* Threshold: rep stosb 21 GB/s at 4 MiB, 6.3 at 1 GiB: 11.5 GB/s. */
	{ "intel-emerald-rapids", 3,
	  { { 0, "avx512" }, { KIB(32), "rep_stosb" }, { MIB(32), "avx2_nt" } }, MIB(4), 11500, 0 },
	/* bench/results/amd-zen4/: avx2 level with or ahead of rep stosb to
	 * 8 MiB; avx2_nt leads every kernel (clzero by 8-18 %) from 16 MiB, half
	 * the L3. One core nearly saturates memory: splitting loses below
	 * 16 MiB, so shares of 8 MiB. */
	/* Threshold: from the timed chunks themselves, not the streaming rates
	 * (whose geometric mean, 52 GB/s, misjudged hot 4-8 MiB buffers 9-25 %
	 * of the time): 16 KiB chunks of an LLC-resident target took 390-910
	 * ticks (p90 1352 at 16 MiB: 31 GB/s), of a cold one 3536 at p10
	 * (12 GB/s); one page 130-286 hot to 4 MiB, 1248 at p10 cold. 20 GB/s
	 * is near the geometric mean of 31 and 12 (bench/results/amd-zen4/,
	 * residency/). */
	/* discard_from: never (on resident memory; untouched memory is still
	 * discarded, discard.c). tune's fit, three runs: on 4 KiB pages madvise
	 * alone took 3.5-6x the stores at every extent to 128 MiB (64 MiB: 4.0-5.6
	 * against 0.8-1.1 ms), and on THP, the call then every line written
	 * 1.6-2.2x the stores then the writes. */
	{ "amd-zen4", 2,
	  { { 0, "avx2" }, { MIB(16), "avx2_nt" } }, MIB(8), 20000, CP__BAND_UNUSED },
	/* bench/results/amd-zen3/: avx2 stores 80 GB/s at 4 KiB against 48 for
	 * rep stosb, ~60 to 8 MiB; avx2_nt and clzero tie at ~39 from 64 MiB.
	 * Non-temporal from half the 32 MiB L3, as on Zen 4 (same L3 per CCX). */
	/* Threshold: the generic one (16 GB/s). No chunk was timed on Zen 3;
	 * the streaming rates' geometric mean (36 GB/s) is what overshot on Zen 4
	 * by 2.6x, and Zen 3's cache writes are slower than Zen 4's (avx2 ~60
	 * against ~100 GB/s to 8 MiB), so its chunk threshold is at most Zen 4's
	 * 20 GB/s. */
	{ "amd-zen3", 2,
	  { { 0, "avx2" }, { MIB(16), "avx2_nt" } }, MIB(8), 0, 0 },
};
const size_t cp__builtins_len = sizeof(cp__builtins) / sizeof(cp__builtins[0]);
