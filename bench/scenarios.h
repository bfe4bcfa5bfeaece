/* SPDX-License-Identifier: MIT */
/* The scenarios, one line each in scenarios.def: int bench_<name>(const
 * struct bench_opts *); 0 or an exit status (clearbench.c and report.c run them). */
#ifndef CLEARBENCH_SCENARIOS_H
#define CLEARBENCH_SCENARIOS_H

#include "opts.h"

#define SCENARIO(name, fn, help) int fn(const struct bench_opts *opts);
#include "scenarios.def"
#undef SCENARIO

#endif
