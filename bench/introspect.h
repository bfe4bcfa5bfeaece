/* SPDX-License-Identifier: MIT */
/*
 * What clearbench needs from the library beyond its public contract, in one
 * place: introspect.c is the only bench file that includes the library's own
 * headers (testhooks.h), so a change of its internals is adapted here only.
 */
#ifndef CLEARBENCH_INTROSPECT_H
#define CLEARBENCH_INTROSPECT_H

#include <stddef.h>
#include "clearpages.h"

struct bench_host {
	char vendor[16];           /* "GenuineIntel", "AuthenticAMD", "arm64" ... */
	char model[64];            /* brand string or MIDR description */
	char uarch[32];            /* "intel-sapphire-rapids", "amd-zen4" ...; "" unknown */
	char host_id[48];          /* uarch, else vendor-family-model: bench/results/<host_id>/ */
	unsigned family, model_id; /* x86 display family/model; 0 on arm64 */
	char features[160];        /* usable: detected minus CLEARPAGES_DISABLE */
	char detected[160];        /* as detected */
	size_t l2_bytes, llc_bytes;
	int forced;                /* CLEARPAGES_KERNEL forces one kernel */
};
void bench_host_get(struct bench_host *h);

/* The temporal kernel cp_zero(.., CP_ZERO_HOT) uses at npages (fault's all-temporal rows). */
const struct cp_kernel *bench_hot_kernel(size_t npages);
/* The kernel cp_clear_pages() uses at npages on memory the estimate finds
 * uncached, the estimate's threshold (MB/s; 0: none) and the extent from which
 * it runs (SIZE_MAX: never) -- the header's "uncached:" line. */
const struct cp_kernel *bench_uncached_kernel(size_t npages);
unsigned bench_cached_min_mbps(void);
size_t bench_estimate_from_pages(void);
/* The copy kernel cp_copy_pages() uses at npages where the thread's copy
 * history finds the memory uncached, and the extent from which copies are
 * estimated at all (SIZE_MAX: never) -- the header's "copy:" line. */
const struct cp_copy_kernel *bench_copy_uncached_kernel(size_t npages);
size_t bench_copy_estimate_from_pages(void);
/* Below this extent the thread's history decides, not a chunk per 4 MiB. */
size_t bench_history_below_pages(void);

/* The residency estimate's counter rate (Hz), waiting out its measurement
 * over the library's first 2 ms where CPUID does not give it (up to 20 ms);
 * 0 where there is no usable counter. Until then the calls decide by extent
 * alone: a CP_ZERO_COLD call on a hot 4 KiB buffer ran non-temporally, 8x
 * slower, through a sweep's whole first round (Zen 3 VM). */
unsigned long long bench_counter_rate(void);

/* The residency estimate's own chunk timing (common/residency.h), for tune:
 * how many pages a plan times per chunk with this counter (the threshold of
 * the policy in force decides how coarse a counter may be) and its rate in
 * *hz (waiting out the first use's calibration); 0 where the policy never
 * estimates (no usable counter, or a threshold of 0). Then one chunk, cleared by k at p between the
 * library's own counter reads, in ticks. */
size_t bench_chunk_pages(unsigned long long *hz);
/* The kernel a plan at npages clears its timed chunks of chunk_pages by
 * (cp__chunk_kernel: not always the extent's own). */
const struct cp_kernel *bench_chunk_kernel(size_t npages, size_t chunk_pages);
unsigned long long bench_time_chunk(const struct cp_kernel *k, void *p, size_t pages);

/* The kernel cp_clear_pages() uses at npages whatever the memory (the any bands). */
const struct cp_kernel *bench_any_kernel(size_t npages);
/* The policy in force's bands, the any ones (uncached 0) or the uncached ones
 * (1): where each starts (ascending, the first at 0) and its kernel; the count. */
#define BENCH_POLICY_MAX_BANDS 16
size_t bench_policy_bands(int uncached, size_t *from_pages, const struct cp_kernel **kernel);

/* tune's profile: the cpu line as the library's parser reads it (x86: vendor,
 * display family and model, brand; arm64: MIDR implementer and part) and the
 * brand; the profile text read by the library's own parser, for this CPU, with
 * this process's overrides: 0 and the policy made of it kept for
 * bench_profile_uncached, its discard_from in *discard_from_pages (SIZE_MAX:
 * none), or 1 after a message; the system profile's path. */
void bench_profile_cpu_line(char *buf, size_t len, const char **brand);
int bench_profile_read(const char *text, size_t len, size_t *discard_from_pages);
const struct cp_kernel *bench_profile_uncached(size_t npages);
const char *bench_system_profile_path(void);

/* tune's discard threshold: the extent cp_zero(CP_ZERO_MAY_DISCARD) hands back
 * as a whole (THP's 2 MiB where it is on), and the policy in force published
 * with discard_from one page (every extent discards; 0, or -1: nothing
 * changed), until bench_policy_restore. */
size_t bench_discard_unit(void);
int bench_policy_discard_all(void);

/* Fault's mixed rows: lower the non-temporal crossover to `pages` (every band
 * above it non-temporal), then put the policy back as it was. */
void bench_policy_nt_from(size_t pages);
int bench_policy_restore(void);   /* after either: 0, or -1 (publish refused) */

/* Parallel: the smallest share cp_clear_pages_parallel() splits into, and the
 * same call with another smallest share (the threshold table). */
size_t bench_parallel_min_share_pages(void);
int bench_clear_parallel_min(void *addr, size_t npages, unsigned nthreads, size_t min_share);

/* What cp_clear_pages, cp_zero(.., CP_ZERO_COLD) and cp_copy_pages ran, without
 * touching their path: bench_record_start publishes the policy in force with
 * every kernel of its band lists (any, hot, cold, uncached; copy,
 * copy_uncached) replaced by a recording wrapper (same name and flags; counts
 * pages, calls the real kernel); bench_record_stop publishes the saved policy
 * again and says how many pages each kernel cleared or copied in between,
 * by name. One thread at a time. start: 0, or -1 (nothing changed).
 * bench_ran_str: "avx2_nt_pf", or "avx2 75% + avx2_nt_pf 25%" by pages. */
#define BENCH_RAN_MAX 16
struct bench_ran {
	size_t n;
	const char *name[BENCH_RAN_MAX];
	unsigned long long pages[BENCH_RAN_MAX];
};
int bench_record_start(void);
void bench_record_stop(struct bench_ran *out);
void bench_ran_str(const struct bench_ran *r, char *buf, size_t len);

#endif
