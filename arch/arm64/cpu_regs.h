/* SPDX-License-Identifier: MIT */
/*
 * arm64 detection from the ID registers (arch/arm64/cpu.c): the part that
 * needs no libc, so the freestanding object and the tests can use it.
 */
#ifndef CP_CPU_REGS_H
#define CP_CPU_REGS_H

#include "cpu.h"

/* Describe the CPU from raw register values: MIDR_EL1, ID_AA64PFR0_EL1,
 * ID_AA64ISAR2_EL1 and DCZID_EL0. Pure: no register reads, no globals, no
 * libc. Fills the whole of *cpu: features (SVE, MOPS, DC ZVA), the DC ZVA
 * block, the MIDR fields, the model string and uarch name, and the default
 * cache sizes. For code that can read none of the registers itself (EL0
 * without the kernel's emulation), and for tests. */
void cp__cpu_from_regs(struct cp__cpu *cpu, unsigned long long midr,
		       unsigned long long pfr0, unsigned long long isar2,
		       unsigned long long dczid);

/* Read the four registers with MRS and describe the CPU from them. Works at
 * EL1, and at EL0 where the kernel emulates the ID register reads (Linux when
 * AT_HWCAP has HWCAP_CPUID; QEMU user mode always); elsewhere MIDR_EL1 and
 * the ID_AA64 registers trap (SIGILL). At EL1, SVE in ID_AA64PFR0_EL1 says
 * the core has it: the caller must also have enabled it (CPACR_EL1.ZEN). */
void cp__cpu_detect_mrs(struct cp__cpu *cpu);

#endif
