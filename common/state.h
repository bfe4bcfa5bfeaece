/* SPDX-License-Identifier: MIT */
/*
 * The published state: what init (common/init.c) decided once, read by the
 * entry points through one acquire load, inline. After the argument checks a
 * call costs a band lookup (one comparison for one page) and an indirect call.
 */
#ifndef CP_STATE_H
#define CP_STATE_H

#include "cpu.h"
#include "policy.h"
#include "registry.h"

struct cp__state {
	struct cp__cpu cpu;
	unsigned features;                /* detected minus CLEARPAGES_DISABLE */
	int quiet;                        /* CLEARPAGES_QUIET=1 */
	const struct cp_kernel *forced;   /* CLEARPAGES_KERNEL, or NULL */
	struct cp__kernel_list kernels;   /* usable, cp_kernels() order */
	struct cp__policy policy;         /* what the calls use */
	struct cp__policy defaults;       /* built-in or generic, overrides applied */
	const char *source;               /* cp_policy_source() */
	const char *default_source;
};

extern struct cp__state cp__the_state __attribute__((visibility("hidden")));
extern int cp__ready __attribute__((visibility("hidden")));
const struct cp__state *cp__state_slow(void);
static inline const struct cp__state *cp__state(void)
{
	if (__builtin_expect(__atomic_load_n(&cp__ready, __ATOMIC_ACQUIRE), 1))
		return &cp__the_state;
	return cp__state_slow();
}

/* $(SYSCONFDIR)/clearpages/profile, read at initialisation. */
extern const char *cp__system_profile_path;

/* Replace the policy in use (profiles; tests install recording kernels). The
 * forced kernel is applied by the caller (selection). */
void cp__policy_publish(const struct cp__policy *policy, const char *source);

/* The three choices, inline. */
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

/* 0 when [addr, addr + npages * 4096) is a valid page range, else -EINVAL. npages > 0. */
int cp__check_pages(const void *addr, size_t npages);

#endif
