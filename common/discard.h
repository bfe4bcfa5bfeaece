/* SPDX-License-Identifier: MIT */
#ifndef CP_DISCARD_H
#define CP_DISCARD_H
#include <stddef.h>
/* cp_zero's CP_ZERO_MAY_DISCARD over npages (>= 1) pages at a page-aligned
 * addr: the parts that are private anonymous memory, aligned to the THP size
 * and at least from_pages long, handed back with MADV_DONTNEED; every other
 * part given to store(part, its pages, ctx). Returns the bytes handed back.
 * Never fails: what cannot be discarded is stored. Keeps errno. Hosted only. */
typedef void (*cp__store_fn)(void *addr, size_t npages, void *ctx);
size_t cp__discard(void *addr, size_t npages, size_t from_pages, cp__store_fn store, void *ctx);

/* Memory nobody has touched since it was mapped or handed back: 1 when none
 * of CP__UNTOUCHED_SAMPLES pages spread evenly over [addr, npages) is
 * resident (mincore; stops at the first that is). Stores there fault every
 * page in, so discard pays whatever discard_from says of resident memory.
 * 0 when any is, or mincore fails. Keeps errno. Hosted only. */
#define CP__UNTOUCHED_SAMPLES 8
int cp__untouched(void *addr, size_t npages);

/* The unit discarded parts are aligned to (the PMD huge page size where THP
 * is enabled, else the page size); hosted, for tests and clearbench. */
size_t cp__discard_unit(void);
#endif
