/* SPDX-License-Identifier: MIT */
/*
 * x86_64 CPU detection: CPUID and XGETBV only. Fills struct cp__cpu; knows
 * nothing of kernels or policy. The one place that compares vendor strings.
 *
 * Features (cp__x86_features, a pure function of the leaves: tests describe
 * CPUs to it): ERMS (7.0 EBX[9]), FSRM (7.0 EDX[4]), FSRS (7.1 EAX[11], where
 * 7.0 EAX says subleaf 1 exists), AVX2 (7.0 EBX[5]) usable only with AVX
 * (1 ECX[28]), OSXSAVE (1 ECX[27]) and XCR0 holding SSE and AVX state (bits
 * 1-2), AVX512 (AVX512F, 7.0 EBX[16]) only with all that and XCR0's opmask,
 * ZMM_Hi256 and Hi16_ZMM (bits 5-7), CLZERO (0x80000008 EBX[0]); SIMD (the pseudo-feature of
 * the vector kernels, features.def) always; COUNTER with a TSC (1 EDX[4]) that
 * is invariant (0x80000007 EDX[8]: a steady rate across P-states and idle);
 * whether a thread may read it now (PR_SET_TSC) is asked at each timing
 * (counter.h), not here: the setting is per thread and changes at any time.
 * Identity: display family/model/stepping from leaf 1 EAX; the
 * microarchitecture's name and the preference bits from vendor, family, model
 * and features (cp__cpu_identify, a pure function: tests describe CPUs to it).
 * Caches: deterministic cache parameters, leaf 4 on Intel, 0x8000001D on AMD
 * (with TOPOEXT), whose L3 is what one core shares: per CCX on Zen. Emulators
 * often leave these leaves empty: then the defaults below.
 *
 * Freestanding: no libc beyond memset/memcpy/memmove (the freestanding object
 * reuses this file as it is), so the string helpers are the tiny ones below.
 */
#include <cpuid.h>
#include "cpu.h"

#define DEFAULT_L2_BYTES  (1u << 20)        /* 1 MiB: common on recent cores */
#define DEFAULT_LLC_BYTES (32u << 20)       /* 32 MiB: one Zen 3 CCX */

static int str_eq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

/* Copy s into dst (size bytes, size > 0), always terminated. */
static void str_copy(char *dst, size_t size, const char *s)
{
	size_t i = 0;
	for (; s[i] && i + 1 < size; i++)
		dst[i] = s[i];
	dst[i] = '\0';
}

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

#define BIT(v, n)	(((v) >> (n)) & 1)
#define OSXSAVE(ecx)	BIT(ecx, 27)

unsigned cp__x86_features(const struct cp__x86_cpuid *id)
{
	unsigned f = 0;
	/* VEX-encoded stores need AVX itself and the OS saving its state; the
	 * AVX2 or AVX512F bit alone says nothing of either. */
	int avx = BIT(id->l1_ecx, 28) && OSXSAVE(id->l1_ecx) &&
		  (id->xcr0 & 0x06) == 0x06;                    /* SSE, AVX state */
	int zmm = avx && (id->xcr0 & 0xe6) == 0xe6;           /* and opmask, ZMM_Hi256, Hi16_ZMM */

	if (BIT(id->l7_ebx, 9))
		f |= CP__F_ERMS;
	if (BIT(id->l7_edx, 4))
		f |= CP__F_FSRM;
	if (id->l7_eax >= 1 && BIT(id->l7s1_eax, 11))     /* subleaf 1 exists */
		f |= CP__F_FSRS;
	if (avx && BIT(id->l7_ebx, 5))
		f |= CP__F_AVX2;
	if (zmm && BIT(id->l7_ebx, 16))
		f |= CP__F_AVX512;
	if (BIT(id->e8_ebx, 0))
		f |= CP__F_CLZERO;
	if (BIT(id->l1_edx, 4) && BIT(id->e7_edx, 8))
		f |= CP__F_COUNTER;
	return f;
}

unsigned long long cp__x86_counter_hz(const struct cp__x86_cpuid *id)
{
	/* 0x15: TSC = crystal * EBX / EAX; ECX, the crystal, is 0 on some parts */
	if (id->l15[0] && id->l15[1] && id->l15[2])
		return (unsigned long long)id->l15[2] * id->l15[1] / id->l15[0];
	return (unsigned long long)(id->l16_eax & 0xffff) * 1000000;
}

static int vendor_is_amd(const char *vendor)
{
	return str_eq(vendor, "AuthenticAMD") || str_eq(vendor, "HygonGenuine");
}

/* Display family, model and stepping from leaf 1 EAX. The extended family
 * counts only when the base family is 0xF; the extended model extends the
 * base model on AMD when the base family is 0xF, on Intel (and others, as
 * Intel documents it) when it is 6 or 0xF. */
static void decode_signature(struct cp__cpu *cpu, unsigned eax)
{
	unsigned base_family = (eax >> 8) & 0xf, base_model = (eax >> 4) & 0xf;
	unsigned ext_family = (eax >> 20) & 0xff, ext_model = (eax >> 16) & 0xf;
	int amd = vendor_is_amd(cpu->vendor);

	cpu->family = base_family == 0xf ? base_family + ext_family : base_family;
	cpu->model_id = base_model;
	if (base_family == 0xf || (!amd && base_family == 6))
		cpu->model_id |= ext_model << 4;
	cpu->stepping = eax & 0xf;
}

/* Microarchitectures by vendor, display family and a model range. Model
 * ranges as Linux assigns them (intel-family.h; the Zen generations of
 * arch/x86/kernel/cpu/amd.c). A CPU in no row has uarch "" (unknown). */
enum vendor_kind { V_INTEL, V_AMD };
struct model_range {
	unsigned lo, hi;          /* inclusive; lo > hi ends the list */
};
static const struct uarch_row {
	enum vendor_kind vendor;
	unsigned family;
	const char *name;
	struct model_range models[4];
} uarch_rows[] = {
	{ V_INTEL, 6,    "intel-icelake-server",  { { 0x6a, 0x6a }, { 0x6c, 0x6c }, { 1, 0 } } },
	{ V_INTEL, 6,    "intel-sapphire-rapids", { { 0x8f, 0x8f }, { 1, 0 } } },
	{ V_INTEL, 6,    "intel-emerald-rapids",  { { 0xcf, 0xcf }, { 1, 0 } } },
	{ V_INTEL, 6,    "intel-granite-rapids",  { { 0xad, 0xae }, { 1, 0 } } },   /* _X, _D */
	{ V_AMD,   0x17, "amd-zen1", { { 0x00, 0x2f }, { 0x50, 0x5f }, { 1, 0 } } },
	{ V_AMD,   0x17, "amd-zen2", { { 0x30, 0x4f }, { 0x60, 0x7f }, { 0x90, 0x91 }, { 0xa0, 0xaf } } },
	{ V_AMD,   0x19, "amd-zen3", { { 0x00, 0x0f }, { 0x20, 0x5f }, { 1, 0 } } },
	{ V_AMD,   0x19, "amd-zen4", { { 0x10, 0x1f }, { 0x60, 0xaf }, { 1, 0 } } },
	{ V_AMD,   0x1a, "amd-zen5", { { 0x00, 0x2f }, { 0x40, 0x4f }, { 0x60, 0x7f }, { 1, 0 } } },
};

static int row_has_model(const struct uarch_row *row, unsigned model)
{
	for (unsigned i = 0; i < 4 && row->models[i].lo <= row->models[i].hi; i++)
		if (model >= row->models[i].lo && model <= row->models[i].hi)
			return 1;
	return 0;
}

void cp__cpu_identify(struct cp__cpu *cpu)
{
	int intel = str_eq(cpu->vendor, "GenuineIntel");
	/* Hygon's cores are AMD Zen designs: AMD's rules, but no AMD uarch row. */
	int amd = str_eq(cpu->vendor, "AuthenticAMD");

	cpu->uarch[0] = '\0';
	for (size_t i = 0; i < sizeof(uarch_rows) / sizeof(uarch_rows[0]); i++) {
		const struct uarch_row *row = &uarch_rows[i];
		if ((row->vendor == V_INTEL ? intel : amd) && cpu->family == row->family &&
		    row_has_model(row, cpu->model_id)) {
			str_copy(cpu->uarch, sizeof(cpu->uarch), row->name);
			break;
		}
	}

	cpu->prefs = 0;
	/* Intel's fast-string microcode keeps rep stosb level with vector
	 * stores in the mid band once ERMS or FSRM is advertised. */
	if (intel && (cpu->features & (CP__F_ERMS | CP__F_FSRM)))
		cpu->prefs |= CP__P_STRING_MID;
	/* AMD cores so far split 512-bit stores in two (Zen 4): zmm stores
	 * measured level with ymm, so the generic rule keeps to ymm. */
	if (vendor_is_amd(cpu->vendor))
		cpu->prefs |= CP__P_NO_AVX512;
	/* Zen 3 and Zen 4 (family 0x19) clear 4 KiB of memory not in the cache
	 * 2.0-2.6x faster with non-temporal stores than with rep stosb, and lose
	 * 14-28 % on memory written next; Zen 5 (0x1a) and Intel keep rep stosb
	 * there (0.81-0.93 of the best cold): select.c, the uncached bands. */
	if (amd && cpu->family == 0x19)
		cpu->prefs |= CP__P_SHORT_UNCACHED_NT;
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

/* The brand string (leaves 0x80000002-4), leading blanks trimmed. */
static void brand_string(struct cp__cpu *cpu)
{
	unsigned r[4];
	char *model = cpu->model;
	for (unsigned i = 0; i < 3; i++) {    /* 48 bytes of 64 */
		cpuid(0x80000002 + i, 0, r);
		__builtin_memcpy(model + 16 * i, r, 16);
	}
	model[48] = '\0';
	size_t skip = 0, len;
	while (model[skip] == ' ')
		skip++;
	for (len = 0; model[skip + len]; len++)
		;
	__builtin_memmove(model, model + skip, len + 1);
}

void cp__cpu_detect(struct cp__cpu *cpu)
{
	unsigned r[4];

	__builtin_memset(cpu, 0, sizeof(*cpu));
	cpu->features = CP__F_SIMD;     /* SSE2 is architectural on x86_64 */
	cpu->l2_bytes = DEFAULT_L2_BYTES;
	cpu->llc_bytes = DEFAULT_LLC_BYTES;

	cpuid(0, 0, r);
	unsigned max_leaf = r[0];
	__builtin_memcpy(cpu->vendor + 0, &r[1], 4);
	__builtin_memcpy(cpu->vendor + 4, &r[3], 4);
	__builtin_memcpy(cpu->vendor + 8, &r[2], 4);
	int amd = vendor_is_amd(cpu->vendor);

	struct cp__x86_cpuid id = { 0 };   /* leaves beyond the maximum stay 0 */
	if (max_leaf >= 1) {
		cpuid(1, 0, r);
		decode_signature(cpu, r[0]);
		id.l1_ecx = r[2];
		id.l1_edx = r[3];
		if (OSXSAVE(id.l1_ecx))     /* XGETBV is allowed */
			id.xcr0 = xgetbv0();
	}
	if (max_leaf >= 7) {
		cpuid(7, 0, r);
		id.l7_eax = r[0], id.l7_ebx = r[1], id.l7_edx = r[3];
		if (id.l7_eax >= 1) {
			cpuid(7, 1, r);
			id.l7s1_eax = r[0];
		}
	}
	if (max_leaf >= 0x15) {
		cpuid(0x15, 0, r);
		id.l15[0] = r[0], id.l15[1] = r[1], id.l15[2] = r[2];
	}
	if (max_leaf >= 0x16) {
		cpuid(0x16, 0, r);
		id.l16_eax = r[0];
	}

	cpuid(0x80000000, 0, r);
	unsigned max_ext = r[0];
	if (max_ext >= 0x80000007) {
		cpuid(0x80000007, 0, r);
		id.e7_edx = r[3];
	}
	if (max_ext >= 0x80000008) {
		cpuid(0x80000008, 0, r);
		id.e8_ebx = r[1];
	}
	cpu->features |= cp__x86_features(&id);
	cpu->counter_hz = cp__x86_counter_hz(&id);
	if (max_ext >= 0x80000004)
		brand_string(cpu);
	if (!cpu->model[0])
		str_copy(cpu->model, sizeof(cpu->model), "unknown x86_64");

	if (amd && max_ext >= 0x8000001d) {
		cpuid(0x80000001, 0, r);
		if ((r[2] >> 22) & 1)   /* TOPOEXT: 0x8000001D is valid */
			cache_sizes(0x8000001d, &cpu->l2_bytes, &cpu->llc_bytes);
	} else if (!amd && max_leaf >= 4) {
		cache_sizes(4, &cpu->l2_bytes, &cpu->llc_bytes);
	}

	cp__cpu_identify(cpu);
}
