/* SPDX-License-Identifier: MIT */
/*
 * The initialisation of clearpages-freestanding.o, in place of common/init.c:
 * no locks, no environment, no files, no messages, no TLS. The state is
 * decided once, from detection (CPUID/XGETBV, or the arm64 ID registers
 * through MRS) or from what cp_freestanding_init() is told, with the
 * built-in profile for the microarchitecture or the generic rule.
 *
 * First use: a caller that finds the state unpublished computes it in place
 * and publishes it with a release store. Callers that race there compute the
 * same bytes from the same CPU (every word they store is one a reader may
 * see, and each is a kernel that runs here), so no lock is needed. Only
 * cp_freestanding_init() claims the state first (a compare-and-swap): a lazy
 * caller that meets its claim waits the few hundred instructions until it
 * publishes, rather than overwrite a described CPU with a detected one.
 */
#include <errno.h>
#include "select.h"
#include "state.h"
#include "str.h"
#if defined(__aarch64__)
#include "cpu_regs.h"
#endif

struct cp__state cp__the_state;
int cp__ready;

/* Who decides the state: nobody yet, cp_freestanding_init(), or first use. */
enum { CLAIM_NONE, CLAIM_DESCRIBED, CLAIM_LAZY };
static int claim;
static char default_source[48];

static void put(char **p, char *end, const char *s)
{
	while (*s && *p + 1 < end)
		*(*p)++ = *s++;
	**p = '\0';
}

static void disable_unknown(const char *tok, size_t len, void *ctx)
{
	(void)tok, (void)len;
	*(int *)ctx = 1;    /* there is nobody to tell but the caller */
}

static void decide(const struct cp_cpu_description *desc, unsigned disable)
{
	struct cp__state *s = &cp__the_state;
#if defined(__aarch64__)
	if (desc && (desc->flags & CP_CPU_DESCRIPTION_REGS))
		cp__cpu_from_regs(&s->cpu, desc->midr_el1, desc->id_aa64pfr0_el1,
				  desc->id_aa64isar2_el1, desc->dczid_el0);
	else
		cp__cpu_detect(&s->cpu);
#else
	(void)desc;
	cp__cpu_detect(&s->cpu);
#endif
	if (desc && desc->l2_bytes)
		s->cpu.l2_bytes = desc->l2_bytes;
	if (desc && desc->llc_bytes)
		s->cpu.llc_bytes = desc->llc_bytes;
	s->features = s->cpu.features & ~disable;
	s->quiet = 1;
	s->forced = NULL;
	cp__registry_build(s->features, &s->kernels);

	struct cp__select_in in = { .cpu = &s->cpu, .usable = &s->kernels };
	const struct cp__builtin *b = cp__select(&in, &s->defaults);
	char *p = default_source;
	put(&p, default_source + sizeof(default_source), b ? "builtin:" : "generic");
	if (b)
		put(&p, default_source + sizeof(default_source), b->uarch);
	s->default_source = default_source;
	cp__policy_publish(&s->defaults, default_source);
	__atomic_store_n(&cp__ready, 1, __ATOMIC_RELEASE);
}

static void cpu_relax(void)
{
#if defined(__x86_64__)
	__asm__ volatile("pause");
#else
	__asm__ volatile("yield");
#endif
}

const struct cp__state *cp__state_slow(void)
{
	int none = CLAIM_NONE;
	if (__atomic_compare_exchange_n(&claim, &none, CLAIM_LAZY, 0, __ATOMIC_ACQUIRE,
					__ATOMIC_ACQUIRE) || none == CLAIM_LAZY)
		decide(NULL, 0);
	else    /* cp_freestanding_init() is deciding from a description */
		while (!__atomic_load_n(&cp__ready, __ATOMIC_ACQUIRE))
			cpu_relax();
	return &cp__the_state;
}

int cp_freestanding_init(const struct cp_cpu_description *desc)
{
	unsigned disable = 0;
	if (desc) {
		unsigned known = 0;
#if defined(__aarch64__)
		known |= CP_CPU_DESCRIPTION_REGS;
#endif
		if (desc->flags & ~known)
			return -EINVAL;
		int bad = 0;
		if (desc->disable)
			disable = cp__disable_parse(desc->disable, disable_unknown, &bad);
		if (bad)
			return -EINVAL;
	}
	int none = CLAIM_NONE;
	if (!__atomic_compare_exchange_n(&claim, &none, CLAIM_DESCRIBED, 0, __ATOMIC_ACQUIRE,
					 __ATOMIC_ACQUIRE))
		return -EBUSY;
	decide(desc, disable);
	return 0;
}

/* Each field is one aligned word and every slot a valid kernel: a racing
 * reader sees old or new kernels, every one of them runs here. The only
 * publisher is decide() (no profiles here), so no lock serialises it. */
void cp__policy_publish(const struct cp__policy *p, const char *source)
{
	cp__policy_store(&cp__the_state.policy, p);
	__atomic_store_n(&cp__the_state.source, source, __ATOMIC_RELEASE);
}

const char *cp_policy_source(void)
{
	cp__state();
	return __atomic_load_n(&cp__the_state.source, __ATOMIC_ACQUIRE);
}
