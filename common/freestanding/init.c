/* SPDX-License-Identifier: MIT */
/*
 * The initialisation of clearpages-freestanding.o, in place of common/init.c:
 * no locks, no heap, no environment, no files, no messages, no TLS. The state
 * is decided once, from detection (CPUID/XGETBV, or the arm64 ID registers
 * through MRS) or from what cp_freestanding_init() is told, with the
 * built-in profile for the microarchitecture or the generic rule.
 *
 * First use, by any number of CPUs at once (a kernel's CPUs all clearing at
 * boot): each racer takes a slot of its own from a small static array,
 * decides into it privately, and offers it with one compare-and-swap of the
 * published pointer; the first offer wins and every racer then uses the
 * winner's state. Nobody writes a state another may read, and nobody waits
 * on another, so an interrupt handler that clears on a CPU interrupted
 * mid-decision cannot deadlock it. Only when more than FS_SLOTS racers meet
 * does a racer without a slot wait for the pointer (a few microseconds).
 * cp_freestanding_init() is a racer that may lose: -EBUSY when first use (or
 * an earlier call) published first.
 */
#include <errno.h>
#include "select.h"
#include "state.h"
#if defined(__aarch64__)
#include "cpu_regs.h"
#endif

#define FS_SLOTS 4      /* ~1.3 KiB each */

const struct cp__state *cp__current;
static struct cp__state slots[FS_SLOTS];
static unsigned slots_taken;

static void disable_unknown(const char *tok, size_t len, void *ctx)
{
	(void)tok, (void)len;
	*(int *)ctx = 1;    /* there is nobody to tell but the caller */
}

static void cpu_relax(void)
{
#if defined(__x86_64__)
	__asm__ volatile("pause");
#else
	__asm__ volatile("yield");
#endif
}

static void describe(struct cp__cpu *cpu, const struct cp_cpu_description *desc)
{
#if defined(__aarch64__)
	if (desc && (desc->flags & CP_CPU_DESCRIPTION_REGS))
		cp__cpu_from_regs(cpu, desc->midr_el1, desc->id_aa64pfr0_el1,
				  desc->id_aa64isar2_el1, desc->dczid_el0);
	else
		cp__cpu_detect(cpu);
#else
	cp__cpu_detect(cpu);
#endif
	if (desc && desc->l2_bytes)
		cpu->l2_bytes = desc->l2_bytes;
	if (desc && desc->llc_bytes)
		cpu->llc_bytes = desc->llc_bytes;
}

/* Decide into a slot of our own and offer it: 1 when ours was published,
 * 0 when another state was first. Without a free slot, wait for the winner. */
static int decide_and_offer(const struct cp_cpu_description *desc, unsigned disable)
{
	unsigned i = __atomic_fetch_add(&slots_taken, 1, __ATOMIC_RELAXED);
	if (i >= FS_SLOTS) {
		while (!__atomic_load_n(&cp__current, __ATOMIC_ACQUIRE))
			cpu_relax();
		return 0;
	}
	struct cp__state *mine = &slots[i];
	struct cp__cpu cpu;
	describe(&cpu, desc);
	struct cp__decide_in in = { .cpu = &cpu, .disable = disable, .quiet = 1 };
	cp__state_decide(&in, mine);
	const struct cp__state *none = NULL;
	return __atomic_compare_exchange_n(&cp__current, &none, mine, 0, __ATOMIC_ACQ_REL,
					   __ATOMIC_ACQUIRE);
}

const struct cp__state *cp__state_slow(void)
{
	decide_and_offer(NULL, 0);
	return __atomic_load_n(&cp__current, __ATOMIC_ACQUIRE);
}

int cp_freestanding_init(const struct cp_cpu_description *desc)
{
	unsigned disable = 0;
	if (desc) {
		unsigned known = CP_CPU_DESCRIPTION_NO_SIMD;
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
		if (desc->flags & CP_CPU_DESCRIPTION_NO_SIMD)
			disable |= CP__F_SIMD;
	}
	if (__atomic_load_n(&cp__current, __ATOMIC_ACQUIRE))
		return -EBUSY;
	return decide_and_offer(desc, disable) ? 0 : -EBUSY;
}

const char *cp_policy_source(void)
{
	return cp__state()->source;
}
