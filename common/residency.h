/* SPDX-License-Identifier: MIT */
/*
 * Where the memory is: is a target in the caches or not? The answer picks
 * between two kernels the policy names for an extent (policy.h: any or
 * uncached; cold's non-temporal kernel or any's temporal one). The rules
 * below; the measurements behind each constant are in the host records
 * (bench/results/<host>/README.md, chiefly amd-zen3, amd-zen4, amd-zen5 and
 * intel-family6-model167: the alternatives measured and why they lost in
 * the last, the history constants each changed alone in amd-zen5's).
 *
 * The estimate times the clear itself: the first chunk of each batch is
 * cleared with a temporal kernel (cp__chunk_kernel), and a chunk at
 * cached_min_mbps or faster says "cached". The chunk is useful work, so on
 * cached memory the estimate costs two counter reads per batch; on uncached memory one chunk cleared
 * temporally instead of non-temporally (16 KiB of each 4 MiB, about 0.4 %).
 * One very slow chunk is not proof: a host-side stall or a preemption makes a
 * cached target look cold, so a chunk over CP__RESIDENCY_STALL_FACTOR times
 * the limit and slower than CP__RESIDENCY_STALL_MBPS is followed by a second,
 * which decides; a second one as slow
 * means page faults (memory never touched or handed back: each fault zeroes
 * its page into the cache, so temporal stores follow). A chunk merely slow
 * decides at once: a second chunk would cost as much again on every cold
 * batch. A batch found uncached ends with its chunks cleared again by the
 * non-temporal kernel: their lines would otherwise stay cached in a range
 * that is not, and the next estimate of that range (a pool recycling cold
 * blocks) would time them.
 *
 * cp_clear_pages (and cp_zero's body) on the range the calling thread
 * cleared last, whose last CP__REUSE_MIN_CACHED_RUN clears timed cached: a
 * slow chunk means the range was evicted in between, and a caller that clears
 * one block again and again (an allocator's calloc-free loop) will clear it
 * next time too. Non-temporal stores would keep it out of the caches and
 * leave the next call's temporal stores to fetch it, so up to
 * CP__REUSE_GRACE_CALLS such calls in a row keep the temporal kernel, each
 * still timed; a cached chunk grants them again. Hosted only (thread-local
 * storage).
 *
 * Below CP__COLD_HISTORY_BELOW_PAGES a CP_ZERO_COLD call cannot afford a
 * temporal chunk per call, so the calling thread keeps a verdict and times
 * one page of every CP__COLD_HISTORY_CALLS-th call (hosted only); under an
 * "uncached" verdict the call before clears that page temporally, so that it
 * is not timed on lines our own non-temporal stores evicted. Uncached
 * verdicts in a row space the timing out (up to CP__COLD_HISTORY_MAX_SHIFT
 * doublings) while an interval covers at most 4 MiB of clearing; from
 * 128 KiB an interval is 4 MiB of calls. A thread whose cold targets turn
 * hot keeps non-temporal stores until its next timed call.
 *
 * cp_clear_pages below CP__HISTORY_BELOW_PAGES, where the policy's uncached
 * band parts from any's (the generic rule: from one page where rep stosb is
 * ranked or short uncached clears go non-temporal, else 16 KiB), keeps a
 * history of its own, timed and spaced
 * alike. A chunk per call would cost a buffer cleared again and again, and
 * such a buffer needs no timing: the range the thread cleared last is
 * cleared by any's kernel, untimed, and counts no call of the history (it
 * was just cleared, and under 1 MiB it stays cached unless the caller evicts
 * it). So a loop over one buffer pays a compare; any other range goes by the
 * verdict. Huge orders' far ranges and parallel
 * shares below 1 MiB take any's band.
 *
 * Counter: x86 TSC, arm64 CNTVCT_EL0 (arch/<arch>/counter.h). Its rate:
 * cp__cpu.counter_hz, or measured against CLOCK_MONOTONIC from the first use
 * (hosted, where CPUID or CNTFRQ_EL0 does not say: 2 ms after the first use;
 * until then, and wherever the rate stays unknown or CP__F_COUNTER is absent,
 * the calls decide by extent alone).
 */
#ifndef CP_RESIDENCY_H
#define CP_RESIDENCY_H

#include <stddef.h>
#include <stdint.h>
#include "counter.h"     /* arch/<arch>/: cp__counter_read() */
#include "policy.h"

#define CP__RESIDENCY_BATCH_PAGES     1024   /* 4 MiB: each decided anew */
/* 16 KiB: a 4 KiB chunk misjudged 63-100 % of LLC-resident targets on the
 * Intel VM (bench/results/intel-family6-model167/README.md); 64 KiB costs
 * more on cold ones. */
#define CP__RESIDENCY_CHUNK_PAGES     4
/* A chunk must last this many ticks at the threshold rate, else it is
 * doubled (a 25 MHz counter times 32 KiB); past 64 pages the counter is too
 * coarse to use. */
#define CP__RESIDENCY_MIN_TICKS       32
/* A chunk past both this many times the limit and the time it takes at
 * CP__RESIDENCY_STALL_MBPS is suspected of a stall or page faults, not of
 * cold memory. The factor: cold chunks took at most 2x the limit on the
 * Intel VM (bench/results/intel-family6-model167/README.md). The rate
 * separates them where a multiple of the limit alone does not: cold 16 KiB
 * chunks ran at 2.7 GB/s or faster, even in a slow memory spell of the Zen 5
 * VM, page faults at 1.4 GB/s or slower (bench/results/amd-zen5/README.md). */
#define CP__RESIDENCY_STALL_FACTOR    4
#define CP__RESIDENCY_STALL_MBPS      2000
#define CP__RESIDENCY_MAX_CHUNK_PAGES 64
/* The thread's histories below the route's bounds (route.h). */
#define CP__COLD_HISTORY_CALLS        64
#define CP__COLD_HISTORY_MAX_SHIFT    2      /* at most 64 << 2 calls apart */
/* ... an interval past 64 calls covers at most 4 MiB, and from 128 KiB one
 * covers 4 MiB of calls */
#define CP__COLD_HISTORY_SPACED_PAGES 1024
/* cp_clear_pages on the range this thread cleared last, cached on its last
 * CP__REUSE_MIN_CACHED_RUN clears or more: temporal over slow chunks, at most
 * CP__REUSE_GRACE_CALLS calls in a row (see the top). */
#define CP__REUSE_MIN_CACHED_RUN      3
#define CP__REUSE_GRACE_CALLS         4

/* How a chunk is timed: its size and the most ticks a cached one takes. */
struct cp__timing {
	size_t chunk_pages;       /* 0: this counter cannot time a chunk */
	uint64_t limit_ticks;
	uint64_t stall_ticks;     /* past this: a stall or page faults, perhaps */
};

/* Pure. The timing of chunks of at least min_pages for a threshold of mbps
 * and a counter of hz: min_pages doubled until the threshold time is
 * CP__RESIDENCY_MIN_TICKS; chunk_pages 0 (and a 0 return) where mbps or hz
 * is 0 or the chunk would pass CP__RESIDENCY_MAX_CHUNK_PAGES. */
int cp__timing_for(unsigned mbps, unsigned long long hz, size_t min_pages,
		   struct cp__timing *out);

/* Pure. What the chunks timed so far in one batch say (n = 1 or 2): cached
 * at or under the limit; another chunk after a first over STALL_FACTOR times
 * it, and cached if that one is as slow (faults); else uncached. */
enum { CP__UNCACHED = 0, CP__CACHED = 1, CP__TIME_ANOTHER = 2 };
int cp__residency_verdict(const struct cp__timing *t, const uint64_t *ticks, unsigned n);

/* What a clear of one extent will run: kernel throughout (uncached NULL), or,
 * per batch, kernel (temporal) while the target is cached, else uncached;
 * the timed chunks by `timed` (cp__chunk_kernel). */
struct cp__plan {
	const struct cp_kernel *kernel, *uncached, *timed;
	struct cp__timing timing;
	int untimed_cached;       /* a run too short to time: kernel (1) or uncached (0),
				     what the extent alone would choose */
	int reused;               /* kernel throughout, whatever the chunks say (they are
				     still timed, for the verdict cp__plan_run returns) */
};
static inline int cp__is_nt(const struct cp_kernel *k)
{
	return (k->flags & CP_NONTEMPORAL) != 0;
}

/* The temporal kernel whose chunk tells cached from uncached where `cached`
 * is the extent's: any's kernel for a chunk-sized clear (the widest vector
 * stores), unless the CPU keeps rep stosb level mid-band (CP__P_STRING_MID,
 * Intel), where the extent's own kernel is timed, as the Intel thresholds
 * were measured. A rep stosq chunk on the Zen 5 VM cannot tell: it timed
 * cold memory whose TLB entries were warm as fast as cached buffers
 * (462-546 ticks against p90 441, bench/results/amd-zen5/README.md); an
 * avx2 chunk there can. */
struct cp__state;
const struct cp_kernel *cp__chunk_kernel(const struct cp__state *s, const struct cp_kernel *cached,
					 size_t chunk_pages);

/* One chunk cleared by k between the counter's reads (counter.h: the start
 * fences the caller's stores, the end does not wait for the chunk's): its
 * ticks. The plans, the cold history and clearbench tune time chunks so. */
static inline uint64_t cp__timed_clear(const struct cp_kernel *k, void *addr, size_t npages)
{
	uint64_t t0 = cp__counter_start();
	k->clear(addr, npages);
	return cp__counter_read() - t0;
}

/* Run a plan over [addr, addr + npages) (a part of the extent it was made for:
 * route.h, cp__plan_for). 1 when every chunk it timed was cached (or it timed
 * none), else 0. */
int cp__plan_run(const struct cp__plan *pl, void *addr, size_t npages);

/* The counter's rate in Hz, 0 while unknown. */
unsigned long long cp__counter_hz(const struct cp__state *s);
/* Hosted: note the counter and the clock at the first use, for the rate. */
void cp__counter_calibration_start(void);
/* One reference point of the rate from n tries, each { counter, clock ns,
 * counter } read in that order: the try with the fewest ticks between its
 * two counter reads (no preemption or VM exit between them), its clock and
 * the middle of its counter reads. n >= 1. */
void cp__counter_pair_pick(const uint64_t (*tries)[3], unsigned n, uint64_t *ns, uint64_t *ticks);

#endif
