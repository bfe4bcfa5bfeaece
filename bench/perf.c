/* SPDX-License-Identifier: MIT */
/* Hardware counters through perf_event_open. The KVM guests this project runs
 * on expose none (ENOENT): callers then report n/a, never 0. */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "contenders.h"
#include "perf.h"

int bench_l1d_loads_open(void)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HW_CACHE;
	a.config = PERF_COUNT_HW_CACHE_L1D | (PERF_COUNT_HW_CACHE_OP_READ << 8) |
		   (PERF_COUNT_HW_CACHE_RESULT_ACCESS << 16);
	a.disabled = 1;
	a.exclude_kernel = 1;   /* the clearing is user space; also allowed unprivileged */
	a.exclude_hv = 1;
	long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	return fd < 0 ? -1 : (int)fd;
}

double bench_l1d_loads_of(int fd, const struct bench_contender *c, void *buf, size_t bytes)
{
	uint64_t count;
	if (fd < 0)
		return NAN;
	ioctl(fd, PERF_EVENT_IOC_RESET, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	c->clear(c, buf, bytes);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &count, sizeof(count)) != (ssize_t)sizeof(count))
		return NAN;
	return (double)count;
}
