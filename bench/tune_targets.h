/* SPDX-License-Identifier: MIT */
/* tune's cold and use tables (tune_targets.c). */
#ifndef CLEARBENCH_TUNE_TARGETS_H
#define CLEARBENCH_TUNE_TARGETS_H

#include "clearbench.h"

struct tune_targets_in {
	size_t nkernels, nsizes;
	const struct cp_kernel *const *k;
	const size_t *pages;       /* ascending */
	const int *pick;           /* the tuned bands' kernel per size, an index into k */
};

/* One table per kind of --target other than hot (default: cold and use) into
 * out (room for BK_NKINDS), and the note saying how; returns how many. */
size_t tune_targets(const struct bench_opts *opts, const struct tune_targets_in *in,
		    struct bench_table **out, char *note, size_t notelen);

#endif
