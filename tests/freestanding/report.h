/* SPDX-License-Identifier: MIT */
/*
 * The dispatcher's decisions as text, printed the same way by the freestanding
 * program and by a hosted one linking libclearpages.a, so the two can be
 * compared line by line: the policy source, cp_kernels(), and cp_kernel_for(n)
 * for n = each power of two from 1 to 2^20 pages and its neighbours. No libc:
 * the caller gives the function that writes.
 */
#ifndef CP_FS_REPORT_H
#define CP_FS_REPORT_H
#include <stddef.h>
#include "clearpages.h"

struct out {
	void (*write)(const char *s, size_t n);
	char buf[1024];
	size_t n;
};

static void out_flush(struct out *o)
{
	o->write(o->buf, o->n);
	o->n = 0;
}
static void out_str(struct out *o, const char *s)
{
	for (; *s; s++) {
		if (o->n == sizeof(o->buf))
			out_flush(o);
		o->buf[o->n++] = *s;
	}
}
static void out_u64(struct out *o, unsigned long long v)
{
	char d[24];
	int i = (int)sizeof(d) - 1;
	d[i] = '\0';
	do
		d[--i] = (char)('0' + v % 10);
	while (v /= 10);
	out_str(o, d + i);
}

#define REPORT_MAX_POW 20
static void report(struct out *o)
{
	const struct cp_kernel *const *list;
	size_t n = cp_kernels(&list);
	out_str(o, "source: ");
	out_str(o, cp_policy_source());
	out_str(o, "\nkernels: ");
	for (size_t i = 0; i < n; i++) {
		out_str(o, i ? "," : "");
		out_str(o, list[i]->name);
	}
	out_str(o, "\n");
	size_t last = 0;
	for (unsigned p = 0; p <= REPORT_MAX_POW; p++) {
		size_t pow = (size_t)1 << p, around[3] = { pow - 1, pow, pow + 1 };
		for (unsigned j = 0; j < 3; j++) {
			if (around[j] <= last)
				continue;
			last = around[j];
			out_str(o, "for ");
			out_u64(o, last);
			out_str(o, ": ");
			out_str(o, cp_kernel_for(last)->name);
			out_str(o, "\n");
		}
	}
	out_flush(o);
}
#endif
