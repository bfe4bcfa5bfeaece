/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the profile parser over any bytes. It must never read
 * past the input or crash, and whatever it accepts must be a whole profile
 * (version 1, 2 or 3; bands, and version 3's uncached bands, ascending from
 * 0, at most 8, each a usable kernel; no version-3 key in an older version)
 * from which selection builds band lists of usable kernels only.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testhooks.h"

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "fuzz_profile: %s\n", what);
		abort();
	}
}

static int usable(const struct cp__kernel_list *l, const struct cp_kernel *k)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->k[i] == k)
			return 1;
	return 0;
}

/* A profile's own rows: n of them (1 .. 8 where required), from 0, ascending. */
static void check_rows(const struct cp__band *rows, unsigned n, int required)
{
	check(n <= CP__MAX_BANDS && (n >= 1 || !required), "band count");
	check(n == 0 || rows[0].from_pages == 0, "first band not at 0");
	for (unsigned i = 1; i < n; i++)
		check(rows[i].from_pages > rows[i - 1].from_pages, "bands not ascending");
}

static void check_bands(const struct cp__kernel_list *l, const struct cp__bands *b)
{
	check(b->band[0].from_pages == 0, "a band list must start at 0");
	for (unsigned i = 0; i < CP__MAX_BANDS; i++) {
		check(usable(l, b->band[i].kernel), "a band's kernel is not usable here");
		if (i)
			check(b->band[i].from_pages > b->band[i - 1].from_pages ||
			      b->band[i].from_pages == CP__BAND_UNUSED, "bands not ascending");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct cp__state *s = cp__state();
	/* an exact-size copy, so ASan sees any read past the end */
	char *text = malloc(size ? size : 1);
	memcpy(text, data, size);
	struct cp__profile pr;
	struct cp__profile_error err;
	int r = cp__profile_parse(text, size, &s->kernels, &pr, &err);
	check(r == 0 || r == -22, "the parser returns 0 or -EINVAL");
	if (r == 0) {
		check(pr.version >= 1 && pr.version <= 3, "accepted an unknown version");
		if (pr.version >= 2) {
			check(pr.has_cpu, "version 2 or 3 without a cpu line");
			check_rows(pr.bands, pr.nbands, 1);
		}
		check_rows(pr.uncached, pr.nuncached, 0);
		check(pr.version == 3 || (!pr.nuncached && !pr.has_cached_min_mbps),
		      "a version-3 key accepted in an older version");
		struct cp__select_in in = { &s->cpu, &s->kernels, &pr, 0, 0, NULL };
		struct cp__policy p;
		cp__select(&in, &p);
		check_bands(&s->kernels, &p.any);
		check_bands(&s->kernels, &p.hot);
		check_bands(&s->kernels, &p.cold);
		check_bands(&s->kernels, &p.uncached);
		check(p.cached_min_mbps || p.estimate_from_pages == CP__BAND_UNUSED,
		      "no threshold, yet an extent estimated");
		for (unsigned i = 0; i < CP__MAX_BANDS; i++) {
			check(!(p.hot.band[i].kernel->flags & CP_NONTEMPORAL), "hot band not temporal");
			check(p.cold.band[i].kernel->flags & CP_NONTEMPORAL, "cold band temporal");
		}
	} else {
		check(err.why && err.why[0], "an error without a reason");
	}
	free(text);
	return 0;
}
