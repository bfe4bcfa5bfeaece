/* SPDX-License-Identifier: MIT */
/*
 * arm64 CPU detection: fills struct cp__cpu; knows nothing of kernels or
 * policy. Two layers, so the freestanding object can take the first alone:
 *
 * 1. Registers (no libc; what a -ffreestanding build of this file holds):
 *    cp__cpu_from_regs() describes the CPU from MIDR_EL1, ID_AA64PFR0_EL1
 *    (SVE: bits 35:32), ID_AA64ISAR2_EL1 (MOPS: bits 19:16) and DCZID_EL0 (DZP,
 *    bit 4, set: DC ZVA prohibited; else BS, bits 3:0, is log2 of the block in
 *    4-byte words; a block over 2 KiB, which the kernel cannot step, counts as
 *    no DC ZVA), and always the pseudo-feature SIMD (features.def);
 *    cp__cpu_detect_mrs() reads them with MRS (EL1, or EL0
 *    where the kernel emulates the reads). uarch comes from MIDR's implementer
 *    and part numbers (Linux's arch/arm64/include/asm/cputype.h lists them).
 * 2. Hosted cp__cpu_detect(): AT_HWCAP/AT_HWCAP2 (HWCAP_SVE, HWCAP2_MOPS) are
 *    the truth for SVE and MOPS, since the kernel may hide a feature the core
 *    has (no kernel support, arm64.nosve); the ID registers are read only when
 *    the kernel emulates them (HWCAP_CPUID); DCZID_EL0 is always readable.
 *    MIDR comes from /sys (cpu0, the same on every call) where present. Cache
 *    sizes from /sys/devices/system/cpu/cpu0/cache/indexN/, else the defaults.
 *    /sys is trusted only when it belongs to an arm64 kernel (regs/
 *    identification/midr_el1 exists, as on every arm64 Linux since 4.11):
 *    under qemu-user /sys is the host's, and an emulated run gets the
 *    defaults, not the host's caches.
 */
#include "cpu_regs.h"

#define PFR0_SVE_SHIFT   32
#define ISAR2_MOPS_SHIFT 16
#define DCZID_DZP        (1u << 4)
#define DCZID_BS         0xfu
/* The largest block dc_zva.S handles: 4 << 9 = 2 KiB, two blocks a page. */
#define DCZID_BS_MAX     9u

/* 1 MiB L2 per core and 8 MiB of LLC per cluster: a Cortex-A7x / Neoverse N1
 * class core, where most arm64 servers and phones sit. */
#define DEFAULT_L2_BYTES  (1u << 20)
#define DEFAULT_LLC_BYTES (8u << 20)

/* Microarchitecture names by MIDR implementer and part number. */
static const struct {
	unsigned char implementer;
	unsigned short part;
	const char *uarch;
} uarch_names[] = {
	{ 0x41, 0xd03, "arm-cortex-a53" },
	{ 0x41, 0xd05, "arm-cortex-a55" },
	{ 0x41, 0xd07, "arm-cortex-a57" },
	{ 0x41, 0xd08, "arm-cortex-a72" },
	{ 0x41, 0xd0b, "arm-cortex-a76" },
	{ 0x41, 0xd47, "arm-cortex-a710" },
	{ 0x41, 0xd0c, "arm-neoverse-n1" },
	{ 0x41, 0xd49, "arm-neoverse-n2" },
	{ 0x41, 0xd8e, "arm-neoverse-n3" },
	{ 0x41, 0xd40, "arm-neoverse-v1" },
	{ 0x41, 0xd4f, "arm-neoverse-v2" },
	{ 0x41, 0xd84, "arm-neoverse-v3" },
	{ 0x46, 0x001, "fujitsu-a64fx" },
	{ 0xc0, 0xac3, "ampere-ampereone" },
};

static const char *implementer_name(unsigned imp)
{
	switch (imp) {
	case 0x41: return "Arm";
	case 0x42: return "Broadcom";
	case 0x43: return "Cavium";
	case 0x46: return "Fujitsu";
	case 0x48: return "HiSilicon";
	case 0x4e: return "NVIDIA";
	case 0x51: return "Qualcomm";
	case 0x61: return "Apple";
	case 0x6d: return "Microsoft";
	case 0xc0: return "Ampere";
	default:   return "implementer";
	}
}

/* Appends to a bounded buffer that always stays NUL-terminated (no libc). */
struct text {
	char *p, *end;
};

static void put_str(struct text *t, const char *s)
{
	while (*s && t->p + 1 < t->end)
		*t->p++ = *s++;
	*t->p = '\0';
}

static void put_hex(struct text *t, unsigned long long v, unsigned digits)
{
	char buf[17];
	for (unsigned i = 0; i < digits && i < 16; i++, v >>= 4)
		buf[digits - 1 - i] = "0123456789abcdef"[v & 0xf];
	buf[digits < 16 ? digits : 16] = '\0';
	put_str(t, buf);
}

static void copy_str(char *dst, size_t len, const char *s)
{
	struct text t = { dst, dst + len };
	put_str(&t, s);
}

/* "Arm 0x41 part 0xd03 r0p4 (MIDR 0x410fd034)", as the string was before. */
static void model_name(char *out, size_t len, unsigned long long midr)
{
	struct text t = { out, out + len };
	unsigned imp = (unsigned)(midr >> 24) & 0xff;

	if (!midr) {
		put_str(&t, "unknown arm64");
		return;
	}
	put_str(&t, implementer_name(imp));
	put_str(&t, " 0x");
	put_hex(&t, imp, 2);
	put_str(&t, " part 0x");
	put_hex(&t, (midr >> 4) & 0xfff, 3);
	put_str(&t, " r");
	put_hex(&t, (midr >> 20) & 0xf, 1);
	put_str(&t, "p");
	put_hex(&t, midr & 0xf, 1);
	put_str(&t, " (MIDR 0x");
	put_hex(&t, midr & 0xffffffffu, 8);
	put_str(&t, ")");
}

void cp__cpu_from_regs(struct cp__cpu *cpu, unsigned long long midr,
		       unsigned long long pfr0, unsigned long long isar2,
		       unsigned long long dczid)
{
	*cpu = (struct cp__cpu){ 0 };
	cpu->features = CP__F_SIMD;     /* FP/AdvSIMD: Linux arm64 requires them */
	copy_str(cpu->vendor, sizeof(cpu->vendor), "arm64");
	cpu->l2_bytes = DEFAULT_L2_BYTES;
	cpu->llc_bytes = DEFAULT_LLC_BYTES;

	if ((pfr0 >> PFR0_SVE_SHIFT) & 0xf)
		cpu->features |= CP__F_SVE;
	if ((isar2 >> ISAR2_MOPS_SHIFT) & 0xf)
		cpu->features |= CP__F_MOPS;
	if (!(dczid & DCZID_DZP) && (dczid & DCZID_BS) <= DCZID_BS_MAX) {
		cpu->features |= CP__F_DCZVA;
		cpu->dczva_block_bytes = 4u << (dczid & DCZID_BS);
	}

	cpu->midr_implementer = (unsigned)(midr >> 24) & 0xff;
	cpu->midr_part = (unsigned)(midr >> 4) & 0xfff;
	model_name(cpu->model, sizeof(cpu->model), midr);
	for (size_t i = 0; i < sizeof(uarch_names) / sizeof(uarch_names[0]); i++) {
		if (uarch_names[i].implementer == cpu->midr_implementer &&
		    uarch_names[i].part == cpu->midr_part) {
			copy_str(cpu->uarch, sizeof(cpu->uarch), uarch_names[i].uarch);
			break;
		}
	}
}

/* MRS readers. ID_AA64ISAR2_EL1 by its encoding (op0 3, op1 0, CRn 0, CRm 6,
 * op2 2), which every assembler takes; older ones do not know its name. */
#define DEFINE_MRS(fn, reg) \
	static unsigned long long fn(void) \
	{ \
		unsigned long long v; \
		__asm__ volatile("mrs %0, " reg : "=r"(v)); \
		return v; \
	}
DEFINE_MRS(read_midr, "midr_el1")
DEFINE_MRS(read_pfr0, "id_aa64pfr0_el1")
DEFINE_MRS(read_isar2, "S3_0_C0_C6_2")
DEFINE_MRS(read_dczid, "dczid_el0")
DEFINE_MRS(read_cntfrq, "cntfrq_el0")

/* CNTVCT_EL0 ticks at CNTFRQ_EL0, which EL0 may read on Linux (and the
 * kernel traps and emulates where an erratum needs it): COUNTER always. A
 * CNTFRQ_EL0 of 0 (firmware that never set it; qemu-user 10) leaves the rate
 * unknown: the hosted library measures it as on x86, the freestanding object
 * decides by extent alone. */
static void counter_detect(struct cp__cpu *cpu)
{
	cpu->counter_hz = read_cntfrq() & 0xffffffffu;
	cpu->features |= CP__F_COUNTER;
}

void cp__cpu_detect_mrs(struct cp__cpu *cpu)
{
	cp__cpu_from_regs(cpu, read_midr(), read_pfr0(), read_isar2(), read_dczid());
	counter_detect(cpu);
}

#if !__STDC_HOSTED__

/* Freestanding: the registers are all there is (see cpu_regs.h for where
 * the reads work). */
void cp__cpu_detect(struct cp__cpu *cpu)
{
	cp__cpu_detect_mrs(cpu);
}

#else /* hosted */

#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>
#include "files.h"

#ifndef HWCAP_SVE
#define HWCAP_SVE (1UL << 22)
#endif
#ifndef HWCAP_CPUID
#define HWCAP_CPUID (1UL << 11)
#endif
#ifndef HWCAP2_MOPS
#define HWCAP2_MOPS (1UL << 43)
#endif

#define CACHE_DIR "/sys/devices/system/cpu/cpu0/cache"
#define MIDR_PATH "/sys/devices/system/cpu/cpu0/regs/identification/midr_el1"

/* The first line of a small file, through common/files.c as every file the
 * library opens (no stdio: the first use allocates nothing; no descriptor
 * outlives the read, however the call ends). */
static int read_line(const char *path, char *buf, size_t len)
{
	if (cp__file_read_small(path, buf, len) <= 0)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* "1024K", "32M", "512" -> bytes; 0 when unreadable. */
static size_t parse_cache_size(const char *s)
{
	char *end;
	unsigned long long v;
	if (sscanf(s, "%llu", &v) != 1)
		return 0;
	end = (char *)s + strspn(s, "0123456789");
	if (*end == 'K' || *end == 'k')
		v <<= 10;
	else if (*end == 'M' || *end == 'm')
		v <<= 20;
	else if (*end == 'G' || *end == 'g')
		v <<= 30;
	return (size_t)v;
}

static void cache_sizes(size_t *l2, size_t *llc)
{
	unsigned best_level = 0;
	for (unsigned i = 0; i < 16; i++) {
		char path[128], buf[64];
		snprintf(path, sizeof(path), CACHE_DIR "/index%u/type", i);
		if (read_line(path, buf, sizeof(buf)))
			break;
		if (!strcmp(buf, "Instruction"))
			continue;
		snprintf(path, sizeof(path), CACHE_DIR "/index%u/level", i);
		if (read_line(path, buf, sizeof(buf)))
			continue;
		unsigned level = 0;
		if (sscanf(buf, "%u", &level) != 1 || level < 2)
			continue;
		snprintf(path, sizeof(path), CACHE_DIR "/index%u/size", i);
		if (read_line(path, buf, sizeof(buf)))
			continue;
		size_t bytes = parse_cache_size(buf);
		if (!bytes)
			continue;
		if (level == 2)
			*l2 = bytes;
		if (level >= best_level) {   /* the last data/unified level seen */
			best_level = level;
			*llc = bytes;
		}
	}
}

void cp__cpu_detect(struct cp__cpu *cpu)
{
	unsigned long hwcap = getauxval(AT_HWCAP);
	unsigned long hwcap2 = getauxval(AT_HWCAP2);
	unsigned long long midr = 0, pfr0 = 0, isar2 = 0;
	int arm64_sys = access(MIDR_PATH, R_OK) == 0;
	char buf[64];

	if (hwcap & HWCAP_CPUID) {
		midr = read_midr();
		pfr0 = read_pfr0();
		isar2 = read_isar2();
	}
	if (arm64_sys && !read_line(MIDR_PATH, buf, sizeof(buf)))
		sscanf(buf, "%llx", &midr);
	cp__cpu_from_regs(cpu, midr, pfr0, isar2, read_dczid());
	counter_detect(cpu);

	cpu->features &= ~(unsigned)(CP__F_SVE | CP__F_MOPS);
	if (hwcap & HWCAP_SVE)
		cpu->features |= CP__F_SVE;
	if (hwcap2 & HWCAP2_MOPS)
		cpu->features |= CP__F_MOPS;

	if (arm64_sys)
		cache_sizes(&cpu->l2_bytes, &cpu->llc_bytes);
}

#endif /* hosted */
