/* SPDX-License-Identifier: MIT */
/*
 * The published state: everything the entry points read, decided once into a
 * private object and published whole through one pointer (release store,
 * acquire load). A published state is never written again and never freed,
 * so a reader that loaded the pointer sees one whole state, old or new, for
 * as long as it holds it. A profile change publishes a new state; it does not
 * touch the old one (common/init.c; freestanding: common/freestanding/init.c).
 *
 * Cost after the argument checks: the acquire load (a plain load on x86_64,
 * ldar on arm64), a band lookup (one comparison for one page) and an indirect
 * call.
 */
#ifndef CP_STATE_H
#define CP_STATE_H

#include <errno.h>
#include <stdint.h>
#include "cpu.h"
#include "policy.h"
#include "registry.h"

struct cp__profile;

struct cp__state {
	struct cp__cpu cpu;               /* as detected (or described), unmasked */
	unsigned features;                /* cpu.features minus CLEARPAGES_DISABLE */
	int quiet;                        /* CLEARPAGES_QUIET=1 */
	int has_nt_threshold;             /* CLEARPAGES_NT_THRESHOLD, in pages */
	size_t nt_threshold_pages;
	const struct cp_kernel *forced;   /* CLEARPAGES_KERNEL, or NULL */
	struct cp__kernel_list kernels;   /* usable, cp_kernels() order */
	struct cp__copy_kernel_list copy_kernels;   /* usable, cp_copy_kernels() order */
	struct cp__policy policy;         /* what the calls use */
	struct cp__policy defaults;       /* built-in or generic, overrides applied */
	char default_source[48];          /* "builtin:NAME" or "generic" */
	const char *source;               /* cp_policy_source(): default_source or a profile's */
	const struct cp__state *older;    /* hosted: the states published before (kept) */
};

/* The state in force; NULL until the first use has published one. */
extern const struct cp__state *cp__current __attribute__((visibility("hidden")));
const struct cp__state *cp__state_slow(void);
/* The state in force, or NULL: no first use yet (then cp__state_slow). */
static inline const struct cp__state *cp__state_published(void)
{
	return __atomic_load_n(&cp__current, __ATOMIC_ACQUIRE);
}
static inline const struct cp__state *cp__state(void)
{
	const struct cp__state *s = cp__state_published();
	if (__builtin_expect(s != NULL, 1))
		return s;
	return cp__state_slow();
}

/* Every entry point but cp_version calls this (or cp__state) before its
 * first return, whatever its arguments: once any call has returned, none
 * waits on the initialisation (a handler that interrupts the first real
 * call would wait on its own thread). */
static inline void cp__initialise(void)
{
	(void)cp__state();
}

/* Inputs of a decision: the CPU and what the environment (or a freestanding
 * caller's description) says. */
struct cp__decide_in {
	const struct cp__cpu *cpu;
	unsigned disable;                 /* CP__F_* to mask (CLEARPAGES_DISABLE) */
	int quiet;
	int has_nt_threshold;
	size_t nt_threshold_pages;
	const char *forced_name;          /* CLEARPAGES_KERNEL, or NULL */
};

/* Decide a whole state into *out (private to the caller until published):
 * mask, kernel list, the default policy and its source. Pure (no globals, no
 * I/O), shared by the hosted and the freestanding init and by the tests.
 * Returns 0, or 1 when forced_name names no usable kernel (out->forced NULL). */
int cp__state_decide(const struct cp__decide_in *in, struct cp__state *out);

/* The policy of a profile checked against base's CPU, selected with base's
 * mask and overrides. */
void cp__policy_with_profile(const struct cp__state *base, const struct cp__profile *pr,
			     struct cp__policy *out);

/* $(SYSCONFDIR)/clearpages/profile, read at initialisation. */
extern const char *cp__system_profile_path;

/* Publish the state in force with its policy and source replaced (tests and
 * clearbench install recording kernels or a mixed policy this way). Hosted
 * only. Returns 0, or -ENOMEM (cap reached, see init.c) with nothing changed. */
int cp__policy_publish(const struct cp__policy *policy, const char *source);

/* The three choices, inline; each reads the state once. */
static inline const struct cp_kernel *cp__pick(size_t npages)
{
	return cp__bands_pick(&cp__state()->policy.any, npages);
}
static inline const struct cp_kernel *cp__pick_hot(size_t npages)
{
	return cp__bands_pick(&cp__state()->policy.hot, npages);
}
static inline const struct cp_kernel *cp__pick_cold(size_t npages)
{
	return cp__bands_pick(&cp__state()->policy.cold, npages);
}
typedef const struct cp_kernel *(*cp__pick_fn)(size_t npages);

/* cp_copy_pages' kernel for npages in state s. */
static inline const struct cp_copy_kernel *cp__copy_pick(const struct cp__state *s, size_t npages)
{
	return cp__copy_bands_pick(&s->policy.copy, npages);
}

/* 1 when [addr, addr + len) with len > 0 is a valid byte range: not NULL,
 * not past the top of the address space (cp_zero's check). */
static inline int cp__range_ok(const void *addr, size_t len)
{
	return addr && len - 1 <= UINTPTR_MAX - (uintptr_t)addr;
}

/* 0 when [addr, addr + npages * 4096) is a valid page range, else -EINVAL.
 * npages > 0. Inline: the entry points of every object use it (api.c,
 * huge.c, parallel.c), and parallel.o must not depend on api.o. */
static inline int cp__check_pages(const void *addr, size_t npages)
{
	if (!addr || ((uintptr_t)addr & (CP_PAGE_SIZE - 1)) ||
	    npages > SIZE_MAX / CP_PAGE_SIZE || !cp__range_ok(addr, npages * CP_PAGE_SIZE))
		return -EINVAL;
	return 0;
}

/* 0 when dst and src are valid page ranges of npages (> 0) that do not
 * overlap, else -EINVAL. */
static inline int cp__check_copy(const void *dst, const void *src, size_t npages)
{
	if (cp__check_pages(dst, npages) || cp__check_pages(src, npages))
		return -EINVAL;
	uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src, len = npages * CP_PAGE_SIZE;
	return (d < s ? s - d < len : d - s < len) ? -EINVAL : 0;
}

#endif
