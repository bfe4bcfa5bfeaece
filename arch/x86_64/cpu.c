/*
 * x86_64 CPU detection: CPUID and XGETBV only. Fills struct cp__cpu; knows
 * nothing of kernels or policy.
 *
 * Features: ERMS (7.0 EBX[9]), FSRM (7.0 EDX[4]), AVX2 (7.0 EBX[5]) usable only
 * when OSXSAVE (1 ECX[27]) is set and XCR0 has SSE and AVX state (bits 1-2),
 * CLZERO (0x80000008 EBX[0]).
 * Caches: deterministic cache parameters, leaf 4 on Intel, 0x8000001D on AMD
 * (with TOPOEXT), whose L3 is what one core shares: per CCX on Zen. Emulators
 * often leave these leaves empty: then the defaults below.
 */
#include <cpuid.h>
#include <string.h>
#include "cpu.h"

#define DEFAULT_L2_BYTES  (1u << 20)        /* 1 MiB: common on recent cores */
#define DEFAULT_LLC_BYTES (32u << 20)       /* 32 MiB: one Zen 3 CCX */

static void cpuid(unsigned leaf, unsigned sub, unsigned r[4])
{
	__cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
}

static unsigned long long xgetbv0(void)
{
	unsigned lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((unsigned long long)hi << 32) | lo;
}

/* Walk a deterministic-cache-parameters leaf (4 or 0x8000001D). */
static void cache_sizes(unsigned leaf, size_t *l2, size_t *llc)
{
	for (unsigned sub = 0; sub < 16; sub++) {
		unsigned r[4];
		cpuid(leaf, sub, r);
		unsigned type = r[0] & 0x1f;
		if (type == 0)
			break;
		if (type == 2)          /* instruction cache */
			continue;
		unsigned level = (r[0] >> 5) & 7;
		size_t ways = ((r[1] >> 22) & 0x3ff) + 1;
		size_t parts = ((r[1] >> 12) & 0x3ff) + 1;
		size_t line = (r[1] & 0xfff) + 1;
		size_t sets = (size_t)r[2] + 1;
		size_t bytes = ways * parts * line * sets;
		if (level == 2)
			*l2 = bytes;
		if (level >= 2)
			*llc = bytes;   /* the last data/unified level seen */
	}
}

/* Microarchitecture name and preference bits from what is already known. */
void cp__cpu_identify(struct cp__cpu *cpu)
{
	int intel = !strcmp(cpu->vendor, "GenuineIntel");
	int amd = !strcmp(cpu->vendor, "AuthenticAMD");
	const char *name = "";
	if (intel && cpu->family == 6 && cpu->model_id == 0x8f)
		name = "intel-sapphire-rapids";
	else if (intel && cpu->family == 6 && cpu->model_id == 0xcf)
		name = "intel-emerald-rapids";
	else if (amd && cpu->family == 0x19 && ((cpu->model_id >= 0x10 && cpu->model_id <= 0x1f) ||
						(cpu->model_id >= 0x60 && cpu->model_id <= 0x7f) ||
						(cpu->model_id >= 0xa0 && cpu->model_id <= 0xaf)))
		name = "amd-zen4";
	else if (amd && cpu->family == 0x19)
		name = "amd-zen3";
	strcpy(cpu->uarch, name);
	cpu->prefs = 0;
	if (intel && (cpu->features & (CP__F_ERMS | CP__F_FSRM)))
		cpu->prefs |= CP__P_STRING_MID;
	if (amd)
		cpu->prefs |= CP__P_NO_AVX512;
}

void cp__cpu_detect(struct cp__cpu *cpu)
{
	unsigned r[4];

	memset(cpu, 0, sizeof(*cpu));
	cpu->l2_bytes = DEFAULT_L2_BYTES;
	cpu->llc_bytes = DEFAULT_LLC_BYTES;

	cpuid(0, 0, r);
	unsigned max_leaf = r[0];
	memcpy(cpu->vendor + 0, &r[1], 4);
	memcpy(cpu->vendor + 4, &r[3], 4);
	memcpy(cpu->vendor + 8, &r[2], 4);
	int amd = !strcmp(cpu->vendor, "AuthenticAMD") || !strcmp(cpu->vendor, "HygonGenuine");

	int avx_os = 0, zmm_os = 0;
	if (max_leaf >= 1) {
		cpuid(1, 0, r);
		unsigned fam = (r[0] >> 8) & 0xf, mod = (r[0] >> 4) & 0xf;
		if (fam == 0xf)
			fam += (r[0] >> 20) & 0xff;
		if (fam == 0x6 || fam >= 0xf)
			mod |= ((r[0] >> 16) & 0xf) << 4;
		cpu->family = fam;
		cpu->model_id = mod;
		cpu->stepping = r[0] & 0xf;
		if ((r[2] >> 27) & 1) { /* OSXSAVE: XGETBV is allowed */
			unsigned long long xcr0 = xgetbv0();
			avx_os = (xcr0 & 0x06) == 0x06;   /* SSE, AVX */
			zmm_os = (xcr0 & 0xe6) == 0xe6;   /* and opmask, ZMM_Hi256, Hi16_ZMM */
		}
	}
	if (max_leaf >= 7) {
		cpuid(7, 0, r);
		if ((r[1] >> 9) & 1)
			cpu->features |= CP__F_ERMS;
		if ((r[3] >> 4) & 1)
			cpu->features |= CP__F_FSRM;
		if (((r[1] >> 5) & 1) && avx_os)
			cpu->features |= CP__F_AVX2;
		if (((r[1] >> 16) & 1) && zmm_os)
			cpu->features |= CP__F_AVX512;
	}

	cpuid(0x80000000, 0, r);
	unsigned max_ext = r[0];
	if (max_ext >= 0x80000008) {
		cpuid(0x80000008, 0, r);
		if (r[1] & 1)
			cpu->features |= CP__F_CLZERO;
	}
	if (max_ext >= 0x80000004) {
		unsigned *brand = (unsigned *)cpu->model;   /* 48 bytes of 64 */
		for (unsigned i = 0; i < 3; i++)
			cpuid(0x80000002 + i, 0, brand + 4 * i);
		cpu->model[48] = '\0';
		/* trim the leading blanks some CPUs pad with */
		size_t skip = strspn(cpu->model, " ");
		memmove(cpu->model, cpu->model + skip, strlen(cpu->model + skip) + 1);
	}
	if (!cpu->model[0])
		strcpy(cpu->model, "unknown x86_64");

	if (amd && max_ext >= 0x8000001d) {
		cpuid(0x80000001, 0, r);
		if ((r[2] >> 22) & 1)   /* TOPOEXT: 0x8000001D is valid */
			cache_sizes(0x8000001d, &cpu->l2_bytes, &cpu->llc_bytes);
	} else if (!amd && max_leaf >= 4) {
		cache_sizes(4, &cpu->l2_bytes, &cpu->llc_bytes);
	}
	cp__cpu_identify(cpu);
}
