/* SPDX-License-Identifier: MIT */
/*
 * The checked entry points: argument checks exactly as the contract states,
 * then one kernel call. Nothing is written when a check fails. Also the
 * registry's public face (cp_kernels, cp_kernel_find, cp_kernel_for).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include "route.h"
#ifndef CLEARPAGES_FREESTANDING
#include "discard.h"
#include "fill.h"
#include "parallel.h"
#include "resident.h"
#endif

#define CP_STR2(x) #x
#define CP_STR(x) CP_STR2(x)

const char *cp_version(void)
{
	return CP_STR(CP_VERSION_MAJOR) "." CP_STR(CP_VERSION_MINOR) "." CP_STR(CP_VERSION_PATCH);
}

/* ---- cp_zero: every intent, any address, any length ---- */

#define ZERO_FLAGS (CP_ZERO_HOT | CP_ZERO_COLD | CP_ZERO_PARALLEL | CP_ZERO_MAY_DISCARD | \
		    CP_ZERO_RESIDENT | CP_ZERO_HUGE_PAGES)

/* The route of a page clear's intent (route.h). */
static inline enum cp__route intent_route(unsigned flags)
{
	return flags & CP_ZERO_HOT ? CP__ROUTE_HOT : flags & CP_ZERO_COLD ? CP__ROUTE_COLD
									   : CP__ROUTE_ANY;
}

#ifndef CLEARPAGES_FREESTANDING
/* The plan of an intent made for a whole extent, which its parts then run
 * (the shares of a parallel clear, RESIDENT's runs of present pages). */
static void intent_plan(const struct cp__state *s, size_t npages, unsigned flags,
			struct cp__plan *pl)
{
	cp__plan_for(s, intent_route(flags), npages, pl);
}

/* The shares of a parallel clear run the intent's plan, made for the whole
 * extent as cp_clear_pages_parallel makes any's. */
static void zero_parallel(const struct cp__state *s, void *addr, size_t npages, unsigned flags)
{
	struct cp__plan pl;
	intent_plan(s, npages, flags, &pl);
	size_t share = __atomic_load_n(&s->policy.parallel_min_share_pages, __ATOMIC_RELAXED);
	cp__clear_parallel_plan(addr, npages, 0, share ? share : SIZE_MAX, &pl);
}
#endif

/* Whole pages with stores, by intent (the bodies of the page calls). */
static inline void zero_pages_in(const struct cp__state *s, void *addr, size_t npages,
				 unsigned flags)
{
#ifndef CLEARPAGES_FREESTANDING
	if (flags & CP_ZERO_PARALLEL) {
		zero_parallel(s, addr, npages, flags);
		return;
	}
#endif
	cp__clear_routed(s, intent_route(flags), addr, npages);
}

static inline void zero_pages(void *addr, size_t npages, unsigned flags)
{
	zero_pages_in(cp__state(), addr, npages, flags);
}

/* A process's first call: it publishes the state, whatever the arguments
 * (a zero-length or rejected call initialises too, so that "a call has
 * returned" makes every later one async-signal-safe). Out of line, so that
 * the calls after it keep no register across a call but the kernel's. */
static int __attribute__((noinline, cold)) clear_pages_first(void *addr, size_t npages,
							      unsigned flags)
{
	const struct cp__state *s = cp__state_slow();
	if (npages == 0)
		return 0;
	if (cp__check_pages(addr, npages))
		return -EINVAL;
	zero_pages_in(s, addr, npages, flags);
	return 0;
}

/* The three page calls: the contract's checks, then zero_pages with the
 * call's intent (a constant, folded where zero_pages is inlined). */
static inline int clear_pages_checked(void *addr, size_t npages, unsigned flags)
{
	const struct cp__state *s = cp__state_published();
	if (__builtin_expect(s == NULL, 0))
		return clear_pages_first(addr, npages, flags);
	if (npages == 0)
		return 0;
	if (cp__check_pages(addr, npages))
		return -EINVAL;
	zero_pages_in(s, addr, npages, flags);
	return 0;
}

int cp_clear_pages(void *addr, size_t npages)
{
	return clear_pages_checked(addr, npages, 0);
}

int cp_clear_pages_hot(void *addr, size_t npages)
{
	return clear_pages_checked(addr, npages, CP_ZERO_HOT);
}

int cp_clear_pages_cold(void *addr, size_t npages)
{
	return clear_pages_checked(addr, npages, CP_ZERO_COLD);
}

#ifndef CLEARPAGES_FREESTANDING
static void zero_pages_cb(void *addr, size_t npages, void *flags)
{
	zero_pages(addr, npages, *(const unsigned *)flags);
}

/* Untouched ranges are sampled from here: one mincore call is a few percent
 * of storing 4 MiB, and a resident range stops at the first sample. */
#define UNTOUCHED_FROM_PAGES ((size_t)4 << 20 >> 12)

/* The page-aligned middle with MAY_DISCARD: handed back where it may be and
 * pays (common/discard.c), the rest stored. Bytes discarded. HOT never
 * discards: the caller would fault every page straight back in. */
static size_t zero_body(void *addr, size_t npages, unsigned flags)
{
	if ((flags & (CP_ZERO_MAY_DISCARD | CP_ZERO_HOT)) == CP_ZERO_MAY_DISCARD) {
		size_t from = cp__state()->policy.discard_from_pages;
		if (npages >= from)
			return cp__discard(addr, npages, from, zero_pages_cb, &flags);
		if (npages >= UNTOUCHED_FROM_PAGES && cp__untouched(addr, npages))
			return cp__discard(addr, npages, cp__discard_unit() / CP_PAGE_SIZE,
					   zero_pages_cb, &flags);
	}
	zero_pages(addr, npages, flags);
	return 0;
}
#else
static size_t zero_body(void *addr, size_t npages, unsigned flags)
{
	zero_pages(addr, npages, flags);   /* no /proc, no madvise: stores */
	return 0;
}
#endif

/* Flags that cannot go together, or that this build does not have. */
static int zero_flags_bad(unsigned flags)
{
	if ((flags & ~ZERO_FLAGS) || (flags & (CP_ZERO_HOT | CP_ZERO_COLD)) ==
				     (CP_ZERO_HOT | CP_ZERO_COLD))
		return 1;
#ifdef CLEARPAGES_FREESTANDING
	if (flags & (CP_ZERO_RESIDENT | CP_ZERO_HUGE_PAGES))
		return 1;      /* no madvise, no /proc */
#endif
	return (flags & CP_ZERO_RESIDENT && flags & CP_ZERO_MAY_DISCARD) ||
	       (flags & CP_ZERO_HUGE_PAGES && !(flags & CP_ZERO_RESIDENT));
}

/* Chunks of a cp_zero_progress call without RESIDENT: the bytes between two
 * progress() calls. */
#define PROGRESS_CHUNK ((uintptr_t)64 << 20)

/* A checked call's range: the head (less than a page, from start), the
 * page-aligned body, the tail (less than a page). */
struct zero_call {
	uintptr_t start, end, body, body_end;   /* end may wrap to 0 */
	size_t len;
	unsigned flags;
	cp_progress_fn progress;
	void *progress_ctx;
	size_t done, discarded;
};

#ifndef CLEARPAGES_FREESTANDING
/* RESIDENT's stores (the present pages) run the intent's plan made for the
 * whole body, as a parallel clear's shares do: the runs together write all
 * of it through the caches. */
static void zero_plan_cb(void *addr, size_t npages, void *plan)
{
	cp__plan_run(plan, addr, npages);
}

static int zero_resident_body(struct zero_call *c)
{
	struct cp__plan pl;
	intent_plan(cp__state(), (c->body_end - c->body) / CP_PAGE_SIZE, c->flags, &pl);
	struct cp__fill_call call = { c->len, c->done, c->progress, c->progress_ctx };
	size_t body_done = 0;
	int r = cp__fill_resident(c->body, c->body_end, c->flags, zero_plan_cb, &pl, &call,
				  &body_done);
	c->done += body_done;
	if (r == -ECANCELED && c->done == c->body_end - c->start && c->end == c->body_end)
		r = 0;     /* stopped with nothing left: as without RESIDENT */
	return r;
}

/* The pages [start & ~page, end rounded up) that RESIDENT must find mapped
 * and writable before it writes anything. */
static int zero_resident_check(struct zero_call *c)
{
	uintptr_t page = CP_PAGE_SIZE - 1, s = c->start & ~page;
	uintptr_t e = c->end == 0 || c->end > UINTPTR_MAX - page ? (uintptr_t)0 - CP_PAGE_SIZE
								 : (c->end + page) & ~page;
	int all_data = 0, r = cp__resident_check(s, e, &all_data);
	if (all_data)      /* resident already (or swapped): stores fill it, as without the flag */
		c->flags &= ~(CP_ZERO_RESIDENT | CP_ZERO_HUGE_PAGES);
	return r;
}
#endif

static int zero_body_chunked(struct zero_call *c)
{
	uintptr_t at = c->body;
	while (at < c->body_end) {
		uintptr_t next = (at & ~(PROGRESS_CHUNK - 1)) + PROGRESS_CHUNK;
		if (next > c->body_end || next < at || !c->progress)
			next = c->body_end;
		c->discarded += zero_body((void *)at, (next - at) / CP_PAGE_SIZE, c->flags);
		c->done += next - at;
		at = next;
		if (c->progress && c->progress(c->done, c->len, c->progress_ctx))
			return at < c->body_end || c->end != c->body_end ? -ECANCELED : 0;
	}
	return 0;
}

/* cp_zero, cp_zero_ex and cp_zero_progress past the flag and range checks. */
static int zero_checked(struct zero_call *c)
{
	int r = 0;
	if (c->body < c->start || c->body >= c->body_end) {          /* no whole page inside */
		memset((void *)c->start, 0, c->len);
		c->done = c->len;
		return 0;
	}
	/* no call for an empty head or tail: a zero-length memset is not free (a masked
	 * store in glibc's AVX-512 memset), and page-aligned blocks are the common case */
	if (c->body != c->start)
		memset((void *)c->start, 0, c->body - c->start);
	c->done = c->body - c->start;
#ifndef CLEARPAGES_FREESTANDING
	if (c->flags & CP_ZERO_RESIDENT)
		r = zero_resident_body(c);
	else
#endif
		r = zero_body_chunked(c);
	if (r)
		return r;
	if (c->end != c->body_end)
		memset((void *)c->body_end, 0, c->end - c->body_end);
	c->done = c->len;
	return 0;
}

static int zero_call(void *addr, size_t len, unsigned flags, cp_progress_fn progress, void *ctx,
		     size_t *done, size_t *discarded)
{
	cp__initialise();      /* before any return: see clear_pages_first */
	if (zero_flags_bad(flags))
		return -EINVAL;
	struct zero_call c = { .len = len, .flags = flags, .progress = progress,
			       .progress_ctx = ctx };
	int r = 0;
	if (len == 0)
		goto out;
	if (!cp__range_ok(addr, len))
		return -EINVAL;
	c.start = (uintptr_t)addr, c.end = c.start + len;   /* may wrap to 0 */
	c.body = (c.start + CP_PAGE_SIZE - 1) & ~(uintptr_t)(CP_PAGE_SIZE - 1);
	c.body_end = c.end & ~(uintptr_t)(CP_PAGE_SIZE - 1);
	if (c.end == 0)           /* the range ends exactly at the top */
		c.body_end = (uintptr_t)0 - CP_PAGE_SIZE;
#ifndef CLEARPAGES_FREESTANDING
	if ((flags & CP_ZERO_RESIDENT) && zero_resident_check(&c))
		return -EINVAL;
#endif
	r = zero_checked(&c);
out:
	if (done)
		*done = c.done;
	if (discarded)
		*discarded = c.discarded;
	return r;
}

int cp_zero_ex(void *addr, size_t len, unsigned flags, size_t *discarded)
{
	return zero_call(addr, len, flags, NULL, NULL, NULL, discarded);
}

int cp_zero(void *addr, size_t len, unsigned flags)
{
	return zero_call(addr, len, flags, NULL, NULL, NULL, NULL);
}

int cp_zero_progress(void *addr, size_t len, unsigned flags, cp_progress_fn progress, void *ctx,
		     size_t *done)
{
	if (done)
		*done = 0;
	return zero_call(addr, len, flags, progress, ctx, done, NULL);
}

/* Any address, any length: the whole pages inside through the dispatcher,
 * the head and tail (less than a page each) with ordinary stores. */
int cp_clear(void *addr, size_t len)
{
	return cp_zero_ex(addr, len, 0, NULL);
}

size_t cp_kernels(const struct cp_kernel *const **list)
{
	const struct cp__state *s = cp__state();
	if (list)
		*list = s->kernels.k;
	return s->kernels.n;
}

const struct cp_kernel *cp_kernel_find(const char *name)
{
	return cp__list_find(&cp__state()->kernels, name);
}

const struct cp_kernel *cp_kernel_for(size_t npages)
{
	return cp__pick(npages ? npages : 1);
}

/* Pages to bytes, CP__BAND_UNUSED (or 0 where the policy says so) to
 * CP_POLICY_NEVER. */
static size_t policy_bytes(size_t pages)
{
	return pages == CP__BAND_UNUSED || pages > SIZE_MAX / CP_PAGE_SIZE ? CP_POLICY_NEVER
									   : pages * CP_PAGE_SIZE;
}

static size_t copy_nt_from_pages(const struct cp__copy_bands *b)
{
	for (unsigned i = 0; i < CP__MAX_BANDS && b->band[i].from_pages != CP__BAND_UNUSED; i++)
		if (b->band[i].kernel->flags & CP_NONTEMPORAL)
			return b->band[i].from_pages;
	return CP__BAND_UNUSED;
}

int cp_policy_info(struct cp_policy_info *info)
{
	const struct cp__state *s = cp__state();    /* first, whatever the arguments */
	if (!info || info->size < sizeof(struct cp_policy_info))
		return -EINVAL;
	const struct cp__policy *p = &s->policy;
	*info = (struct cp_policy_info){
		.size = sizeof(struct cp_policy_info),
		.source = s->source,
#ifndef CLEARPAGES_FREESTANDING
		.discard_from = policy_bytes(p->discard_from_pages),
		.parallel_min_share = policy_bytes(p->parallel_min_share_pages ?
						   p->parallel_min_share_pages : CP__BAND_UNUSED),
#else
		.discard_from = CP_POLICY_NEVER,
		.parallel_min_share = CP_POLICY_NEVER,
#endif
		.nt_from = policy_bytes(cp__policy_nt_from(p)),
		.uncached_nt_from = policy_bytes(cp__bands_nt_from(&p->uncached)),
		.estimate_from = policy_bytes(p->cached_min_mbps ? p->estimate_from_pages
								 : CP__BAND_UNUSED),
		.copy_nt_from = policy_bytes(copy_nt_from_pages(&p->copy)),
#ifndef CLEARPAGES_FREESTANDING
		.copy_uncached_nt_from = policy_bytes(copy_nt_from_pages(&p->copy_uncached)),
		.copy_estimate_from = policy_bytes(p->cached_min_mbps ? p->copy_estimate_from_pages
								      : CP__BAND_UNUSED),
#else   /* copies go by their bands alone */
		.copy_uncached_nt_from = policy_bytes(copy_nt_from_pages(&p->copy)),
		.copy_estimate_from = CP_POLICY_NEVER,
#endif
	};
	return 0;
}
