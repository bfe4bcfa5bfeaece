/* SPDX-License-Identifier: MIT */
/*
 * Built-in profiles, one per measured microarchitecture, looked up by the
 * name detection gives (cp__cpu.uarch). Each row is `from this many pages on,
 * this kernel`; the figures behind every row are in bench/results/<host>/
 * (clearbench sweep and parallel on that host), cited beside it.
 *
 * After the bands, the smallest parallel share; then the residency threshold,
 * cached_min_mbps (residency.h): a timed chunk between the rates of a cached
 * and a cold target is judged by the nearer. Where chunks were timed (the
 * AMD hosts), the geometric mean of their rates; elsewhere of one core's
 * streaming rates in the LLC (the hot sweep at 4 MiB) and in DRAM (hot, from
 * 4x the LLC), which agreed with the chunks on the Intel VM but not on Zen 4
 * (see there).
 * Then discard_from (cp_zero's CP_ZERO_MAY_DISCARD on resident memory): 0,
 * the generic rule's, where the zero scenario never ran; CP__BAND_UNUSED
 * (never) where tune's discard fit said none.
 * Last, where the uncached bands go non-temporal (0: the generic rule's
 * 64 KiB), and optionally the uncached bands themselves; every row now
 * takes the generic rule's (docs/generic-rule.md: from 64 KiB it served
 * memory not in the cache and memory then written best on every host).
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
	 * 8 MiB; non-temporal stores from 16 MiB, half the L3. clzero: in the
	 * 2026-12-02 sweeps it led avx2_nt on hot, cold and then-written
	 * targets from 16 MiB (cold 16 MiB: avx2_nt 0.83 of it), where the
	 * 0.1.0 sweep had avx2_nt ahead (clzero 0.84-0.95 of it); three tables
	 * to one. One core nearly saturates memory: splitting loses below
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
	  { { 0, "avx2" }, { MIB(16), "clzero" } }, MIB(8), 20000, CP__BAND_UNUSED },
	/* bench/results/amd-zen3/: avx2 leads every kernel to 8 MiB (80 GB/s
	 * at 4 KiB against 45 for rep stosb, within 7 % of it from 1 MiB); at
	 * 16 MiB temporal stores fall to 10-14 GB/s against 28 for avx2_nt (this
	 * VM's L3 share does not hold a 16 MiB buffer: its chunks time as cold);
	 * from there clzero / avx2_nt ran 0.82-1.32 from sweep to sweep, and
	 * tune re-measured the two level. */
	/* Threshold: 16 KiB chunks took 466-1078 ticks (p90) on buffers of
	 * 16 KiB-8 MiB just cleared, 4263-5758 (p10) on cold slots, at 2.445 GHz:
	 * 37 and 7-9 GB/s, geometric means 17200 (probe) and 18690 (tune). Of
	 * 401 chunks of a hot 4 or 8 MiB buffer 1-3 were over 16000's limit,
	 * 1-7 over 20000's; no cold one was under either. So 16000: hot 1-8 MiB
	 * auto/avx2 0.97-1.03 in three focused sweeps, 0.92-1.12 at 18000. */
	/* discard_from: never, as on Zen 4: on 4 KiB pages madvise alone took
	 * 2.4-4.6x the stores at every extent to 128 MiB (tune, three runs). */
	/* Uncached: the generic rule's (non-temporal from 64 KiB). The row's
	 * own start (4 MiB) and its sse2 band served memory then written
	 * and left memory nobody writes next at 0.30-0.40 of the best from
	 * 64 KiB to 1 MiB; from 64 KiB the non-temporal kernel is within 0.01
	 * of the best one kernel does for both (docs/generic-rule.md). */
	{ "amd-zen3", 2,
	  { { 0, "avx2" }, { MIB(16), "avx2_nt" } }, MIB(8), 16000, CP__BAND_UNUSED },
	/* bench/results/amd-zen5/ (the sweep of ../shared/measurements/amd-epyc-zen5/,
	 * clearpages 0.3.0, one VM). Cached: avx2 leads to 512 KiB and at
	 * 8-16 MiB; from 32 MiB, the LLC, non-temporal stores, clzero level
	 * with or ahead of avx2_nt from 64 MiB (512 MiB: 65 against 59 GB/s;
	 * 1 GiB: 49 against 39), so cp_clear_pages_cold is clzero at every
	 * extent (on memory not in the cache it led 4 KiB-256 MiB). rep stosq
	 * leads at 1-2 MiB (151 against 143 GB/s at 1 MiB, 119 against 103 at
	 * 2) but is not taken there: a chunk of it runs as fast flushed as
	 * cached (462 against 231 ticks), so the residency estimate, which times
	 * the cached band's kernel, would go blind where cold memory needs
	 * clzero (rep stosq 0.64 of it at 1 MiB). */
	/* Threshold 34000 MB/s (at 2.096 GHz a 16 KiB limit of 1010 ticks, one
	 * page 252): 16 KiB avx2 chunks of buffers up to 16 MiB just cleared
	 * took p90 525 ticks; cold ones 1113-1596 where the TLB is warm (the
	 * second and later 4 MiB batches of a cold extent time so), 2037 and up
	 * where it is not. At 18000 (limit 1908) the later batches of cold
	 * 16 MiB extents read cached 75 % of the time (three sweeps: cold
	 * 16 MiB auto 0.67 of clzero). One page: p90 189 in buffers up to
	 * 4 MiB, 357 at 16 MiB (over the limit: a small range cycled through
	 * the LLC is sometimes judged uncached), cold p10 1134. */
	/* Uncached: the generic rule's (non-temporal, clzero, from 64 KiB). No
	 * kernel serves both memory not in the cache and memory then written
	 * from 64 KiB to 1 MiB here; clzero is the better of the two minima
	 * (docs/generic-rule.md). */
	{ "amd-zen5", 2,
	  { { 0, "avx2" }, { MIB(32), "clzero" } }, MIB(8), 34000, 0 },
};
const size_t cp__builtins_len = sizeof(cp__builtins) / sizeof(cp__builtins[0]);
