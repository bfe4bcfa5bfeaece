/* SPDX-License-Identifier: MIT */
/*
 * The residency estimate (common/residency.h) as pure functions, fed the
 * chunk timings of described hosts, and the policy fields it reads (the
 * uncached bands, cached_min_mbps, estimate_from_pages,
 * cold_estimate_below_pages) for described CPUs, overrides and profiles.
 * Running clears: tests/test_residency_run.c.
 */
#include "select_util.h"
#include <errno.h>

/* Ticks of a counter at hz for `bytes` cleared at gbps (10^9 bytes/s): what a
 * host's recorded rate says its chunk takes. */
static uint64_t ticks_at(double gbps, double hz, size_t bytes)
{
	return (uint64_t)((double)bytes / (gbps * 1e9) * hz);
}

static const char *verdict_name(int v)
{
	return v == CP__CACHED ? "cached" : v == CP__UNCACHED ? "uncached" : "time another";
}

/* The verdict after each of the n chunks, as cp__plan_run asks for it. */
static void expect_verdicts(const char *who, const struct cp__timing *t, const uint64_t *ticks,
			    unsigned n, int want)
{
	int got = CP__TIME_ANOTHER;
	for (unsigned i = 1; i <= n && got == CP__TIME_ANOTHER; i++)
		got = cp__residency_verdict(t, ticks, i);
	cr_expect_eq(got, want, "%s: %s, want %s (limit %llu ticks)", who, verdict_name(got),
		     verdict_name(want), (unsigned long long)t->limit_ticks);
}
#define VERDICT(who, t, want, ...) \
	expect_verdicts(who, t, (const uint64_t[]){ __VA_ARGS__ }, \
			(unsigned)(sizeof((const uint64_t[]){ __VA_ARGS__ }) / sizeof(uint64_t)), want)

static struct cp__timing timing(unsigned mbps, double hz, size_t min_pages)
{
	struct cp__timing t;
	cr_assert_eq(cp__timing_for(mbps, (unsigned long long)hz, min_pages, &t), 1,
		     "%u MB/s, %.0f Hz, %zu pages: cannot time", mbps, hz, min_pages);
	return t;
}

/* The Intel family 6 model 167 VM (TSC 2.6 GHz, the generic 16000 MB/s):
 * 16 KiB temporal chunks measured 1500-1860 ticks on an LLC-resident target,
 * 4500-5400 on a cold one, ~338000 through a host-side stall. */
/* The rate's reference points: the try not interrupted between its counter
 * reads, whichever place it has. */
Test(residency, counter_pair_keeps_the_tightest_try)
{
	static const uint64_t tight[3] = { 9001000, 4800000, 9001040 };
	static const uint64_t loose[2][3] = {
		{ 1000, 500, 1000 + 9000000 },   /* preempted: 9 M ticks between the reads */
		{ 9002000, 4800600, 9002900 },
	};
	for (unsigned pos = 0; pos < 3; pos++) {
		uint64_t tries[3][3], ns, ticks;
		for (unsigned i = 0, l = 0; i < 3; i++)
			memcpy(tries[i], i == pos ? tight : loose[l++], sizeof(tight));
		cp__counter_pair_pick((const uint64_t (*)[3])tries, 3, &ns, &ticks);
		cr_expect_eq(ns, 4800000, "tight try at %u: clock %llu", pos, (unsigned long long)ns);
		cr_expect_eq(ticks, 9001020, "tight try at %u: counter %llu", pos,
			     (unsigned long long)ticks);
	}
}

Test(residency, intel_vm_chunk_timings)
{
	struct cp__timing t = timing(16000, 2.6e9, CP__RESIDENCY_CHUNK_PAGES);
	cr_expect_eq(t.chunk_pages, 4, "16 KiB chunks at 2.6 GHz");
	cr_expect_eq(t.limit_ticks, 2662, "16384 B at 16000 MB/s: 2662.4 ticks");
	VERDICT("LLC-resident, fastest", &t, CP__CACHED, 1500);
	VERDICT("LLC-resident, slowest", &t, CP__CACHED, 1860);
	VERDICT("at the limit", &t, CP__CACHED, 2662);
	VERDICT("just past it", &t, CP__UNCACHED, 2663);
	/* past 4x the limit and slower than 2000 MB/s: 21299 ticks */
	cr_expect_eq(t.stall_ticks, 21299, "16384 B at 2000 MB/s: 21299.2 ticks");
	VERDICT("8x the limit: still slow, not a stall", &t, CP__UNCACHED, 21299);
	VERDICT("past 2000 MB/s too: a stall, perhaps", &t, CP__TIME_ANOTHER, 21300);
	VERDICT("two such chunks: page faults, cached", &t, CP__CACHED, 338000, 30000);
	VERDICT("cold, twice", &t, CP__UNCACHED, 4500, 5400);
	VERDICT("a stall, then a cached chunk", &t, CP__CACHED, 338000, 1600);
	VERDICT("a stall, then a cold chunk", &t, CP__UNCACHED, 338000, 4800);
	VERDICT("cold: one chunk decides", &t, CP__UNCACHED, 5400, 1860);
	cr_expect_eq(cp__residency_verdict(&t, NULL, 0), CP__TIME_ANOTHER, "nothing timed yet");
	/* one page (cp_clear_pages_cold's sampled history): L1/L2-cached 112-362,
	 * cold 1456-2336 */
	struct cp__timing p = timing(16000, 2.6e9, 1);
	cr_expect_eq(p.chunk_pages, 1);
	VERDICT("4 KiB cached", &p, CP__CACHED, 112);
	VERDICT("4 KiB cached, slowest", &p, CP__CACHED, 362);
	VERDICT("4 KiB cold", &p, CP__UNCACHED, 1456, 2336);
}

/* Hosts without timed chunks: chunk ticks from the rates their built-in
 * thresholds were derived from (common/builtin.c), LLC-resident and DRAM.
 * (Zen 3 takes the generic threshold: builtins_uncached_from_their_l2.) */
Test(residency, builtin_hosts_chunk_timings)
{
	static const struct {
		const char *who;
		unsigned mbps;
		double hz, llc_gbps, dram_gbps;
	} hosts[] = {
		{ "Sapphire Rapids (TSC 2.1 GHz)", 17000, 2.1e9, 28.0, 10.3 },
		{ "Emerald Rapids (TSC 2.1 GHz)", 11500, 2.1e9, 21.0, 6.3 },
	};
	const size_t bytes = CP__RESIDENCY_CHUNK_PAGES * CP_PAGE_SIZE;
	for (size_t i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++) {
		struct cp__timing t = timing(hosts[i].mbps, hosts[i].hz, CP__RESIDENCY_CHUNK_PAGES);
		cr_expect_eq(t.chunk_pages, CP__RESIDENCY_CHUNK_PAGES, "%s", hosts[i].who);
		uint64_t llc = ticks_at(hosts[i].llc_gbps, hosts[i].hz, bytes);
		uint64_t dram = ticks_at(hosts[i].dram_gbps, hosts[i].hz, bytes);
		VERDICT(hosts[i].who, &t, CP__CACHED, llc);
		VERDICT(hosts[i].who, &t, CP__UNCACHED, dram, dram);
		VERDICT(hosts[i].who, &t, CP__CACHED, 100 * t.limit_ticks, llc);   /* a stall */
	}
}

/* A slow counter needs a longer chunk (32 ticks at the threshold rate); one
 * too slow for 256 KiB cannot time at all. */
Test(residency, chunk_grows_with_a_slow_counter)
{
	static const struct {
		const char *who;
		unsigned mbps;
		unsigned long long hz;
		size_t min_pages, chunk;
		uint64_t limit;
	} rows[] = {
		{ "arm64 CNTFRQ 25 MHz: 16 KiB is 25 ticks, 32 KiB 51", 16000, 25000000, 4, 8, 51 },
		{ "arm64 CNTFRQ 1 GHz keeps 16 KiB", 16000, 1000000000, 4, 4, 1024 },
		{ "25 MHz at 52000 MB/s: 128 KiB", 52000, 25000000, 4, 32, 63 },
		{ "25 MHz, one page asked (the cold history): 32 KiB", 16000, 25000000, 1, 8, 51 },
		{ "a 10^18 Hz counter: no 64-bit overflow", 16000, 1000000000000000000ull, 4, 4,
		  1024000000000ull },
		{ "1 MHz: 256 KiB would be 16 ticks", 16000, 1000000, 4, 0, 0 },
		{ "no counter rate", 16000, 0, 4, 0, 0 },
		{ "no threshold (never estimate)", 0, 2600000000ull, 4, 0, 0 },
		{ "no pages", 16000, 2600000000ull, 0, 0, 0 },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct cp__timing t = { 99, 99, 99 };
		int ok = cp__timing_for(rows[i].mbps, rows[i].hz, rows[i].min_pages, &t);
		cr_expect_eq(ok, rows[i].chunk != 0, "%s: returned %d", rows[i].who, ok);
		cr_expect_eq(t.chunk_pages, rows[i].chunk, "%s: %zu pages, want %zu", rows[i].who,
			     t.chunk_pages, rows[i].chunk);
		cr_expect_eq(t.limit_ticks, rows[i].limit, "%s: limit %llu, want %llu", rows[i].who,
			     (unsigned long long)t.limit_ticks, (unsigned long long)rows[i].limit);
	}
}

/* The limit is floor(chunk bytes * hz / (mbps * 10^6)) exactly, computed
 * here in 128 bits (the library divides in 64-bit steps: the freestanding
 * object links no libgcc), and the chunk the smallest doubling that lasts 32
 * ticks. */
static void expect_exact(unsigned mbps, unsigned long long hz, size_t min_pages)
{
	unsigned __int128 d = (unsigned __int128)mbps * 1000000u;
	size_t want_pages = 0;
	uint64_t want = 0;
	for (size_t pg = min_pages; pg <= CP__RESIDENCY_MAX_CHUNK_PAGES && !want_pages; pg *= 2) {
		unsigned __int128 q = (unsigned __int128)pg * CP_PAGE_SIZE * hz / d;
		if (q >= CP__RESIDENCY_MIN_TICKS)
			want_pages = pg, want = (uint64_t)q;
	}
	struct cp__timing t;
	int ok = cp__timing_for(mbps, hz, min_pages, &t);
	cr_expect(ok == (want_pages != 0) && t.chunk_pages == want_pages && t.limit_ticks == want,
		  "%u MB/s, %llu Hz, from %zu pages: %zu pages, %llu ticks; want %zu, %llu",
		  mbps, hz, min_pages, t.chunk_pages, (unsigned long long)t.limit_ticks,
		  want_pages, (unsigned long long)want);
}

Test(residency, limit_is_the_exact_quotient)
{
	static const unsigned mbps[] = { 1, 999, 11500, 16000, 17000, 36000, 52000, 4294967295u };
	static const unsigned long long hz[] = { 1000007, 25000000, 62500000, 1000000000,
						 2599986695ull, 2100000000, 1000000000000000000ull,
						 18446744073709551615ull };
	static const size_t min_pages[] = { 1, 3, 4 };
	for (size_t m = 0; m < sizeof(mbps) / sizeof(mbps[0]); m++)
		for (size_t h = 0; h < sizeof(hz) / sizeof(hz[0]); h++)
			for (size_t p = 0; p < sizeof(min_pages) / sizeof(min_pages[0]); p++)
				expect_exact(mbps[m], hz[h], min_pages[p]);
}

/* What the calls read: the cached and uncached bands, the threshold and where
 * each estimate applies. */
static void expect_residency(const char *who, const struct cp__policy *p,
			     const struct want_band *any, unsigned nany,
			     const struct want_band *unc, unsigned nunc,
			     unsigned mbps, size_t estimate_from, size_t cold_below)
{
	assert_bands(who, "any", &p->any, any, nany);
	assert_bands(who, "uncached", &p->uncached, unc, nunc);
	cr_expect_eq(p->cached_min_mbps, mbps, "%s: cached_min_mbps %u, want %u", who,
		     p->cached_min_mbps, mbps);
	cr_expect_eq(p->estimate_from_pages, estimate_from, "%s: estimate from %zu, want %zu",
		     who, p->estimate_from_pages, estimate_from);
	cr_expect_eq(p->cold_estimate_below_pages, cold_below, "%s: cold estimate below %zu, want %zu",
		     who, p->cold_estimate_below_pages, cold_below);
}

#if defined(__x86_64__)
enum { ERMS = CP__F_ERMS, FSRM = CP__F_FSRM, AVX2 = CP__F_AVX2, CLZ = CP__F_CLZERO,
       Z512 = CP__F_AVX512, CTR = CP__F_COUNTER };

/* A described host's 16 KiB chunk timing at its policy's threshold. */
static struct cp__timing host_chunks(const char *who, const struct described *d, double hz)
{
	struct cp__timing t = timing(d->policy.cached_min_mbps, hz, CP__RESIDENCY_CHUNK_PAGES);
	cr_expect_eq(t.chunk_pages, 4, "%s: 16 KiB chunks at %.3f GHz", who, hz / 1e9);
	return t;
}

/* One page, as cp_clear_pages_cold's history times it: cached at the p90 of
 * pages of buffers up to 4 MiB, over the limit at the p10 of cold ones (the
 * history compares once: no second chunk). */
static void host_page(const char *who, const struct described *d, double hz,
		      uint64_t cached_p90, uint64_t cold_p10)
{
	struct cp__timing p = timing(d->policy.cached_min_mbps, hz, 1);
	VERDICT(who, &p, CP__CACHED, cached_p90);
	cr_expect_gt(cold_p10, p.limit_ticks, "%s: 4 KiB cold, p10 %llu: over the %llu-tick limit",
		     who, (unsigned long long)cold_p10, (unsigned long long)p.limit_ticks);
}

/* The Zen 4 VM (TSC 2.596 GHz, builtin amd-zen4: 20000 MB/s), medians and
 * tails of 401 timed chunks (bench/results/amd-zen4/README.md): 16 KiB
 * chunks of a target just cleared took 390-546 ticks in L2, p90 1352 at
 * 16 MiB (LLC-resident), p10 3536 / p50 4264 / p90 5408 on the cold pool;
 * one page 130-286 cached to 4 MiB, 1248-2262 cold. At the streaming rates'
 * 52000 MB/s these L2 and LLC chunks were "uncached" 9-35 % of the time. */
static struct described zen4_vm(void)
{
	return x86_caches("AuthenticAMD", 0x19, 0x11, ERMS | FSRM | AVX2 | CLZ | Z512 | CTR, 1024,
			  32);
}

Test(residency, zen4_vm_chunk_timings)
{
	struct described z4 = zen4_vm();
	struct cp__timing t = host_chunks("zen4", &z4, 2.596e9);
	VERDICT("L2-resident, p90 of the first probe", &t, CP__CACHED, 1326);
	VERDICT("LLC-resident 16 MiB, p90", &t, CP__CACHED, 1352);
	VERDICT("LLC-resident 16 MiB, p99", &t, CP__CACHED, 1742);
	VERDICT("cold, p10", &t, CP__UNCACHED, 3536);
	VERDICT("cold, p90", &t, CP__UNCACHED, 5408);
	VERDICT("a stall, then LLC-resident", &t, CP__CACHED, 400000, 910);
	host_page("zen4, one page", &z4, 2.596e9, 286, 1248);
}

/* The Zen 3 VM (TSC 2.445 GHz, builtin amd-zen3: 16000 MB/s), 401 timed
 * chunks each (bench/results/amd-zen3/README.md): 16 KiB chunks of a buffer
 * of 16 KiB-8 MiB just cleared took p90 466-1078 ticks (at most 7 of 401 past
 * the limit at 16000-20000 MB/s, 2002-2503 ticks); a 16 MiB one (not held by
 * this VM's L3) p10 1837 / p50 2646-5096; cold slots p10 5047-5758 / p50
 * 6517-7571, and tune's cold p10 4263. One page: 196-294 at p90 to 4 MiB,
 * 1543 cold at p10. */
static struct described zen3_vm(void)
{
	return x86_caches("AuthenticAMD", 0x19, 0x01, ERMS | FSRM | AVX2 | CLZ | CTR, 512, 32);
}

Test(residency, zen3_vm_chunk_timings)
{
	struct described z3 = zen3_vm();
	struct cp__timing t = host_chunks("zen3", &z3, 2.445e9);
	VERDICT("L2-resident 16 KiB, p90", &t, CP__CACHED, 466);
	VERDICT("4 MiB just cleared, p90", &t, CP__CACHED, 1078);
	VERDICT("8 MiB just cleared, p90", &t, CP__CACHED, 931);
	VERDICT("cold, tune's p10", &t, CP__UNCACHED, 4263);
	VERDICT("cold, p10", &t, CP__UNCACHED, 5047);
	VERDICT("cold, p90", &t, CP__UNCACHED, 10951);
	/* past 4x the limit and 2000 MB/s: another chunk is timed, and a cold
	 * one decides */
	VERDICT("cold, then p50", &t, CP__UNCACHED, 21000, 6517);
	VERDICT("16 MiB, not held by the L3: p50", &t, CP__UNCACHED, 2646);
	VERDICT("a stall, then cached", &t, CP__CACHED, 400000, 1078);
	host_page("zen3, one page", &z3, 2.445e9, 294, 1543);
}

/* The Zen 5 VM (TSC 2.096 GHz, builtin amd-zen5: 34000 MB/s), 201 timed
 * clears each (bench/results/amd-zen5/README.md): 16 KiB chunks of buffers
 * of 64 KiB-16 MiB just cleared p90 210-525 ticks, of a cold pool (4 KiB
 * pages or THP) p10 2037-2457, cold with the TLB warm (a cold extent's later
 * batches) p10 1113-1218; one page p90 105-189 to 4 MiB, 357 at 16 MiB,
 * cold p10 1134-1533. */
static struct described zen5_vm(void)
{
	return x86_caches("AuthenticAMD", 0x1a, 0x02, ERMS | FSRM | AVX2 | CLZ | Z512 | CTR, 1024,
			  32);
}

Test(residency, zen5_vm_chunk_timings)
{
	struct described z5 = zen5_vm();
	cr_assert_str_eq(z5.source, "builtin:amd-zen5");
	struct cp__timing t = host_chunks("zen5", &z5, 2.096e9);
	VERDICT("L2-resident 64 KiB, p90", &t, CP__CACHED, 210);
	VERDICT("LLC-resident 16 MiB, p90", &t, CP__CACHED, 525);
	VERDICT("cold pool, p10", &t, CP__UNCACHED, 2037);
	VERDICT("cold pool, p50", &t, CP__UNCACHED, 2961);
	VERDICT("cold, TLB warm, p10", &t, CP__UNCACHED, 1113);
	VERDICT("cold pool in a slow spell, p50 (11x the limit, 5.5 us)", &t, CP__UNCACHED, 11529);
	VERDICT("cold pool in a slow spell, p90", &t, CP__UNCACHED, 12915);
	VERDICT("page faults (4 KiB pages), p10, twice", &t, CP__CACHED, 96180, 94059);
	host_page("zen5, one page", &z5, 2.096e9, 189, 1134);
}

/* The kernel a plan's timed chunk is cleared by, for a described host's
 * policy at an extent. */
static const char *chunk_kernel_at(const struct described *d, size_t extent)
{
	struct cp__state s;
	memset(&s, 0, sizeof(s));
	s.cpu = d->cpu;
	s.policy = d->policy;
	return cp__chunk_kernel(&s, cp__bands_pick(&d->policy.any, extent),
				CP__RESIDENCY_CHUNK_PAGES)->name;
}

#define INTEL_ALL (ERMS | FSRM | AVX2 | Z512 | CTR)

/* The Intel family 6 model 167 VM: no built-in, L2 2 MiB, CPUID LLC 480 MiB. */
static struct described intel_vm(void)
{
	return x86_caches("GenuineIntel", 6, 0xa7, INTEL_ALL, 2048, 480);
}

/* The generic threshold (common/select.c: 16000 MB/s, from this VM's
 * chunks) as the rule gives it to the VM, on the chunks the VM recorded
 * (intel_vm_chunk_timings, above): 16 KiB LLC-resident 1500-1860 ticks
 * cached, cold 4500-5400 not; one page 112-362 cached, cold 1456-2336 not.
 * Read from the policy, so a threshold moved off what the VM measured fails
 * here, not only where a test names the constant. */
Test(residency, generic_threshold_on_the_intel_vm_chunks)
{
	struct described d = intel_vm();
	cr_assert_str_eq(d.source, "generic");
	struct cp__timing t = host_chunks("6/167", &d, 2.6e9);
	VERDICT("6/167 LLC-resident, fastest", &t, CP__CACHED, 1500);
	VERDICT("6/167 LLC-resident, slowest", &t, CP__CACHED, 1860);
	VERDICT("6/167 cold, twice", &t, CP__UNCACHED, 4500, 5400);
	VERDICT("6/167 a stall, then a cached chunk", &t, CP__CACHED, 338000, 1600);
	host_page("6/167, one page", &d, 2.6e9, 362, 1456);
}

/* Zen 5 clears 1-16 MiB with rep stosq, whose 16 KiB chunk times cold
 * memory with a warm TLB (462-546 ticks) as fast as a cached buffer (p90
 * 441): its chunks are avx2's. Intel's rep stosb chunks tell the two apart
 * (6/167: 1526-1860 against 4520-5430 ticks) and keep timing themselves. */
Test(residency, chunks_are_timed_by_a_kernel_that_tells)
{
	struct described z5 = zen5_vm();
	cr_assert_str_eq(cp__bands_pick(&z5.policy.any, MIB_PAGES(2))->name, "rep_stosq");
	cr_expect_str_eq(chunk_kernel_at(&z5, MIB_PAGES(2)), "avx2", "zen5 at 2 MiB");
	cr_expect_str_eq(chunk_kernel_at(&z5, MIB_PAGES(16)), "avx2", "zen5 at 16 MiB");
	struct described i167 = intel_vm();
	cr_assert_str_eq(cp__bands_pick(&i167.policy.any, MIB_PAGES(2))->name, "rep_stosb");
	cr_expect_str_eq(chunk_kernel_at(&i167, MIB_PAGES(2)), "rep_stosb", "6/167 at 2 MiB");
	struct described emr = x86_caches("GenuineIntel", 6, 0xcf, INTEL_ALL, 2048, 300);
	cr_expect_str_eq(chunk_kernel_at(&emr, MIB_PAGES(2)), "rep_stosb", "emerald rapids at 2 MiB");
	struct described z4 = zen4_vm();
	cr_expect_str_eq(chunk_kernel_at(&z4, MIB_PAGES(2)), "avx2", "zen4 at 2 MiB");
}

/* The recorded sweeps of every host, scored with the host's row withheld
 * and with it: tests/test_generic_rule.c. */

Test(residency, generic_rule_goes_non_temporal_from_16k_when_uncached)
{
	struct described d = intel_vm();
	cr_expect_str_eq(d.source, "generic");
	expect_residency("6/167", &d.policy,
			 BANDS({ 0, "avx512" }, { 4, "rep_stosb" }, { MIB_PAGES(64), "avx2_nt" }),
			 BANDS({ 0, "rep_stosb" }, { 4, "avx2_nt" }),
			 16000, 0, MIB_PAGES(64));
	/* without ERMS or FSRS rep stosb is not ranked: any's rows below 16 KiB,
	 * and nothing is timed there */
	struct described plain = x86_caches("AuthenticAMD", 0x17, 0x31, AVX2 | CTR, 512, 16);
	cr_expect_str_eq(plain.source, "generic");
	expect_residency("no erms", &plain.policy,
			 BANDS({ 0, "avx2" }, { MIB_PAGES(8), "avx2_nt" }),
			 BANDS({ 0, "avx2" }, { 4, "avx2_nt" }), 16000, 4, MIB_PAGES(8));
}

/* The uncached bands of a built-in row, by the rule every source shares
 * (common/select.c, docs/generic-rule.md): below 16 KiB the first vector
 * non-temporal kernel where short clears allocate every line
 * (CP__P_SHORT_UNCACHED_NT), else rep stosb where the CPU ranks it (ERMS or
 * FSRS), else the cached bands; from 16 KiB non-temporal, any's first
 * non-temporal kernel, then any's own non-temporal bands. Where the
 * estimate applies follows from the two lists; the threshold is the row's,
 * or the generic 16000 MB/s (whether a row's threshold tells a host's
 * cached chunks from its cold ones: the *_vm_chunk timing tests above, from
 * recorded timings). The rows' bands themselves are held to their hosts'
 * tables in tests/test_builtin_rows.c. */
#define UNCACHED_NT_FROM 4      /* pages: 16 KiB */
static void expect_uncached_rule(const char *who, const struct described *d)
{
	const struct cp__policy *p = &d->policy;
	const struct cp_kernel *string = cp__list_find(&d->usable, "rep_stosb"), *vector_nt = NULL;
	int ranked = (d->cpu.features & (CP__F_ERMS | CP__F_FSRS)) != 0;
	for (size_t i = 0; i < d->usable.n && !vector_nt; i++) {
		const struct cp_kernel *k = d->usable.k[i];
		int zmm = !strncmp(k->name, "avx512", 6);
		if ((k->flags & CP_NONTEMPORAL) && (k->flags & CP_SIMD) &&
		    !(zmm && (d->cpu.prefs & CP__P_NO_AVX512)))
			vector_nt = k;
	}
	size_t nt_from = cp__policy_nt_from(p), differ = CP__BAND_UNUSED;
	const struct cp_kernel *first_nt = nt_from == CP__BAND_UNUSED ? NULL
								      : cp__bands_pick(&p->any, nt_from);
	for (size_t e = 1; e <= ((size_t)1 << 20); e++) {
		const struct cp_kernel *any = cp__bands_pick(&p->any, e);
		const struct cp_kernel *unc = cp__bands_pick(&p->uncached, e);
		if (differ == CP__BAND_UNUSED && any != unc)
			differ = e == 1 ? 0 : e;
		if (e < UNCACHED_NT_FROM && (d->cpu.prefs & CP__P_SHORT_UNCACHED_NT))
			cr_assert((unc->flags & CP_NONTEMPORAL) && (!vector_nt || unc == vector_nt),
				  "%s: uncached at %zu pages %s, short clears allocate here", who, e,
				  unc->name);
		else if (e < UNCACHED_NT_FROM)
			cr_assert_eq(unc, ranked && string ? string : any,
				     "%s: uncached at %zu pages %s (any %s)", who, e, unc->name, any->name);
		else if (e == UNCACHED_NT_FROM && first_nt)
			cr_assert_eq(unc, first_nt, "%s: uncached from 16 KiB %s, any's first "
				     "non-temporal %s", who, unc->name, first_nt->name);
		else if (e == UNCACHED_NT_FROM)
			cr_assert(unc->flags & CP_NONTEMPORAL, "%s: uncached from 16 KiB %s", who,
				  unc->name);
		else if (any->flags & CP_NONTEMPORAL)
			cr_assert_eq(unc, any, "%s: uncached at %zu pages %s, any %s", who, e,
				     unc->name, any->name);
		else
			cr_assert_eq(unc, cp__bands_pick(&p->uncached, e - 1),
				     "%s: uncached changes at %zu pages where any stays temporal", who, e);
		if (e >= 4096)
			e = e * 2 - 1;       /* from 16 MiB on: powers of two */
	}
	cr_expect_eq(p->estimate_from_pages, differ, "%s: estimate from %zu, the lists part at %zu",
		     who, p->estimate_from_pages, differ);
	cr_expect_eq(p->cold_estimate_below_pages, nt_from == CP__BAND_UNUSED ? nt_from - 1 : nt_from,
		     "%s: cold estimate below %zu, any non-temporal from %zu", who,
		     p->cold_estimate_below_pages, nt_from);
}

Test(residency, builtins_uncached_bands)
{
	const struct described hosts[] = {
		x86_caches("GenuineIntel", 6, 0x8f, INTEL_ALL, 2048, 480),
		x86_caches("GenuineIntel", 6, 0xcf, INTEL_ALL, 2048, 300),
		zen3_vm(), zen4_vm(), zen5_vm(),
	};
	size_t rows_seen = 0;
	for (size_t h = 0; h < sizeof(hosts) / sizeof(hosts[0]); h++) {
		const struct described *d = &hosts[h];
		const struct cp__builtin *b = cp__builtin_find(d->cpu.uarch);
		cr_assert_not_null(b, "%s: no built-in row", d->cpu.uarch);
		rows_seen++;
		char who[64];
		snprintf(who, sizeof(who), "builtin:%s", b->uarch);
		cr_expect_str_eq(d->source, who);
		expect_uncached_rule(who, d);
		cr_expect_eq(d->policy.cached_min_mbps, b->cached_min_mbps ? b->cached_min_mbps : 16000,
			     "%s: cached_min_mbps %u", who, d->policy.cached_min_mbps);
		cr_expect_eq(d->policy.discard_from_pages,
			     b->discard_from_pages ? b->discard_from_pages : MIB_PAGES(4),
			     "%s: discard_from %zu", who, d->policy.discard_from_pages);
	}
	cr_expect_eq(rows_seen, cp__builtins_len, "a row this test does not describe");
	/* a tuned profile's bands were measured on that machine: its uncached
	 * bands derive from them by the same rule */
	struct described z3 = zen3_vm();
	static const char tuned[] = "version 2\ncpu AuthenticAMD 25 1 described\n"
				    "band 0 avx2\nband 8M avx2_nt\nend\n";
	struct cp__profile pr;
	struct cp__profile_error err;
	cr_assert_eq(cp__profile_parse(tuned, sizeof(tuned) - 1, &z3.usable, &pr, &err), 0,
		     "line %u: %s", err.line, err.why);
	select_for(&z3, 0, &pr);
	expect_residency("zen3 tuned", &z3.policy, BANDS({ 0, "avx2" }, { MIB_PAGES(8), "avx2_nt" }),
			 BANDS({ 0, "avx2_nt" }), 16000, 0, MIB_PAGES(8));
	expect_uncached_rule("zen3 tuned", &z3);
	/* the same rule for the generic one, without a ranked rep stosb */
	struct described plain = x86_caches("AuthenticAMD", 0x17, 0x31, AVX2 | CTR, 512, 16);
	expect_uncached_rule("no erms", &plain);
}

/* CLEARPAGES_DISABLE=counter (or a CPU without one): the bands stay, no call
 * estimates. */
Test(residency, no_counter_decides_by_extent_alone)
{
	cr_expect_eq(cp__disable_parse("counter", NULL, NULL), CP__F_COUNTER);
	cr_expect_eq(cp__disable_parse(" Counter ", NULL, NULL), CP__F_COUNTER);
	struct described d = intel_vm();
	select_for(&d, CP__F_COUNTER, NULL);
	expect_residency("6/167 -counter", &d.policy,
			 BANDS({ 0, "avx512" }, { 4, "rep_stosb" }, { MIB_PAGES(64), "avx2_nt" }),
			 BANDS({ 0, "rep_stosb" }, { 4, "avx2_nt" }),
			 0, CP__BAND_UNUSED, 0);
	/* a built-in row's CPU without a counter: the bands it has with one */
	struct described z4 = x86_caches("AuthenticAMD", 0x19, 0x11, ERMS | FSRM | AVX2 | CLZ | Z512,
					 1024, 32);
	struct described with = zen4_vm();
	cr_expect_str_eq(z4.source, with.source);
	cr_expect(cp__bands_eq(&z4.policy.any, &with.policy.any), "zen4 without a counter: any moved");
	cr_expect(cp__bands_eq(&z4.policy.uncached, &with.policy.uncached),
		  "zen4 without a counter: uncached moved");
	cr_expect_eq(z4.policy.cached_min_mbps, 0);
	cr_expect_eq(z4.policy.estimate_from_pages, CP__BAND_UNUSED);
	cr_expect_eq(z4.policy.cold_estimate_below_pages, 0);
}

/* CLEARPAGES_NT_THRESHOLD says where non-temporal stores begin whatever the
 * memory; CLEARPAGES_KERNEL replaces every kernel of all four lists. */
Test(residency, overrides_leave_nothing_to_estimate)
{
	struct described d = intel_vm();
	struct cp__select_in in = { &d.cpu, &d.usable, NULL, 1, 256, NULL, NULL };   /* 1 MiB */
	cp__select(&in, &d.policy);
	expect_residency("nt=1M", &d.policy,
			 BANDS({ 0, "avx512" }, { 4, "rep_stosb" }, { 256, "avx2_nt" }),
			 BANDS({ 0, "avx512" }, { 4, "rep_stosb" }, { 256, "avx2_nt" }),
			 16000, CP__BAND_UNUSED, 256);
	in.has_nt_threshold = 0;
	in.forced = cp__list_find(&d.usable, "movq");
	cp__select(&in, &d.policy);
	const struct cp__bands *lists[] = { &d.policy.any, &d.policy.hot, &d.policy.cold,
					    &d.policy.uncached };
	for (unsigned l = 0; l < 4; l++)
		assert_bands("forced movq", "list", lists[l], BANDS({ 0, "movq" }));
	cr_expect_eq(d.policy.estimate_from_pages, CP__BAND_UNUSED, "forced: nothing to choose");
}

/* Profiles for the Intel VM: 0 and the policy, or -EINVAL and why. */
static int parse(const struct described *d, const char *body, struct cp__profile *pr,
		 struct cp__profile_error *err)
{
	char text[600];
	snprintf(text, sizeof(text), "%s\narch x86_64\ncpu GenuineIntel 6 167 described\n"
		 "band 0 avx2\nband 8M avx2_nt\n%send\n", body[0] == '2' ? "version 2" : "version 3",
		 body + 1);
	return cp__profile_parse(text, strlen(text), &d->usable, pr, err);
}

static void expect_profile(const char *who, const char *body, const struct want_band *unc,
			   unsigned nunc, unsigned mbps, size_t estimate_from, size_t cold_below)
{
	struct described d = intel_vm();
	struct cp__profile pr;
	struct cp__profile_error err;
	cr_assert_eq(parse(&d, body, &pr, &err), 0, "%s: line %u: %s", who, err.line, err.why);
	select_for(&d, 0, &pr);
	expect_residency(who, &d.policy, BANDS({ 0, "avx2" }, { MIB_PAGES(8), "avx2_nt" }),
			 unc, nunc, mbps, estimate_from, cold_below);
}

Test(residency, profiles_v3_and_v2)
{
	/* body: the version digit, then the lines between the bands and `end` */
	expect_profile("v3 explicit", "3uncached_band 0 avx2\nuncached_band 256k avx2_nt\n"
		       "cached_min_mbps 20000\n", BANDS({ 0, "avx2" }, { 64, "avx2_nt" }),
		       20000, 64, MIB_PAGES(8));
	expect_profile("v3 uncached to rep_stosb", "3uncached_band 0 avx2\n"
		       "uncached_band 64k rep_stosb\nuncached_band 4M avx2_nt\n",
		       BANDS({ 0, "avx2" }, { 16, "rep_stosb" }, { MIB_PAGES(4), "avx2_nt" }),
		       16000, 16, MIB_PAGES(8));
	/* derived: rep stosb (ERMS) below 64 KiB, as for every source */
	expect_profile("v3 derived", "3", BANDS({ 0, "rep_stosb" }, { 4, "avx2_nt" }),
		       16000, 0, MIB_PAGES(8));
	expect_profile("v2 derived", "2", BANDS({ 0, "rep_stosb" }, { 4, "avx2_nt" }),
		       16000, 0, MIB_PAGES(8));
	expect_profile("v3 never estimate", "3cached_min_mbps 0\n",
		       BANDS({ 0, "rep_stosb" }, { 4, "avx2_nt" }), 0, CP__BAND_UNUSED, 0);
}

Test(residency, profile_keys_refused)
{
	static const struct { const char *who, *body; unsigned line; } bad[] = {
		{ "v2 with uncached_band", "2uncached_band 0 avx2\n", 6 },
		{ "v2 with cached_min_mbps", "2cached_min_mbps 16000\n", 6 },
		{ "cached_min_mbps twice", "3cached_min_mbps 1\ncached_min_mbps 2\n", 7 },
		{ "cached_min_mbps not a number", "3cached_min_mbps fast\n", 6 },
		{ "cached_min_mbps past 32 bits", "3cached_min_mbps 4294967296\n", 6 },
		{ "uncached_band not from 0", "3uncached_band 4k avx2\n", 6 },
		{ "uncached_band descending", "3uncached_band 0 avx2\nuncached_band 0 avx2_nt\n", 7 },
		{ "uncached_band unknown kernel", "3uncached_band 0 warp_drive\n", 6 },
	};
	struct described d = intel_vm();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct cp__profile pr;
		struct cp__profile_error err;
		cr_expect_eq(parse(&d, bad[i].body, &pr, &err), -EINVAL, "%s: accepted", bad[i].who);
		cr_expect_eq(err.line, bad[i].line, "%s: line %u (%s), want %u", bad[i].who,
			     err.line, err.why, bad[i].line);
	}
	struct cp__profile pr;
	struct cp__profile_error err;
	cr_expect_eq(parse(&d, "2uncached_band 0 avx2\n", &pr, &err), -EINVAL);
	cr_expect_str_eq(err.why, "unknown key", "a version-2 file knows no uncached_band");
	static const char v1[] = "version 1\ncached_min_mbps 16000\n";
	cr_expect_eq(cp__profile_parse(v1, sizeof(v1) - 1, &d.usable, &pr, &err), -EINVAL,
		     "a version-1 file knows no cached_min_mbps");
}
#endif

#if defined(__aarch64__)
Test(residency, arm64_generic_uncached_from_16k)
{
	struct described d = arm(CP__F_DCZVA | CP__F_COUNTER, 64);
	expect_residency("a53", &d.policy, BANDS({ 0, "dc_zva" }, { MIB_PAGES(4), "stnp" }),
			 BANDS({ 0, "dc_zva" }, { 4, "stnp" }), 16000, 4, MIB_PAGES(4));
	struct described n = arm(CP__F_DCZVA, 64);
	cr_expect_eq(n.policy.estimate_from_pages, CP__BAND_UNUSED, "no counter: no estimate");
}
#endif
