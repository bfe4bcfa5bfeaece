/* SPDX-License-Identifier: MIT */
/* Clocks and the statistics every scenario reports. */
#define _GNU_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "stats.h"

static double clock_seconds(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double bench_now(void)
{
	return clock_seconds(CLOCK_MONOTONIC);
}

double bench_thread_cpu_now(void)
{
	return clock_seconds(CLOCK_THREAD_CPUTIME_ID);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* v sorted into a new array (n > 0), which the caller frees. */
static double *sorted_copy(const double *v, size_t n)
{
	double *s = malloc(n * sizeof(*s));
	if (!s)
		abort();
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	return s;
}

/* Linear interpolation between closest ranks of s, sorted, n > 0. */
static double sorted_percentile(const double *s, size_t n, double p)
{
	double pos = p / 100.0 * (double)(n - 1);
	size_t lo = (size_t)pos;
	return lo + 1 < n ? s[lo] + (pos - (double)lo) * (s[lo + 1] - s[lo]) : s[n - 1];
}

double bench_percentile(const double *v, size_t n, double p)
{
	if (n == 0)
		return NAN;
	double *s = sorted_copy(v, n);
	double r = sorted_percentile(s, n, p);
	free(s);
	return r;
}

double bench_median(const double *v, size_t n)
{
	return bench_percentile(v, n, 50.0);
}

double bench_min(const double *v, size_t n)
{
	double m = INFINITY;
	for (size_t i = 0; i < n; i++)
		m = v[i] < m ? v[i] : m;
	return m;
}

double bench_max(const double *v, size_t n)
{
	double m = -INFINITY;
	for (size_t i = 0; i < n; i++)
		m = v[i] > m ? v[i] : m;
	return m;
}

/* Sample standard deviation (n - 1), as perf stat and the Linux threads report. */
void bench_mean_stddev(const double *v, size_t n, double *mean, double *stddev)
{
	double sum = 0, sq = 0;
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	double m = n ? sum / (double)n : NAN;
	for (size_t i = 0; i < n; i++)
		sq += (v[i] - m) * (v[i] - m);
	*mean = m;
	*stddev = n > 1 ? sqrt(sq / (double)(n - 1)) : 0.0;
}

/* The median of v with a distribution-free interval: the k-th smallest and
 * k-th largest values, k the largest rank whose binomial tail leaves each side
 * at most 2.5 % (k at least 1, so with 5 values the interval is min-max and
 * covers 94 %). No assumption on the shape of the noise, which on these VMs
 * is skewed and long-tailed. */
double bench_median_interval(const double *v, size_t n, double *lo, double *hi)
{
	*lo = *hi = NAN;
	if (n == 0)
		return NAN;
	double *s = sorted_copy(v, n);
	/* tail = P(Binomial(n, 1/2) <= k - 1), grown one rank at a time */
	double term = pow(0.5, (double)n), tail = term;
	size_t k = 1;
	while (k < n / 2) {
		term *= (double)(n - k + 1) / (double)k;   /* P(B = k) from P(B = k - 1) */
		if (tail + term > 0.025)
			break;
		tail += term;
		k++;
	}
	*lo = s[k - 1];
	*hi = s[n - k];
	double median = sorted_percentile(s, n, 50.0);
	free(s);
	return median;
}

uint64_t bench_random(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dull;
}

void bench_shuffle(size_t *idx, size_t n, uint64_t *state)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)(bench_random(state) % i);
		size_t t = idx[i - 1];
		idx[i - 1] = idx[j];
		idx[j] = t;
	}
}

double bench_gbs(size_t bytes, double seconds)
{
	return seconds > 0 ? (double)bytes / seconds / 1e9 : NAN;
}

const char *bench_size_str(size_t bytes, char *buf, size_t len)
{
	static const char units[] = "KMG";
	const char *u = NULL;
	size_t v = bytes;
	for (int i = 0; i < 3 && v >= 1024 && v % 1024 == 0; i++) {
		v /= 1024;
		u = &units[i];
	}
	if (u)
		snprintf(buf, len, "%zu%c", v, *u);
	else
		snprintf(buf, len, "%zu", bytes);
	return buf;
}

static int progress_muted;

void bench_progress_mute(int mute)
{
	progress_muted = mute;
}

/* Every step from the first: main's line starts the clock, so a user sees the
 * run begin within a second and each step (an extent, a cell) as it starts. */
void bench_progress(const char *fmt, ...)
{
	static double start;
	if (progress_muted)
		return;
	double now = bench_now();
	if (start == 0)
		start = now;
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "clearbench: [%4.0fs] ", now - start);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

void bench_print_wrapped(FILE *f, const char *lead, size_t indent, const char *text)
{
	size_t col = strlen(lead), start = col;
	fputs(lead, f);
	for (const char *p = text; *p;) {
		size_t w = strcspn(p, " \n");
		if (!w) {   /* spaces collapse; the text's own newlines stay */
			if (*p++ == '\n') {
				fprintf(f, "\n%*s", (int)indent, "");
				col = start = indent;
			}
			continue;
		}
		if (col > start && col + 1 + w > BENCH_WRAP) {
			fprintf(f, "\n%*s", (int)indent, "");
			col = start = indent;
		} else if (col > start) {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, w, f);
		col += w;
		p += w;
	}
	fputc('\n', f);
}
