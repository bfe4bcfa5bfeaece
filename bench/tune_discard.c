/* SPDX-License-Identifier: MIT */
/*
 * tune's discard threshold (discard_from, profile version 3): from what
 * extent cp_zero(CP_ZERO_MAY_DISCARD) hands private anonymous memory back to
 * the kernel rather than storing zeroes. Measured as the zero scenario
 * measures (bench_zero_medians: the extent filled before each try, the
 * contenders shuffled every round), on two regions, one THP-backed and one on
 * 4 KiB pages (MADV_NOHUGEPAGE): the fastest store contender (auto, temporal,
 * nontemporal) against discard, the call alone and the call then one write
 * per 64-byte line, so the faults that bring the pages back are paid where a
 * caller pays them. Discard is measured through the library's own path with
 * the policy's discard_from set to one page for the while (then the policy in
 * force is published again). The fit is derive_discard_from (derive.c, pure,
 * unit-tested): its criterion is stated in derive.h.
 *
 * Extents: whole discard units (THP's 2 MiB) from one unit up, doubling to
 * 64 MiB (--quick: 16 MiB), past the LLCs seen where stores turn memory-bound;
 * the zero scenario measures to 1 GiB. 5 rounds (--quick 3; --rounds N).
 * About 4 s here (--quick about 1 s).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "derive.h"
#include "introspect.h"
#include "map.h"
#include "opts.h"
#include "stats.h"
#include "table.h"
#include "tune.h"
#include "zero_rounds.h"

#define WRITE_FACTOR 1.15          /* the issue's rule for a caller writing it all */
#define TOP_BYTES ((size_t)128 << 20)
#define QUICK_TOP_BYTES ((size_t)16 << 20)

static const char *const backing_names[DERIVE_NBACKINGS] = { "THP", "4k pages" };

/* A region of `bytes` filled, THP-advised (bench_map) or on 4 KiB pages: the
 * huge pages bench_map faulted are dropped, then it is filled again under
 * MADV_NOHUGEPAGE. */
static unsigned char *region(size_t bytes, int backing)
{
	unsigned char *p = bench_map(bytes);
	if (p && backing == DERIVE_SMALL_PAGES) {
		if (madvise(p, bytes, MADV_NOHUGEPAGE) || madvise(p, bytes, MADV_DONTNEED)) {
			bench_unmap(p, bytes);
			return NULL;
		}
		memset(p, 0x5a, bytes);
	}
	return p;
}

/* The fastest of the store contenders (all but the last, discard) for a use. */
static size_t fastest_store(const double *ms, enum bench_zero_use u)
{
	size_t best = 0;
	for (size_t z = 1; z + 1 < BZ_NCONTENDERS; z++)
		if (ms[z * BZ_NUSES + u] < ms[best * BZ_NUSES + u])
			best = z;
	return best;
}

/* One backing, every extent: the cells, the store contender behind each. */
static int measure_backing(const struct bench_opts *opts, struct tune_discard *d, int b,
			   uint64_t *rng)
{
	size_t top = d->in.pages[d->in.nsizes - 1] * CP_PAGE_SIZE;
	long thp_before = bench_thp_kib();
	unsigned char *buf = region(top, b);
	if (!buf) {
		snprintf(d->why, sizeof(d->why), "no %zu MiB region on %s", top >> 20,
			 backing_names[b]);
		return -1;
	}
	long thp_after = bench_thp_kib();
	d->thp_share[b] = thp_before >= 0 && thp_after >= thp_before ?
			  (double)(thp_after - thp_before) * 1024 / (double)top : -1;
	unsigned flags[BZ_NCONTENDERS];
	for (size_t z = 0; z < BZ_NCONTENDERS; z++)
		flags[z] = bench_zero_contenders[z].flags;
	size_t rounds = opts->rounds ? opts->rounds : opts->quick ? 3 : 5;
	int rc = 0;
	for (size_t i = 0; i < d->in.nsizes && !rc; i++) {
		size_t bytes = d->in.pages[i] * CP_PAGE_SIZE;
		char ext[16];
		double ms[BZ_NCONTENDERS * BZ_NUSES];
		struct bench_zero_try last[BZ_NCONTENDERS];
		bench_progress("tune discard, %s: %s (%zu/%zu)", backing_names[b],
			       bench_size_str(bytes, ext, sizeof(ext)), i + 1, d->in.nsizes);
		bench_zero_medians(buf, bytes, flags, BZ_NCONTENDERS,
				   1u << BZ_CALL | 1u << BZ_WRITE, rounds, rng, ms, last);
		if (last[BZ_NCONTENDERS - 1].discarded != bytes) {
			snprintf(d->why, sizeof(d->why), "%zu of %zu bytes discarded at %s on %s "
				 "(madvise refused, or not private anonymous memory)",
				 last[BZ_NCONTENDERS - 1].discarded, bytes, ext, backing_names[b]);
			rc = -1;
		}
		size_t sc = fastest_store(ms, BZ_CALL), sw = fastest_store(ms, BZ_WRITE);
		const double *dz = &ms[(BZ_NCONTENDERS - 1) * BZ_NUSES];
		d->in.cell[i][b] = (struct derive_discard_cell){
			ms[sc * BZ_NUSES + BZ_CALL] / 1e3, ms[sw * BZ_NUSES + BZ_WRITE] / 1e3,
			dz[BZ_CALL] / 1e3, dz[BZ_WRITE] / 1e3 };
		d->store_call[i][b] = (int)sc;
		d->store_write[i][b] = (int)sw;
	}
	d->rounds = rounds;
	bench_unmap(buf, top);
	return rc;
}

int tune_discard_measure(const struct bench_opts *opts, struct tune_discard *d)
{
	memset(d, 0, sizeof(*d));
	d->unit = bench_discard_unit();
	size_t top = opts->quick ? QUICK_TOP_BYTES : TOP_BYTES;
	if (d->unit > top / 8) {
		snprintf(d->why, sizeof(d->why), "the discard unit is %zu KiB, too large for "
			 "extents to %zu MiB", d->unit >> 10, top >> 20);
		return -1;
	}
	/* from one unit, at least 2 MiB (below it the call alone saves little) */
	for (size_t s = d->unit < ((size_t)2 << 20) ? (size_t)2 << 20 : d->unit; s <= top; s *= 2)
		d->in.pages[d->in.nsizes++] = s / CP_PAGE_SIZE;
	/* THP where it is on (the unit is then the huge page), 4 KiB pages always */
	d->in.backings = 1u << DERIVE_SMALL_PAGES;
	if (d->unit > CP_PAGE_SIZE)
		d->in.backings |= 1u << DERIVE_THP;
	d->in.write_backings = d->in.backings & 1u << DERIVE_THP;
	d->in.write_factor = WRITE_FACTOR;

	/* discard at every extent: the policy in force with discard_from one page */
	if (bench_policy_discard_all()) {
		snprintf(d->why, sizeof(d->why), "cannot publish a policy that discards");
		return -1;
	}
	uint64_t rng = 0x243f6a8885a308d3ull;
	int rc = 0;
	for (int b = 0; b < DERIVE_NBACKINGS && !rc; b++)
		if (d->in.backings >> b & 1)
			rc = measure_backing(opts, d, b, &rng);
	if (bench_policy_restore())
		abort();   /* a second publish: well inside the cap */
	if (rc)
		return -1;
	if (derive_discard_from(&d->in, &d->r)) {
		snprintf(d->why, sizeof(d->why), "no fit of these figures");
		return -1;
	}
	d->measured = 1;
	return 0;
}

size_t tune_discard_pages(const struct tune_discard *d)
{
	return d->measured ? d->r.from_pages : 0;
}

/* Where the threshold came from, as comment lines of the profile. */
void tune_discard_comment(const struct tune_discard *d, char *comment, size_t len)
{
	size_t l = strlen(comment);
	char a[16], top[16];
	bench_size_str(d->in.pages[0] * CP_PAGE_SIZE, a, sizeof(a));
	bench_size_str(d->in.pages[d->in.nsizes - 1] * CP_PAGE_SIZE, top, sizeof(top));
	if (!d->measured) {
		snprintf(comment + l, len - l, "# discard_from: not measured (%s): the built-in "
			 "or generic one applies\n", d->why);
		return;
	}
	l += (size_t)snprintf(comment + l, len - l, "# discard_from: the smallest extent (%s to "
			      "%s measured) from which cp_zero(MAY_DISCARD)'s\n# call alone beats "
			      "the fastest store clear%s and, then every line written,\n# takes at "
			      "most %.2fx the store clear then written%s\n", a, top,
			      d->in.backings == (1u << DERIVE_NBACKINGS) - 1 ? " on THP and 4k pages" :
			      "", d->in.write_factor, d->in.write_backings == 1u << DERIVE_THP ?
			      " (THP)" : " (no THP here: not applied)");
	if (l >= len)
		return;
	/* the extent that decided: the largest that fails, else the threshold */
	int failed = d->r.fail_at < d->in.nsizes;
	size_t at = failed ? d->r.fail_at : 0;
	bench_size_str(d->in.pages[at] * CP_PAGE_SIZE, a, sizeof(a));
	l += (size_t)snprintf(comment + l, len - l, "# at %s (%s), discard/store:", a,
			      failed ? "the largest extent that fails" : "the threshold");
	for (int b = 0; b < DERIVE_NBACKINGS && l < len; b++)
		if (d->in.backings >> b & 1)
			l += (size_t)snprintf(comment + l, len - l, "%s %.2f alone, %.2f then "
					      "written (%s)", b && (d->in.backings & 1) ? ";\n#" : "",
					      d->r.call_ratio[at][b], d->r.write_ratio[at][b],
					      backing_names[b]);
	if (l < len)
		snprintf(comment + l, len - l, "\n");
}

struct bench_table *tune_discard_table(const struct tune_discard *d)
{
	static const char *const cols[] = { "extent", "backing", "store", "store ms",
		"discard ms", "discard/store", "store+write", "store+write ms",
		"discard+write ms", "discard+write/store+write", "write rule", "pass" };
	struct bench_table *tb = bench_table_new(
		"tune discard: median ms, the fastest store clear against cp_zero(MAY_DISCARD)",
		BT_TEXT | BT_DATA, 12, cols);
	bench_table_csv_suffix(tb, "discard");
	for (size_t i = 0; i < d->in.nsizes; i++)
		for (int b = 0; b < DERIVE_NBACKINGS; b++) {
			if (!(d->in.backings >> b & 1))
				continue;
			const struct derive_discard_cell *c = &d->in.cell[i][b];
			char ext[16];
			bench_table_row(tb);
			bench_cell_str(tb, bench_size_str(d->in.pages[i] * CP_PAGE_SIZE, ext,
							  sizeof(ext)));
			bench_cell_str(tb, backing_names[b]);
			bench_cell_str(tb, bench_zero_contenders[d->store_call[i][b]].name);
			bench_cell_num(tb, c->store_call * 1e3, "%.3f");
			bench_cell_num(tb, c->discard_call * 1e3, "%.3f");
			bench_cell_num(tb, d->r.call_ratio[i][b], "%.2f");
			bench_cell_str(tb, bench_zero_contenders[d->store_write[i][b]].name);
			bench_cell_num(tb, c->store_write * 1e3, "%.3f");
			bench_cell_num(tb, c->discard_write * 1e3, "%.3f");
			bench_cell_num(tb, d->r.write_ratio[i][b], "%.2f");
			bench_cell_num(tb, d->in.write_backings >> b & 1, "%.0f");
			bench_cell_num(tb, d->r.pass[i], "%.0f");
		}
	return tb;
}

void tune_discard_note(const struct tune_discard *d)
{
	char a[16];
	if (!d->measured) {
		bench_note("discard_from: not measured (%s); the profile leaves it out.", d->why);
		return;
	}
	for (int b = 0; b < DERIVE_NBACKINGS; b++)
		if ((d->in.backings >> b & 1) && d->thp_share[b] >= 0)
			bench_note("discard, %s region: %.0f %% of it THP-backed when filled "
				   "(AnonHugePages).", backing_names[b], 100 * d->thp_share[b]);
	bench_note("discard_from %s: the smallest extent from which every larger one passes too "
		   "(none: the largest fails). An extent passes where discarding alone beats the "
		   "fastest store clear on every backing and, then every line written, takes at "
		   "most %.2fx the store clear then written%s; %zu rounds each.",
		   d->r.from_pages == DERIVE_DISCARD_NONE ? "none" :
		   bench_size_str(d->r.from_pages * CP_PAGE_SIZE, a, sizeof(a)),
		   d->in.write_factor, d->in.write_backings ? " on THP" : " (no THP: no write rule)",
		   d->rounds);
}
