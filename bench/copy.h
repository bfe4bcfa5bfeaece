/* SPDX-License-Identifier: MIT */
/* The copy scenario's two parts: copy.c (extents 4 KiB to 1 GiB) and
 * copy_huge.c (one 2 MiB huge page per copy, in the clear's orders). */
#ifndef CLEARBENCH_COPY_H
#define CLEARBENCH_COPY_H

#include <stddef.h>
#include "opts.h"
#include "table.h"
#include "targets.h"

#define COPY_HUGE_BYTES ((size_t)2 << 20)
#define COPY_HUGE_TABLES 2             /* the tables copy_huge adds */

/* The huge-page copy on hot targets and on cold ones (pool: NULL when cold is
 * not measured): prints its tables and adds them to tables[*nt...]. 0 or 1. */
int copy_huge(const struct bench_opts *opts, unsigned targets, struct bench_pool *pool,
	      struct bench_table **tables, size_t *nt);

#endif
