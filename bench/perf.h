/* SPDX-License-Identifier: MIT */
/* Hardware counters, where perf_event_open gives them (perf.c). */
#ifndef CLEARBENCH_PERF_H
#define CLEARBENCH_PERF_H

#include <stddef.h>
#include "contenders.h"

/* An L1-dcache-loads counter for this thread, or -1 (VMs often have none). */
int bench_l1d_loads_open(void);
/* L1-dcache loads during one c->clear(buf, bytes); NAN when fd < 0. */
double bench_l1d_loads_of(int fd, const struct bench_contender *c, void *buf, size_t bytes);

#endif
