/*
 * arm64 CPU detection: getauxval, DCZID_EL0 and /sys only. Fills struct
 * cp__cpu; knows nothing of kernels or policy.
 *
 * Features: SVE from AT_HWCAP (HWCAP_SVE), MOPS from AT_HWCAP2 (HWCAP2_MOPS,
 * bit 43, defined here where the headers lack it), DC ZVA from DCZID_EL0 (EL0
 * may always read it): DZP (bit 4) set means the instruction is prohibited;
 * otherwise BS (bits 3:0) is log2 of the block in 4-byte words.
 * Caches: /sys/devices/system/cpu/cpu0/cache/indexN/ (level, type, size); the
 * defaults below where that is absent (containers, some hypervisors). /sys is
 * trusted only when it belongs to an arm64 kernel (regs/identification/midr_el1
 * exists, as on every arm64 Linux since 4.11): under qemu-user /sys is the
 * host's, and an emulated run gets the defaults, not the host's caches.
 * Model: MIDR_EL1 from /sys (regs/identification/midr_el1), else read directly
 * when the kernel emulates it for EL0 (HWCAP_CPUID).
 */
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>
#include "cpu.h"

#ifndef HWCAP_SVE
#define HWCAP_SVE (1UL << 22)
#endif
#ifndef HWCAP_CPUID
#define HWCAP_CPUID (1UL << 11)
#endif
#ifndef HWCAP2_MOPS
#define HWCAP2_MOPS (1UL << 43)
#endif

#define DCZID_DZP (1u << 4)
#define DCZID_BS  0xfu

/* 1 MiB L2 per core and 8 MiB of LLC per cluster: a Cortex-A7x / Neoverse N1
 * class core, where most arm64 servers and phones sit. */
#define DEFAULT_L2_BYTES  (1u << 20)
#define DEFAULT_LLC_BYTES (8u << 20)

#define CACHE_DIR "/sys/devices/system/cpu/cpu0/cache"
#define MIDR_PATH "/sys/devices/system/cpu/cpu0/regs/identification/midr_el1"

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	char *ok = fgets(buf, (int)len, f);
	fclose(f);
	if (!ok)
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

static void model_name(char *out, size_t len, unsigned long hwcap)
{
	char buf[64];
	unsigned long long midr = 0;
	int have = 0;

	if (!read_line(MIDR_PATH, buf, sizeof(buf)) && sscanf(buf, "%llx", &midr) == 1)
		have = 1;
	else if (hwcap & HWCAP_CPUID) {
		unsigned long v;
		__asm__ volatile("mrs %0, midr_el1" : "=r"(v));
		midr = v;
		have = 1;
	}
	if (!have || !midr) {
		snprintf(out, len, "unknown arm64");
		return;
	}
	unsigned imp = (unsigned)(midr >> 24) & 0xff;
	snprintf(out, len, "%s 0x%02x part 0x%03x r%up%u (MIDR 0x%08llx)",
		 implementer_name(imp), imp, (unsigned)(midr >> 4) & 0xfff,
		 (unsigned)(midr >> 20) & 0xf, (unsigned)midr & 0xf, midr);
}

void cp__cpu_detect(struct cp__cpu *cpu)
{
	unsigned long hwcap = getauxval(AT_HWCAP);
	unsigned long hwcap2 = getauxval(AT_HWCAP2);
	unsigned long dczid;

	memset(cpu, 0, sizeof(*cpu));
	strcpy(cpu->vendor, "arm64");
	cpu->l2_bytes = DEFAULT_L2_BYTES;
	cpu->llc_bytes = DEFAULT_LLC_BYTES;

	if (hwcap & HWCAP_SVE)
		cpu->features |= CP__F_SVE;
	if (hwcap2 & HWCAP2_MOPS)
		cpu->features |= CP__F_MOPS;

	__asm__ volatile("mrs %0, dczid_el0" : "=r"(dczid));
	if (!(dczid & DCZID_DZP)) {
		cpu->features |= CP__F_DCZVA;
		cpu->dczva_block_bytes = 4u << (dczid & DCZID_BS);
	}

	model_name(cpu->model, sizeof(cpu->model), hwcap);
	if (access(MIDR_PATH, R_OK) == 0)
		cache_sizes(&cpu->l2_bytes, &cpu->llc_bytes);
	cp__cpu_identify(cpu);
}

void cp__cpu_identify(struct cp__cpu *cpu)
{
	(void)cpu;    /* MIDR names: arch/arm64 */
}
