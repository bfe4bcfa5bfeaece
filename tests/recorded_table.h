/* SPDX-License-Identifier: MIT */
/* A recorded sweep from tests/data/ (medians per kernel and extent), for the
 * tests that hold the policy to what the hosts measured: test_generic_rule.c
 * and test_builtin_rows.c. */
#ifndef CP_RECORDED_TABLE_H
#define CP_RECORDED_TABLE_H
#include "testutil.h"
#include <math.h>

#define MAX_ROWS 32
#define MAX_COLS 16
struct table {
	unsigned rows, cols;
	size_t bytes[MAX_ROWS];
	char extent[MAX_ROWS][8];
	char kernel[MAX_COLS][16];
	double gbs[MAX_ROWS][MAX_COLS];        /* 0: not measured */
	char name[64];
};

/* tests/data/NAME: extent,bytes,contender,median_gbs rows, or with a leading
 * target column: the rows of `target` (NULL: the file has none) whose
 * contender is a kernel `is_kernel` knows (not auto, memset, memcpy ...). */
static inline void table_load(struct table *t, const char *name, const char *target,
			      int (*is_kernel)(const char *))
{
	char path[128], line[256];
	snprintf(path, sizeof(path), "tests/data/%s", name);
	FILE *f = fopen(path, "r");
	cr_assert(f, "%s: cannot open (run from the repository root)", path);
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s%s%s", name, target ? " " : "", target ? target : "");
	cr_assert(fgets(line, sizeof(line), f), "%s: empty", path);
	while (fgets(line, sizeof(line), f)) {
		char tg[16] = "", ext[8], col[16];
		size_t bytes;
		double g;
		int ok = target ? sscanf(line, "%15[^,],%7[^,],%zu,%15[^,],%lf", tg, ext, &bytes, col,
					 &g) == 5
				: sscanf(line, "%7[^,],%zu,%15[^,],%lf", ext, &bytes, col, &g) == 4;
		if (!ok || (target && strcmp(tg, target)) || !is_kernel(col))
			continue;
		unsigned r = 0, c = 0;
		while (r < t->rows && t->bytes[r] != bytes)
			r++;
		while (c < t->cols && strcmp(t->kernel[c], col))
			c++;
		cr_assert(r < MAX_ROWS && c < MAX_COLS, "%s: too many rows or kernels", path);
		if (r == t->rows) {
			t->bytes[t->rows] = bytes;
			snprintf(t->extent[t->rows++], sizeof(t->extent[0]), "%s", ext);
		}
		if (c == t->cols)
			strcpy(t->kernel[t->cols++], col);
		t->gbs[r][c] = g;
	}
	fclose(f);
	cr_assert_gt(t->rows, 0, "%s: no rows", t->name);
}

/* A kernel's share of row r's fastest; -1 where it was not measured. */
static inline double ratio(const struct table *t, unsigned r, const char *kernel)
{
	double best = 0, k = -1;
	for (unsigned c = 0; c < t->cols; c++) {
		best = fmax(best, t->gbs[r][c]);
		if (!strcmp(t->kernel[c], kernel) && t->gbs[r][c] > 0)
			k = t->gbs[r][c];
	}
	return k < 0 || best <= 0 ? -1 : k / best;
}
#endif
