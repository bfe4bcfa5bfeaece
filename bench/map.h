/* SPDX-License-Identifier: MIT */
/* Memory to measure on (map.c): mappings 2 MiB aligned and faulted in, what
 * /proc says of memory. */
#ifndef CLEARBENCH_MAP_H
#define CLEARBENCH_MAP_H

#include <stddef.h>

/* Anonymous mapping of `bytes`, 2 MiB aligned, THP advised, faulted in so the
 * kernel's own zeroing stays out of the figures. NULL after a message. */
void *bench_map(size_t bytes);
void bench_unmap(void *buf, size_t bytes);
/* MemAvailable of /proc/meminfo in bytes, 0 when unknown. */
size_t bench_mem_available(void);
/* This process's AnonHugePages in KiB (smaps_rollup), or -1. */
long bench_thp_kib(void);

#endif
