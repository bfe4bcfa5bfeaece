/* SPDX-License-Identifier: MIT */
/* Clocks, statistics, random numbers, sizes as text, the progress line (stats.c). */
#ifndef CLEARBENCH_STATS_H
#define CLEARBENCH_STATS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

double bench_now(void);                             /* seconds, monotonic */
/* This thread's CPU time, user + system (page faults included): on a shared host a preempted
 * thread does not count the time others ran. */
double bench_thread_cpu_now(void);
double bench_median(const double *v, size_t n);     /* v is not modified */
double bench_percentile(const double *v, size_t n, double p);  /* p in [0, 100] */
/* the median with a ~95 % distribution-free interval [*lo, *hi] */
double bench_median_interval(const double *v, size_t n, double *lo, double *hi);
double bench_min(const double *v, size_t n);
double bench_max(const double *v, size_t n);
void bench_mean_stddev(const double *v, size_t n, double *mean, double *stddev);
uint64_t bench_random(uint64_t *state);             /* xorshift64*, state != 0 */
void bench_shuffle(size_t *idx, size_t n, uint64_t *state);
double bench_gbs(size_t bytes, double seconds);     /* decimal GB/s, as the Linux threads */
/* "4K", "2M", "1G", or bytes when not a whole unit. */
const char *bench_size_str(size_t bytes, char *buf, size_t len);
/* A progress line on stderr, "clearbench: [  Ns] ...", seconds since the first. */
void bench_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void bench_progress_mute(int mute);                 /* report: its own line per scenario */
/* Prose that fits a terminal: lead, then text wrapped at BENCH_WRAP columns at its
 * spaces (and its own newlines), each further line indented; a newline at the end. */
#define BENCH_WRAP 100
void bench_print_wrapped(FILE *f, const char *lead, size_t indent, const char *text);

#endif
