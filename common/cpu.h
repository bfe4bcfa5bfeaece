/* SPDX-License-Identifier: MIT */
/*
 * The CPU as detection sees it (arch/<arch>/cpu.c fills it; nothing else
 * does). Facts only: features, preference bits, cache sizes, identity and the
 * microarchitecture's name. Selection (common/select.c) reads this and nothing
 * about the machine itself, so tests can describe any CPU.
 */
#ifndef CP_CPU_H
#define CP_CPU_H

#include <stddef.h>

/* Features a kernel may need (struct cp__cpu.features). Tokens and arch:
 * common/features.def. */
enum {
#define CP_FEATURE(id, token, arch, bit) CP__F_##id = 1u << (bit),
#include "features.def"
#undef CP_FEATURE
	CP__F_NONE = 0
};

/* Preference bits: how the detected CPU behaves, set by detection from what
 * it knows of the vendor (as Linux's X86_FEATURE_REP_GOOD and glibc's
 * Prefer_No_AVX512 are), so that selection compares bits, never vendor names. */
enum {
	/* rep stosb at least level with vector stores from 8 KiB to the LLC
	 * (Intel cores with ERMS or FSRM). */
	CP__P_STRING_MID    = 1u << 0,
	/* 512-bit stores split into two 256-bit halves: no gain over ymm, so
	 * the generic rule never picks a zmm kernel (AMD Zen 4). */
	CP__P_NO_AVX512     = 1u << 1,
	/* A short clear of memory not in the cache: non-temporal stores from
	 * one page, where rep stosb and temporal stores allocate every line
	 * they store (AMD family 0x19: Zen 3, Zen 4). */
	CP__P_SHORT_UNCACHED_NT = 1u << 2
};

struct cp__cpu {
	char vendor[16];          /* "GenuineIntel", "AuthenticAMD", "arm64" ... */
	char model[64];           /* brand string, or the MIDR description */
	unsigned family, model_id, stepping;  /* x86: display family/model; 0 on arm64 */
	unsigned midr_implementer, midr_part; /* arm64: MIDR_EL1 fields; 0 elsewhere */
	char uarch[32];           /* "intel-sapphire-rapids", "amd-zen4", ...; "" unknown */
	unsigned features;        /* CP__F_* as detected, before CLEARPAGES_DISABLE;
				     CP__F_SIMD always */
	unsigned prefs;           /* CP__P_* */
	size_t l2_bytes;          /* per core */
	size_t llc_bytes;         /* last level as seen by one core (per CCX on AMD) */
	unsigned dczva_block_bytes; /* arm64: DC ZVA block, 0 when prohibited */
	unsigned long long counter_hz; /* CP__F_COUNTER's rate: CNTFRQ_EL0, CPUID 0x15/0x16;
				     0 unknown (hosted x86 measures it, common/residency.c) */
};

void cp__cpu_detect(struct cp__cpu *cpu);
#if defined(__x86_64__)
/* uarch and prefs from the identity and features already in cpu: pure, so
 * tests describe CPUs they do not run on. cp__cpu_detect calls it. (arm64:
 * cp__cpu_from_regs in arch/arm64/cpu_regs.h does the same from registers.) */
void cp__cpu_identify(struct cp__cpu *cpu);

/* The CPUID leaves (and XCR0) the features come from; 0 where not read. */
struct cp__x86_cpuid {
	unsigned l1_ecx;                    /* leaf 1 ECX: AVX, OSXSAVE */
	unsigned l7_eax, l7_ebx, l7_edx;    /* leaf 7.0: max subleaf; ERMS, AVX2, AVX512F; FSRM */
	unsigned l7s1_eax;                  /* leaf 7.1 EAX: FSRS */
	unsigned e8_ebx;                    /* 0x80000008 EBX: CLZERO */
	unsigned long long xcr0;            /* XGETBV(0), read only when OSXSAVE */
	unsigned l1_edx;                    /* leaf 1 EDX: TSC */
	unsigned e7_edx;                    /* 0x80000007 EDX: invariant TSC */
	unsigned l15[3];                    /* leaf 0x15 EAX, EBX, ECX: TSC/crystal ratio, crystal Hz */
	unsigned l16_eax;                   /* leaf 0x16 EAX: base MHz */
};
/* The CP__F_* of those leaves (not SIMD): pure, cp__cpu_detect calls it. */
unsigned cp__x86_features(const struct cp__x86_cpuid *id);
/* The TSC's rate from leaf 0x15 (or 0x16's base MHz, which the TSC runs at on
 * the cores that report it); 0 where neither says. Pure. */
unsigned long long cp__x86_counter_hz(const struct cp__x86_cpuid *id);
#endif

#endif
