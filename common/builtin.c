/* SPDX-License-Identifier: MIT */
/*
 * Built-in profiles, one per measured microarchitecture, looked up by the
 * name detection gives (cp__cpu.uarch). Each row: the bands (`from this many
 * pages on, this kernel`), the smallest parallel share, the residency
 * threshold cached_min_mbps (residency.h; 0: the generic rule's) and
 * discard_from (cp_zero's CP_ZERO_MAY_DISCARD on resident memory; 0: the
 * generic rule's, CP__BAND_UNUSED: never). The uncached bands are the
 * generic rule's for every row (select.c). The measurements behind each row
 * are in its host's record, bench/results/<host>/README.md; beside each row,
 * the rule it follows and the one figure behind each threshold.
 */
#include "select.h"

#define KIB(n) ((size_t)(n) * 1024 / 4096)
#define MIB(n) ((size_t)(n) * 1024 * 1024 / 4096)
/* A row measured for clears only: copies take its bands' counterparts. */
#define NO_COPY_ROWS 0, { { 0, NULL } }

const struct cp__builtin cp__builtins[] = {
	/* intel-sapphire-rapids: avx2 at one page, rep stosb from 8 KiB (level
	 * or ahead to 32 MiB), non-temporal from 64 MiB, where one core's
	 * temporal stores fall to 9-11 GB/s. Threshold: the geometric mean of
	 * rep stosb's rates in the LLC and in DRAM. */
	{ "intel-sapphire-rapids", 3,
	  { { 0, "avx2" }, { 2, "rep_stosb" }, { MIB(64), "avx2_nt" } }, MIB(4), 17000, 0, NO_COPY_ROWS },
	/* intel-emerald-rapids: zmm stores to 16 KiB, rep stosb from 32 KiB
	 * (zmm stores fell to half there in two of three sweeps), non-temporal
	 * from 32 MiB, where temporal stores turn bimodal. Threshold as above. */
	{ "intel-emerald-rapids", 3,
	  { { 0, "avx512" }, { KIB(32), "rep_stosb" }, { MIB(32), "avx2_nt" } }, MIB(4), 11500, 0, NO_COPY_ROWS },
	/* amd-zen4: avx2, clzero from half the L3 (ahead of avx2_nt on three
	 * of the host's four tables). One core nearly saturates memory: shares
	 * of 8 MiB. Threshold from timed 16 KiB chunks: LLC-resident p90 31
	 * GB/s, cold p10 12; 20000 near their geometric mean. Discard: never
	 * (madvise alone took 3.5-6x the stores on 4 KiB pages). */
	{ "amd-zen4", 2,
	  { { 0, "avx2" }, { MIB(16), "clzero" } }, MIB(8), 20000, CP__BAND_UNUSED, NO_COPY_ROWS },
	/* amd-zen3: avx2, avx2_nt from 16 MiB (this VM's L3 share does not hold
	 * a 16 MiB buffer; clzero level). Threshold from timed 16 KiB chunks,
	 * between the cached and the cold rates: 16000 misjudged 1-3 of 401 hot
	 * chunks and no cold one. Discard: never, as on Zen 4. */
	{ "amd-zen3", 2,
	  { { 0, "avx2" }, { MIB(16), "avx2_nt" } }, MIB(8), 16000, CP__BAND_UNUSED, NO_COPY_ROWS },
	/* amd-zen5: avx2, rep stosq from 1 MiB (1.07-1.15x avx2 at 1, 2 and
	 * 8 MiB), clzero from the 32 MiB LLC (cp_clear_pages_cold: clzero at
	 * every extent, where it led on memory not in the cache). A rep stosq
	 * chunk cannot tell cold memory from cached here; the estimate times
	 * avx2's (cp__chunk_kernel). Threshold: between cached 16 KiB avx2
	 * chunks and cold ones with a warm TLB (a cold extent's later batches),
	 * p90 525 ticks against p10 1113. Copies: avx512 below 32 KiB (1.6x rep
	 * movsb hot, source and destination in the L1d), rep movsb from there to
	 * 1 GiB (at 32-128 KiB 113-147 GB/s against the vector loops' 85-90; no
	 * non-temporal band paid on every kind of target). */
	{ "amd-zen5", 3,
	  { { 0, "avx2" }, { MIB(1), "rep_stosq" }, { MIB(32), "clzero" } }, MIB(8), 34000, 0,
	  2, { { 0, "avx512" }, { KIB(32), "rep_movsb" } } },
};
const size_t cp__builtins_len = sizeof(cp__builtins) / sizeof(cp__builtins[0]);
