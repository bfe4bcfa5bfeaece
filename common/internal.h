/*
 * Internal interface shared by common/ and arch/. Names that cross files start
 * with cp__. Detection lives in arch/<arch>/cpu.c, policy in common/, and the
 * kernels know nothing of either.
 */
#ifndef CP_INTERNAL_H
#define CP_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
/* The public API keeps default visibility; everything else is built with
 * -fvisibility=hidden, so libclearpages.so exports the contract only. */
#pragma GCC visibility push(default)
#include "clearpages.h"
#pragma GCC visibility pop

#include "cpu.h"

/* This build's architecture, as cp_kernel.arch spells it, and as raw kernel
 * symbols spell it (cp_<id>_<name>). */
#if defined(__x86_64__)
#define CP_ARCH_NAME "x86_64"
#define CP_ARCH_ID x86_64
#elif defined(__aarch64__)
#define CP_ARCH_NAME "arm64"
#define CP_ARCH_ID arm64
#endif

/* One row of an arch's kernel table (common/kernels_<arch>.c). */
struct cp__kernel_desc {
	struct cp_kernel kernel;
	unsigned needs;           /* CP__F_* all required to run it */
	unsigned ranked_by;       /* CP__F_* that make it fast: demoted to the end of
				     its class when the CPU lacks all of them */
};
extern const struct cp__kernel_desc cp__kernel_table[];
extern const size_t cp__kernel_table_len;

/* CLEARPAGES_DISABLE tokens of both architectures (common/features.def). */
struct cp__feature_token {
	const char *token;
	unsigned feature;
	const char *arch;         /* CP_ARCH_NAME: this build's */
};
extern const struct cp__feature_token cp__feature_tokens[];
extern const size_t cp__feature_tokens_len;

/*
 * The extent policy: below small_below_pages the small-extent temporal kernel,
 * below nt_from_pages the temporal kernel, from nt_from_pages on the
 * non-temporal kernel. cp_clear_pages_hot never leaves the temporal bands;
 * cp_clear_pages_cold always takes nontemporal.
 */
struct cp__policy {
	size_t small_below_pages;
	size_t nt_from_pages;
	const struct cp_kernel *small;
	const struct cp_kernel *temporal;
	const struct cp_kernel *nontemporal;
};

#define CP__MAX_KERNELS 32

struct cp__state {
	struct cp__cpu cpu;
	unsigned features;        /* detected minus CLEARPAGES_DISABLE */
	int quiet;                /* CLEARPAGES_QUIET=1 */
	const struct cp_kernel *forced;   /* CLEARPAGES_KERNEL, or NULL */
	size_t nkernels;
	const struct cp_kernel *kernels[CP__MAX_KERNELS]; /* usable, cp_kernels() order */
	struct cp__policy policy; /* what the calls use (forced applied) */
	struct cp__policy defaults; /* the policy without a profile */
};

/* Initialise once (thread-safe); after that one acquire load, inline. */
extern struct cp__state cp__the_state __attribute__((visibility("hidden")));
extern int cp__ready __attribute__((visibility("hidden")));
const struct cp__state *cp__state_slow(void);
static inline const struct cp__state *cp__state(void)
{
	if (__builtin_expect(__atomic_load_n(&cp__ready, __ATOMIC_ACQUIRE), 1))
		return &cp__the_state;
	return cp__state_slow();
}
/* Message on stderr unless CLEARPAGES_QUIET=1; one line, prefixed "clearpages: ". */
void cp__msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* 0 when [addr, addr + npages * 4096) is a valid page range, else -EINVAL. npages > 0. */
int cp__check_pages(const void *addr, size_t npages);
/* The extent policy (CLEARPAGES_KERNEL applied), inline: after the checks a
 * call costs these comparisons and one indirect call. Fields are read
 * relaxed: a profile loaded concurrently swaps valid kernels word by word. */
static inline const struct cp_kernel *cp__temporal_band(const struct cp__policy *p,
							 size_t npages)
{
	if (npages < __atomic_load_n(&p->small_below_pages, __ATOMIC_RELAXED))
		return __atomic_load_n(&p->small, __ATOMIC_RELAXED);
	return __atomic_load_n(&p->temporal, __ATOMIC_RELAXED);
}

static inline const struct cp_kernel *cp__pick_hot(size_t npages)
{
	return cp__temporal_band(&cp__state()->policy, npages);
}

static inline const struct cp_kernel *cp__pick(size_t npages)
{
	const struct cp__policy *p = &cp__state()->policy;
	if (npages >= __atomic_load_n(&p->nt_from_pages, __ATOMIC_RELAXED))
		return __atomic_load_n(&p->nontemporal, __ATOMIC_RELAXED);
	return cp__temporal_band(p, npages);
}

static inline const struct cp_kernel *cp__pick_cold(size_t npages)
{
	(void)npages;
	return __atomic_load_n(&cp__state()->policy.nontemporal, __ATOMIC_RELAXED);
}

/* The huge-extent walk behind cp_clear_huge_opts (common/huge.c), with the two
 * pick functions as parameters so tests can record the kernel choices. */
typedef const struct cp_kernel *(*cp__pick_fn)(size_t npages);
int cp__huge_clear(void *base, size_t npages, size_t hot_idx,
		   const struct cp_huge_opts *opts, cp__pick_fn pick, cp__pick_fn pick_hot);

/* The default extent policy for this CPU and kernel list (common/policy.c). */
void cp__policy_default(const struct cp__state *s, struct cp__policy *policy);

/* Parallel clearing (common/parallel.c): shares of at least min_share_pages;
 * cp_clear_pages_parallel uses cp__parallel_min_share_pages. */
extern const size_t cp__parallel_min_share_pages;
int cp__clear_pages_parallel_min(void *addr, size_t npages, unsigned nthreads,
				 size_t min_share_pages);

/* Replace the policy (profile loading); forced kernel still wins. */
void cp__policy_set(const struct cp__policy *policy);
/* CLEARPAGES_PROFILE at initialisation (common/profile.c): on success it calls
 * cp__policy_set; on failure one message and the defaults stay. */
void cp__profile_load_at_init(const char *path);

/* Parse "123", "64k", "8M", "1G" (powers of 1024). 0 on success, -1 if bad. */
int cp__parse_size(const char *s, size_t *out);

#endif
