/* SPDX-License-Identifier: MIT */
/*
 * The general-register request (CLEARPAGES_DISABLE=simd) as this process's
 * library took it: no CP_SIMD kernel is listed, found, or picked by the
 * extent policy (any, hot, cold) at any band edge from 1 to 2^18 pages, and a
 * temporal and a non-temporal kernel are still there; no CP_SIMD copy kernel
 * is listed, found or chosen by cp_copy_kernel_for either. Shared by the Criterion
 * suite (tests/test_nosimd.c) and the plain model driver (tests/models/
 * cp_check.c), which run it natively and under qemu. No Criterion.
 */
#ifndef CP_NOSIMD_H
#define CP_NOSIMD_H

#include <stdio.h>
#include <stdlib.h>
#include "clearpages.h"
#include "testhooks.h"

#define NOSIMD_MAX_PAGES ((size_t)1 << 18)

/* Whether CLEARPAGES_DISABLE, as the library parses it, masks SIMD. */
static inline int nosimd_requested(void)
{
	const char *e = getenv("CLEARPAGES_DISABLE");
	return e && (cp__disable_parse(e, NULL, NULL) & CP__F_SIMD);
}

static inline int nosimd_bad(const struct cp_kernel *k, const char *who, size_t n,
			     char *why, size_t whylen)
{
	if (k && !(k->flags & CP_SIMD))
		return 0;
	snprintf(why, whylen, "%s(%zu) gave %s", who, n, k ? k->name : "NULL");
	return 1;
}

/* The picks at n - 1, n and n + 1 (within 1 .. NOSIMD_MAX_PAGES). */
static inline int nosimd_picks_near(size_t n, char *why, size_t whylen)
{
	for (size_t m = n > 1 ? n - 1 : 1; m <= n + 1 && m <= NOSIMD_MAX_PAGES; m++)
		if (nosimd_bad(cp_kernel_for(m), "cp_kernel_for", m, why, whylen) ||
		    nosimd_bad(cp__pick_hot(m), "hot pick", m, why, whylen) ||
		    nosimd_bad(cp__pick_cold(m), "cold pick", m, why, whylen))
			return 1;
	return 0;
}

static inline int nosimd_copy_bad(size_t m, char *why, size_t whylen)
{
	const struct cp_copy_kernel *k = cp_copy_kernel_for(m);
	if (k && !(k->flags & CP_SIMD))
		return 0;
	snprintf(why, whylen, "cp_copy_kernel_for(%zu) gave %s", m, k ? k->name : "NULL");
	return 1;
}

/* The copy kernels: none CP_SIMD listed, found, or chosen at powers of two
 * and around the copy crossover. 0, or 1 with why[]. */
static inline int nosimd_copy_check(char *why, size_t whylen)
{
	const struct cp_copy_kernel *const *list;
	size_t n = cp_copy_kernels(&list);
	const struct cp__copy_bands *bands = &cp__state()->policy.copy;
	for (size_t i = 0; i < n; i++)
		if (list[i]->flags & CP_SIMD) {
			snprintf(why, whylen, "cp_copy_kernels() lists %s", list[i]->name);
			return 1;
		}
	for (size_t i = 0; i < cp__copy_kernel_table_len; i++) {
		const struct cp_copy_kernel *k = &cp__copy_kernel_table[i].kernel;
		if ((k->flags & CP_SIMD) && cp_copy_kernel_find(k->name)) {
			snprintf(why, whylen, "cp_copy_kernel_find(\"%s\") finds it", k->name);
			return 1;
		}
	}
	size_t at[3 * CP__MAX_BANDS + 1], nat = 0;
	for (unsigned b = 1; b < CP__MAX_BANDS && bands->band[b].from_pages != CP__BAND_UNUSED; b++) {
		at[nat++] = bands->band[b].from_pages - 1;
		at[nat++] = bands->band[b].from_pages;
		at[nat++] = bands->band[b].from_pages + 1;
	}
	at[nat++] = SIZE_MAX;
	for (size_t p = 1; p <= NOSIMD_MAX_PAGES; p *= 2)
		if (nosimd_copy_bad(p, why, whylen))
			return 1;
	for (size_t i = 0; i < nat; i++)
		if (nosimd_copy_bad(at[i], why, whylen))
			return 1;
	return 0;
}

/* 0 when the request holds, else 1 with why[]. */
static inline int nosimd_check(char *why, size_t whylen)
{
	if (nosimd_copy_check(why, whylen))
		return 1;
	const struct cp_kernel *const *list;
	size_t n = cp_kernels(&list);
	int temporal = 0, nontemporal = 0;

	for (size_t i = 0; i < n; i++) {
		if (list[i]->flags & CP_SIMD) {
			snprintf(why, whylen, "cp_kernels() lists %s", list[i]->name);
			return 1;
		}
		list[i]->flags & CP_NONTEMPORAL ? nontemporal++ : temporal++;
	}
	if (!temporal || !nontemporal) {
		snprintf(why, whylen, "%d temporal, %d non-temporal kernels left", temporal,
			 nontemporal);
		return 1;
	}
	for (size_t i = 0; i < cp__kernel_table_len; i++) {
		const struct cp_kernel *k = &cp__kernel_table[i].kernel;
		if ((k->flags & CP_SIMD) && cp_kernel_find(k->name)) {
			snprintf(why, whylen, "cp_kernel_find(\"%s\") finds it", k->name);
			return 1;
		}
	}
	for (size_t p = 1; p <= NOSIMD_MAX_PAGES; p *= 2)
		if (nosimd_picks_near(p, why, whylen))
			return 1;
	const struct cp__policy *pol = &cp__state()->policy;
	const struct cp__bands *lists[] = { &pol->any, &pol->hot, &pol->cold };
	for (size_t l = 0; l < 3; l++)
		for (unsigned b = 0; b < cp__bands_count(lists[l]); b++)
			if (lists[l]->band[b].from_pages <= NOSIMD_MAX_PAGES &&
			    nosimd_picks_near(lists[l]->band[b].from_pages, why, whylen))
				return 1;
	return 0;
}

#endif
