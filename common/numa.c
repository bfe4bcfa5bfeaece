/* SPDX-License-Identifier: MIT */
/*
 * Worker placement for a parallel fill on several NUMA nodes (numa.h).
 *
 * The plan (cp__numa_plan_for), from the range's policy:
 *  - one node, or a topology that could not be read: ngroups 0. There is
 *    nothing to place; the workers stay on the caller's CPUs (parallel.c).
 *  - MPOL_DEFAULT, MPOL_LOCAL and any mode this file does not know: one group,
 *    the caller node's CPUs the caller may use. A page lands on the node of
 *    the thread that faults it, so the workers stay where the caller's own
 *    pages would land.
 *  - MPOL_PREFERRED: that node's CPUs the caller may use (the lowest node
 *    if the mask had several). An empty mask is how kernels before 5.x report
 *    MPOL_LOCAL: treated as local.
 *  - MPOL_BIND, MPOL_INTERLEAVE, MPOL_WEIGHTED_INTERLEAVE, MPOL_PREFERRED_MANY:
 *    one group per node of the mask (in node order) that has a CPU the caller
 *    may use. A worker faulting on its own node takes local memory for bind
 *    and preferred-many, and interleave puts pages by their offset whoever
 *    faults them, so each node's memory is written by CPUs of that node.
 *  - no group left (the caller may use none of the policy's nodes' CPUs, the
 *    nodes hold memory only, as a CXL expander does, or caller_node is
 *    unknown for a local policy): one group, caller_cpus. The pages still
 *    land where the policy says; only the placement is worse (remote writes),
 *    and clearing on fewer CPUs would be worse still. Where every CPU of the
 *    machine is on one node, that group is where the workers already run:
 *    ngroups 0.
 *  - caller_node >= nnodes (or >= CP__NUMA_MAX_NODES), e.g. ~0u from a failed
 *    getcpu: unknown, so a local policy has no node to keep to and takes the
 *    fallback above; bind and interleave do not use it.
 *  - caller_cpus empty: ngroups 0 (there is no CPU to name).
 * `cpus` counts the union of the groups, or caller_cpus where ngroups is 0.
 *
 * The readers: the node ids from /sys/devices/system/node/online, each node's
 * CPUs from nodeN/cpulist (a node whose list cannot be read counts with no
 * CPUs); the policy from the raw get_mempolicy system call. A VMA with no
 * policy of its own reads MPOL_DEFAULT, and the kernel then faults by the
 * faulting thread's policy: that of the calling thread is read in its place.
 * (A pool worker has the policy of the thread that created it, which may be
 * another: the integrator decides whether that matters.)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "files.h"
#include "numa.h"

/* The mode flags get_mempolicy ORs into the mode (UAPI values). */
#define F_STATIC_NODES   (1 << 15)
#define F_RELATIVE_NODES (1 << 14)
#define F_NUMA_BALANCING (1 << 13)
#define MODE_FLAGS (F_STATIC_NODES | F_RELATIVE_NODES | F_NUMA_BALANCING)

#define NODE_DIR "/sys/devices/system/node"

static unsigned usable_nodes(const struct cp__numa_topology *topo)
{
	return topo->nnodes < CP__NUMA_MAX_NODES ? topo->nnodes : CP__NUMA_MAX_NODES;
}

/* The nodes whose CPUs should fill a range of policy pol. */
static uint64_t nodes_to_fill(const struct cp__numa_policy *pol, unsigned caller_node,
			      unsigned nnodes)
{
	uint64_t exist = nnodes >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << nnodes) - 1;
	uint64_t local = caller_node < nnodes ? (uint64_t)1 << caller_node : 0;
	switch (pol->mode) {
	case MPOL_PREFERRED:
		if (pol->nodes & exist)
			return (pol->nodes & exist) & -(pol->nodes & exist);   /* lowest */
		return pol->nodes ? 0 : local;   /* empty: the old kernels' MPOL_LOCAL */
	case MPOL_BIND:
	case MPOL_INTERLEAVE:
	case MPOL_WEIGHTED_INTERLEAVE:
	case MPOL_PREFERRED_MANY:
		return pol->nodes & exist;
	default:
		return local;
	}
}

/* Every CPU the topology knows is on one node (or none). */
static int cpus_on_one_node(const struct cp__numa_topology *topo, unsigned nnodes)
{
	unsigned with_cpus = 0;
	for (unsigned n = 0; n < nnodes; n++)
		with_cpus += CPU_COUNT(&topo->node_cpus[n]) > 0;
	return with_cpus <= 1;
}

void cp__numa_plan_for(const struct cp__numa_topology *topo, const struct cp__numa_policy *pol,
		       const cpu_set_t *caller_cpus, unsigned caller_node, struct cp__numa_plan *plan)
{
	memset(plan, 0, sizeof(*plan));
	plan->cpus = CPU_COUNT(caller_cpus);
	unsigned nnodes = usable_nodes(topo);
	if (nnodes <= 1 || plan->cpus == 0)
		return;

	uint64_t fill = nodes_to_fill(pol, caller_node, nnodes);
	for (unsigned n = 0; n < nnodes; n++) {
		if (!(fill >> n & 1))
			continue;
		cpu_set_t *g = &plan->group_cpus[plan->ngroups];
		CPU_AND(g, &topo->node_cpus[n], caller_cpus);
		if (CPU_COUNT(g) > 0)
			plan->ngroups++;
		else
			CPU_ZERO(g);
	}
	if (plan->ngroups == 0) {
		if (cpus_on_one_node(topo, nnodes))
			return;
		plan->group_cpus[0] = *caller_cpus;
		plan->ngroups = 1;
	}

	cpu_set_t all;
	CPU_ZERO(&all);
	for (unsigned i = 0; i < plan->ngroups; i++)
		CPU_OR(&all, &all, &plan->group_cpus[i]);
	plan->cpus = CPU_COUNT(&all);
}

/* A kernel list ("0-3,8,10-11\n", or "\n" for none): each id to add(id, ctx).
 * 0, or -1 where the text is not such a list (what came before is kept). */
static int parse_list(const char *s, void (*add)(unsigned, void *), void *ctx)
{
	while (*s && *s != '\n') {
		unsigned long lo = 0, hi;
		if (*s < '0' || *s > '9')
			return -1;
		while (*s >= '0' && *s <= '9' && lo <= 1u << 20)
			lo = lo * 10 + (unsigned long)(*s++ - '0');
		hi = lo;
		if (*s == '-') {
			s++;
			if (*s < '0' || *s > '9')
				return -1;
			for (hi = 0; *s >= '0' && *s <= '9' && hi <= 1u << 20;)
				hi = hi * 10 + (unsigned long)(*s++ - '0');
		}
		if (hi < lo || hi > 1u << 20)   /* far past any id kept: not a list */
			return -1;
		for (unsigned long id = lo; id <= hi; id++)
			add((unsigned)id, ctx);
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return -1;
	}
	return 0;
}

static void add_node(unsigned id, void *mask)
{
	if (id < CP__NUMA_MAX_NODES)
		*(uint64_t *)mask |= (uint64_t)1 << id;
}

static void add_cpu(unsigned id, void *set)
{
	if (id < CPU_SETSIZE)
		CPU_SET(id, (cpu_set_t *)set);
}

int cp__numa_read_topology(struct cp__numa_topology *topo)
{
	int saved = errno, ret = -1;
	char buf[8192];   /* the longest cpulist of 1024 CPUs listed one by one: 5 KB */
	uint64_t online = 0;
	memset(topo, 0, sizeof(*topo));
	topo->nnodes = 1;
	if (cp__file_read_small(NODE_DIR "/online", buf, sizeof(buf)) < 0 ||
	    parse_list(buf, add_node, &online) || !online)
		goto out;

	topo->nnodes = 64 - (unsigned)__builtin_clzll(online);
	for (unsigned n = 0; n < topo->nnodes; n++) {
		char path[64];
		if (!(online >> n & 1))
			continue;
		snprintf(path, sizeof(path), NODE_DIR "/node%u/cpulist", n);
		if (cp__file_read_small(path, buf, sizeof(buf)) < 0 ||
		    parse_list(buf, add_cpu, &topo->node_cpus[n]))
			CPU_ZERO(&topo->node_cpus[n]);   /* unread: placed as a node without CPUs */
	}
	ret = 0;
out:
	errno = saved;
	return ret;
}

/* Room for MAX_NUMNODES at its largest (NODES_SHIFT 10), which the kernel
 * requires maxnode to cover, and a word more for its maxnode - 1. */
#define MASK_LONGS (1024 / (8 * sizeof(unsigned long)) + 1)

static long get_mempolicy_raw(int *mode, unsigned long *mask, const void *addr, unsigned long flags)
{
	return syscall(SYS_get_mempolicy, mode, mask, (unsigned long)(MASK_LONGS * 8 * sizeof(unsigned long)),
		       addr, flags);
}

int cp__numa_range_policy(const void *addr, struct cp__numa_policy *pol)
{
	int saved = errno, mode = MPOL_DEFAULT;
	unsigned long mask[MASK_LONGS];
	pol->mode = MPOL_DEFAULT;
	pol->nodes = 0;
	memset(mask, 0, sizeof(mask));
	if (get_mempolicy_raw(&mode, mask, addr, MPOL_F_ADDR) ||
	    ((mode & ~MODE_FLAGS) == MPOL_DEFAULT && get_mempolicy_raw(&mode, mask, NULL, 0))) {
		errno = saved;
		return -1;
	}
	/* MPOL_F_RELATIVE_NODES reads back the mask as given, relative to the
	 * cpuset's nodes, not node ids: placed as unknown (default). */
	if (!(mode & F_RELATIVE_NODES)) {
		pol->mode = mode & ~MODE_FLAGS;
		for (unsigned i = 0; i * 8 * sizeof(unsigned long) < 64; i++)
			pol->nodes |= (uint64_t)mask[i] << (i * 8 * sizeof(unsigned long));
	}
	errno = saved;
	return 0;
}
