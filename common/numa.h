/* SPDX-License-Identifier: MIT */
/*
 * Where the workers of a parallel fill should run on a machine with several
 * NUMA nodes. MADV_POPULATE_WRITE faults pages on the thread that asks, so a
 * page lands where the range's memory policy puts it, and for the default
 * (local) policy on the node of the faulting thread. The plan places the
 * workers accordingly: for bind and interleave each worker fills pages of a
 * node it runs on; for the default policy they all run on the caller's node,
 * where a single-threaded caller's pages would have landed.
 *
 * cp__numa_plan_for is pure (described topologies in the tests, as CPU
 * detection is tested on described CPUs); the two readers ask this machine.
 * Hosted Linux only; no libnuma: sysfs and the raw get_mempolicy system call.
 */
#ifndef CP_NUMA_H
#define CP_NUMA_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stdint.h>

/* The policy modes are an enum in <linux/mempolicy.h>, so the preprocessor
 * cannot ask which it has: the headers' kernel version says (PREFERRED_MANY
 * in 5.15, WEIGHTED_INTERLEAVE in 6.9); what is missing is defined here with
 * the UAPI's values. The header is included first, so a later include of it
 * meets its guard, never these macros inside its enum. */
#if defined(__has_include)
#if __has_include(<linux/mempolicy.h>) && __has_include(<linux/version.h>)
#include <linux/mempolicy.h>
#include <linux/version.h>
#define CP__NUMA_UAPI_VERSION LINUX_VERSION_CODE
#endif
#endif
#ifndef CP__NUMA_UAPI_VERSION
#define CP__NUMA_UAPI_VERSION 0
#define MPOL_DEFAULT 0
#define MPOL_PREFERRED 1
#define MPOL_BIND 2
#define MPOL_INTERLEAVE 3
#define MPOL_LOCAL 4
#endif
#if CP__NUMA_UAPI_VERSION < 0x050f00 /* KERNEL_VERSION(5, 15, 0) */
#define MPOL_PREFERRED_MANY 5
#endif
#if CP__NUMA_UAPI_VERSION < 0x060900 /* KERNEL_VERSION(6, 9, 0) */
#define MPOL_WEIGHTED_INTERLEAVE 6
#endif
#ifndef MPOL_F_NODE
#define MPOL_F_NODE (1 << 0)
#endif
#ifndef MPOL_F_ADDR
#define MPOL_F_ADDR (1 << 1)
#endif

/* Nodes past the first 64 (ids >= 64) are not placed: the masks are 64 bits. */
#define CP__NUMA_MAX_NODES 64

struct cp__numa_topology {          /* described or read from /sys/devices/system/node */
	unsigned nnodes;                /* node ids 0..nnodes-1 that exist; a node may have no CPUs */
	cpu_set_t node_cpus[CP__NUMA_MAX_NODES];
};

struct cp__numa_policy {            /* the memory policy of the range (its first page) */
	int mode;                       /* MPOL_* as above; MPOL_DEFAULT also for "unknown" */
	uint64_t nodes;                 /* nodemask, bit n = node n (first 64 nodes) */
};

struct cp__numa_plan {
	unsigned ngroups;               /* 0: leave the workers where the caller's CPUs put them */
	cpu_set_t group_cpus[CP__NUMA_MAX_NODES]; /* worker i runs on group_cpus[i % ngroups] */
	unsigned cpus;                  /* CPUs in the union of the groups: the most threads worth
					 * starting (ngroups 0: CPU_COUNT(caller_cpus)) */
};

/* Pure: the plan for a range with policy pol, filled by threads allowed on
 * caller_cpus, the caller running on node caller_node. The rules, and what an
 * unknown caller_node (>= nnodes, e.g. ~0u when getcpu failed) does: numa.c's
 * header comment. */
void cp__numa_plan_for(const struct cp__numa_topology *topo, const struct cp__numa_policy *pol,
		       const cpu_set_t *caller_cpus, unsigned caller_node, struct cp__numa_plan *plan);

/* Reading this machine: 0, or -1 (no sysfs node folder: treat as one node,
 * plan ngroups 0; topo is then one node with no CPUs known). Keeps errno. */
int cp__numa_read_topology(struct cp__numa_topology *topo);

/* The range's policy via get_mempolicy(MPOL_F_ADDR), falling back to the
 * calling thread's policy when the VMA has none, as the kernel does: 0, or -1
 * (then mode MPOL_DEFAULT). Keeps errno. */
int cp__numa_range_policy(const void *addr, struct cp__numa_policy *pol);

#endif
