/* SPDX-License-Identifier: MIT */
/*
 * Selection: a pure function from a described CPU, its usable kernels, an
 * optional profile and the overrides to an extent policy. No globals, no I/O,
 * so tests describe any CPU (a Zen 4, a Sapphire Rapids, qemu64, an A64FX)
 * and check the bands without running on one.
 */
#ifndef CP_SELECT_H
#define CP_SELECT_H

#include "cpu.h"
#include "policy.h"
#include "profile.h"
#include "registry.h"

/* A built-in profile: measured on a named microarchitecture (the figures
 * behind each row: bench/results/<host>/). Kernels by name, resolved against
 * the usable list; a row whose kernel is not usable (CLEARPAGES_DISABLE) takes
 * the generic choice of its class. */
struct cp__builtin_band {
	size_t from_pages;
	const char *kernel;
};
struct cp__builtin {
	const char *uarch;                      /* cp__cpu.uarch it applies to */
	unsigned nbands;
	struct cp__builtin_band bands[CP__MAX_BANDS];
	size_t parallel_min_share_pages;        /* 0 = never split */
	unsigned cached_min_mbps;               /* residency threshold; 0: the generic one */
	size_t discard_from_pages;              /* cp_zero's discard; 0: the generic one,
						   CP__BAND_UNUSED: never */
	unsigned ncopy;                         /* copy bands (kernels of copy_kernels.def);
						   0: derived from the bands above */
	struct cp__builtin_band copy[4];
};
extern const struct cp__builtin cp__builtins[];
extern const size_t cp__builtins_len;

struct cp__select_in {
	const struct cp__cpu *cpu;
	const struct cp__kernel_list *usable;   /* CLEARPAGES_DISABLE applied */
	const struct cp__profile *profile;      /* NULL: built-in or generic; else
						   already checked against cpu */
	int has_nt_threshold;                   /* CLEARPAGES_NT_THRESHOLD */
	size_t nt_threshold_pages;
	const struct cp_kernel *forced;         /* CLEARPAGES_KERNEL, or NULL */
	const struct cp__copy_kernel_list *copy_usable;   /* NULL: no copy bands */
};

/* Fills out; returns the built-in profile used for the defaults, or NULL
 * when the generic rule made them. */
const struct cp__builtin *cp__select(const struct cp__select_in *in, struct cp__policy *out);
/* Rows (ascending from 0) into a band list: equal neighbours merged, at most
 * CP__MAX_BANDS, unused slots filled. n == 0 leaves the list as it was. */
void cp__bands_set(struct cp__bands *b, const struct cp__band *rows, unsigned n);
/* Copy bands from p->any: each band's kernel replaced by its copy
 * counterpart (copy_kernels.def's CP_COPY_FOR, else the copy kernel of the
 * same name, else the first usable copy kernel of its class), at the same
 * extent (copy_bands.c says why); and copy_uncached. A built-in
 * row's copy kernel that is not usable or is demoted takes the same class's
 * (copy_bands.c: the class is always kept). */
void cp__copy_bands_derive(const struct cp__copy_kernel_list *usable, struct cp__policy *p);
/* The copy bands of a policy selected for in (copy_bands.c): b's copy rows,
 * unless it has none or CLEARPAGES_NT_THRESHOLD is set; else derived. */
void cp__copy_bands_select(const struct cp__select_in *in, const struct cp__builtin *b,
			   struct cp__policy *p);
/* The first usable copy kernel of class nt (CP_NONTEMPORAL or 0), zmm
 * kernels skipped where prefs has CP__P_NO_AVX512 unless nothing else of
 * the class is left (copy_bands.c). */
const struct cp_copy_kernel *cp__copy_class_pick(const struct cp__copy_kernel_list *usable,
						 unsigned prefs, unsigned nt);
/* The built-in profile for a microarchitecture name, or NULL. */
const struct cp__builtin *cp__builtin_find(const char *uarch);

#endif
