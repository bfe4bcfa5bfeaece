/* SPDX-License-Identifier: MIT */
/*
 * cp_check's CPU-identity checks: what detection reports for the CPU (model)
 * it runs on, against what the matrix row says that model is, and the pure
 * identification (uarch, preference bits) over described CPUs, which needs
 * no particular host. Internals used: struct cp__cpu, cp__cpu_detect and
 * cp__cpu_identify (arch/x86_64/cpu.c), features.def.
 */
#ifndef CP_CPU_IDENTITY_H
#define CP_CPU_IDENTITY_H

#include "plain.h"
#include "cpu.h"

#if defined(__x86_64__)
#define THIS_ARCH "x86_64"
#else
#define THIS_ARCH "arm64"
#endif

static const struct { const char *token, *arch; unsigned bit; } feature_tokens[] = {
#define CP_FEATURE(id, token, arch, bit) { #token, #arch, CP__F_##id },
#include "features.def"
#undef CP_FEATURE
};
#define NFEATURE_TOKENS (sizeof(feature_tokens) / sizeof(feature_tokens[0]))

/* Is token in the comma-separated list? */
static inline int in_list(const char *list, const char *token)
{
	size_t n = strlen(token);
	for (const char *p = list; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] != '\0'))
		if (strcspn(p, ",") == n && !strncmp(p, token, n))
			return 1;
	return 0;
}

/* This arch's feature tokens of a feature mask, comma-separated, into buf. */
static inline void feature_names(unsigned features, char *buf, size_t size)
{
	buf[0] = '\0';
	for (size_t i = 0; i < NFEATURE_TOKENS; i++)
		if (!strcmp(feature_tokens[i].arch, THIS_ARCH) && (features & feature_tokens[i].bit))
			snprintf(buf + strlen(buf), size - strlen(buf), "%s%s",
				 buf[0] ? "," : "", feature_tokens[i].token);
}

/* The preference bits' names, comma-separated, into buf. */
static inline const char *pref_names(unsigned prefs, char *buf, size_t size)
{
	static const struct { unsigned bit; const char *name; } names[] = {
		{ CP__P_STRING_MID, "string_mid" }, { CP__P_NO_AVX512, "no_avx512" },
		{ CP__P_SHORT_UNCACHED_NT, "short_uncached_nt" },
	};
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (prefs & names[i].bit)
			snprintf(buf + strlen(buf), size - strlen(buf), "%s%s",
				 buf[0] ? "," : "", names[i].name);
	return buf[0] ? buf : "none";
}

/* What detection finds here, against the row's features, uarch and signature
 * (each NULL: not asserted; a feature listed as ?token: either way). */
static void check_cpu_identity(const char *features, const char *uarch, const char *signature)
{
	struct cp__cpu cpu;
	char got[128], sig[48], why[320], prefs_buf[64];

	current_check = "cpu identity";
	cp__cpu_detect(&cpu);
	feature_names(cpu.features, got, sizeof(got));
	snprintf(sig, sizeof(sig), "%u/%u/%u", cpu.family, cpu.model_id, cpu.stepping);
	printf("cpu: %s family/model/stepping %s uarch %s features %s prefs %s\n", cpu.vendor,
	       sig, cpu.uarch[0] ? cpu.uarch : "(unknown)", got[0] ? got : "(none)",
	       pref_names(cpu.prefs, prefs_buf, sizeof(prefs_buf)));
	if (features) {
		int same = 1;
		for (size_t i = 0; i < NFEATURE_TOKENS; i++) {
			char either[40];
			snprintf(either, sizeof(either), "?%s", feature_tokens[i].token);
			if (!strcmp(feature_tokens[i].arch, THIS_ARCH) && !in_list(features, either) &&
			    !(cpu.features & feature_tokens[i].bit) != !in_list(features, feature_tokens[i].token))
				same = 0;
		}
		snprintf(why, sizeof(why), "detected {%s}, the model has {%s}", got, features);
		same ? check_pass("cpu features as the model states")
		     : check_fail("cpu features as the model states", why);
	}
	if (uarch) {
		snprintf(why, sizeof(why), "detected \"%s\", expected \"%s\"", cpu.uarch, uarch);
		strcmp(cpu.uarch, uarch) ? check_fail("cpu microarchitecture name", why)
					 : check_pass("cpu microarchitecture name");
	}
	if (signature) {
		snprintf(why, sizeof(why), "detected %s, expected %s", sig, signature);
		strcmp(sig, signature) ? check_fail("cpu display family/model/stepping", why)
				       : check_pass("cpu display family/model/stepping");
	}
}

/* cp__cpu_identify over described CPUs: model-range edges included. */
static void check_described_cpus(void)
{
#if defined(__x86_64__)
	enum { E = CP__F_ERMS, S = CP__F_FSRM, A2 = CP__F_AVX2, A5 = CP__F_AVX512, CZ = CP__F_CLZERO };
	enum { MID = CP__P_STRING_MID, NO512 = CP__P_NO_AVX512,
	       F19 = CP__P_NO_AVX512 | CP__P_SHORT_UNCACHED_NT };   /* AMD family 0x19 */
	static const struct {
		const char *vendor;
		unsigned family, model, features;
		const char *uarch;
		unsigned prefs;
	} cpus[] = {
		{ "GenuineIntel", 6, 0x8f, E | S | A2 | A5, "intel-sapphire-rapids", MID },
		{ "GenuineIntel", 6, 0xcf, E | S | A2 | A5, "intel-emerald-rapids", MID },
		{ "GenuineIntel", 6, 0xad, E | S | A2 | A5, "intel-granite-rapids", MID },
		{ "GenuineIntel", 6, 0xae, E | S | A2 | A5, "intel-granite-rapids", MID },
		{ "GenuineIntel", 6, 0x6a, E | S | A2 | A5, "intel-icelake-server", MID },
		{ "GenuineIntel", 6, 0x6c, E | A2 | A5, "intel-icelake-server", MID },
		{ "GenuineIntel", 6, 0x6b, E | A2, "", MID },              /* between the Ice Lakes */
		{ "GenuineIntel", 6, 0x3c, E | A2, "", MID },              /* Haswell */
		{ "GenuineIntel", 6, 0x3c, A2, "", 0 },                    /* no fast strings */
		{ "GenuineIntel", 15, 0x8f, E, "", MID },                  /* SPR's model, not family 6 */
		{ "AuthenticAMD", 0x17, 0x01, A2, "amd-zen1", NO512 },
		{ "AuthenticAMD", 0x17, 0x2f, A2, "amd-zen1", NO512 },
		{ "AuthenticAMD", 0x17, 0x30, A2, "amd-zen2", NO512 },
		{ "AuthenticAMD", 0x17, 0x31, A2 | CZ, "amd-zen2", NO512 }, /* Rome */
		{ "AuthenticAMD", 0x17, 0x50, A2, "amd-zen1", NO512 },
		{ "AuthenticAMD", 0x17, 0x71, A2, "amd-zen2", NO512 },
		{ "AuthenticAMD", 0x17, 0x8f, A2, "", NO512 },
		{ "AuthenticAMD", 0x19, 0x01, E | S | A2 | CZ, "amd-zen3", F19 }, /* Milan */
		{ "AuthenticAMD", 0x19, 0x0f, E | A2, "amd-zen3", F19 },
		{ "AuthenticAMD", 0x19, 0x10, E | A2, "amd-zen4", F19 },
		{ "AuthenticAMD", 0x19, 0x11, E | S | A2 | A5 | CZ, "amd-zen4", F19 }, /* Genoa */
		{ "AuthenticAMD", 0x19, 0x1f, E | A2, "amd-zen4", F19 },
		{ "AuthenticAMD", 0x19, 0x20, E | A2, "amd-zen3", F19 },
		{ "AuthenticAMD", 0x19, 0x5f, E | A2, "amd-zen3", F19 },
		{ "AuthenticAMD", 0x19, 0x61, E | S | A2 | A5, "amd-zen4", F19 }, /* Raphael */
		{ "AuthenticAMD", 0x19, 0xa0, E | S | A2 | A5, "amd-zen4", F19 }, /* Bergamo */
		{ "AuthenticAMD", 0x19, 0xb0, E | A2, "", F19 },
		{ "AuthenticAMD", 0x1a, 0x02, E | S | A2 | A5, "amd-zen5", NO512 }, /* Turin */
		{ "AuthenticAMD", 0x1a, 0x44, E | S | A2 | A5, "amd-zen5", NO512 },
		{ "AuthenticAMD", 0x1a, 0x30, E | A2, "", NO512 },
		{ "AuthenticAMD", 15, 107, 0, "", NO512 },                 /* qemu64 */
		{ "HygonGenuine", 0x18, 0x00, A2, "", NO512 },
		{ "CentaurHauls", 6, 0x0f, E, "", 0 },
	};
	size_t n = sizeof(cpus) / sizeof(cpus[0]), wrong = 0;
	char why[96], got[64], want[64];
	current_check = "described CPUs";
	for (size_t i = 0; i < n; i++) {
		struct cp__cpu cpu;
		memset(&cpu, 0, sizeof(cpu));
		snprintf(cpu.vendor, sizeof(cpu.vendor), "%s", cpus[i].vendor);
		cpu.family = cpus[i].family;
		cpu.model_id = cpus[i].model;
		cpu.features = cpus[i].features;
		cpu.prefs = ~0u;                /* identify computes, never ORs in */
		cp__cpu_identify(&cpu);
		if (strcmp(cpu.uarch, cpus[i].uarch) || cpu.prefs != cpus[i].prefs) {
			printf("      %s family 0x%x model 0x%x: uarch \"%s\" prefs %s, "
			       "expected \"%s\" prefs %s\n", cpus[i].vendor, cpus[i].family,
			       cpus[i].model, cpu.uarch, pref_names(cpu.prefs, got, sizeof(got)),
			       cpus[i].uarch, pref_names(cpus[i].prefs, want, sizeof(want)));
			wrong++;
		}
	}
	snprintf(why, sizeof(why), "%zu of %zu described CPUs identified wrongly (above)", wrong, n);
	wrong ? check_fail("cp__cpu_identify on described CPUs", why)
	      : check_pass("cp__cpu_identify on described CPUs");
#endif
}

#endif
