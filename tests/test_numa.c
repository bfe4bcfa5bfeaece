/* SPDX-License-Identifier: MIT */
/*
 * Worker placement on NUMA machines (common/numa.c). These hosts have one
 * node, so the plans are asserted on described topologies, as selection is on
 * described CPUs; the readers are checked on this machine.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "numa.h"

/* The CPUs [first, first + n). */
static cpu_set_t cpus(unsigned first, unsigned n)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	for (unsigned c = first; c < first + n; c++)
		CPU_SET(c, &s);
	return s;
}

/* nnodes nodes of per CPUs each, node n holding CPUs n*per .. n*per+per-1;
 * the nodes of no_cpus (a mask) hold memory only and are left out of the count. */
static struct cp__numa_topology topo_of(unsigned nnodes, unsigned per, uint64_t no_cpus)
{
	struct cp__numa_topology t;
	memset(&t, 0, sizeof(t));
	t.nnodes = nnodes;
	for (unsigned n = 0, next = 0; n < nnodes; n++) {
		if (no_cpus >> n & 1)
			continue;
		t.node_cpus[n] = cpus(next, per);
		next += per;
	}
	return t;
}

static struct cp__numa_plan plan_of(const struct cp__numa_topology *t, int mode, uint64_t nodes,
				    cpu_set_t caller, unsigned caller_node)
{
	struct cp__numa_policy pol = { mode, nodes };
	struct cp__numa_plan p;
	memset(&p, 0xa5, sizeof(p));   /* whatever was there must not show through */
	cp__numa_plan_for(t, &pol, &caller, caller_node, &p);
	return p;
}

static void expect_group(const char *who, const struct cp__numa_plan *p, unsigned i, cpu_set_t want)
{
	cr_assert_lt(i, p->ngroups, "%s: group %u of %u", who, i, p->ngroups);
	cr_expect(CPU_EQUAL(&p->group_cpus[i], &want),
		  "%s: group %u has %d CPUs (first %s), want %d", who, i,
		  CPU_COUNT(&p->group_cpus[i]), CPU_ISSET(0, &p->group_cpus[i]) ? "0" : "not 0",
		  CPU_COUNT(&want));
}

Test(numa, one_node_leaves_the_workers_where_they_are)
{
	struct cp__numa_topology t = topo_of(1, 8, 0);
	const int modes[] = { MPOL_DEFAULT, MPOL_LOCAL, MPOL_BIND, MPOL_INTERLEAVE, MPOL_PREFERRED };
	for (unsigned m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		struct cp__numa_plan p = plan_of(&t, modes[m], 1, cpus(0, 8), 0);
		cr_expect_eq(p.ngroups, 0u, "mode %d on one node", modes[m]);
		cr_expect_eq(p.cpus, 8u, "mode %d: the caller's CPUs", modes[m]);
	}
	/* what cp__numa_read_topology leaves where there is no sysfs node folder */
	struct cp__numa_topology unread = topo_of(1, 0, 1);
	struct cp__numa_plan p = plan_of(&unread, MPOL_BIND, 3, cpus(0, 16), 1);
	cr_expect_eq(p.ngroups, 0u, "unreadable topology");
}

Test(numa, default_policy_keeps_the_workers_on_the_callers_node)
{
	struct cp__numa_topology t = topo_of(2, 8, 0);
	const int modes[] = { MPOL_DEFAULT, MPOL_LOCAL, 99 /* unknown: as default */ };
	for (unsigned m = 0; m < sizeof(modes) / sizeof(modes[0]); m++) {
		struct cp__numa_plan p = plan_of(&t, modes[m], 0, cpus(0, 16), 1);
		cr_assert_eq(p.ngroups, 1u, "mode %d", modes[m]);
		expect_group("default, caller on node 1", &p, 0, cpus(8, 8));
		cr_expect_eq(p.cpus, 8u, "mode %d", modes[m]);
	}
}

Test(numa, bind_to_both_nodes_gives_one_group_per_node_in_order)
{
	struct cp__numa_topology t = topo_of(2, 8, 0);
	struct cp__numa_plan p = plan_of(&t, MPOL_BIND, 3, cpus(0, 16), 1);
	cr_assert_eq(p.ngroups, 2u);
	expect_group("bind {0,1}", &p, 0, cpus(0, 8));
	expect_group("bind {0,1}", &p, 1, cpus(8, 8));
	cr_expect_eq(p.cpus, 16u);
	/* the other many-node modes place alike */
	const int modes[] = { MPOL_INTERLEAVE, MPOL_WEIGHTED_INTERLEAVE, MPOL_PREFERRED_MANY };
	for (unsigned m = 0; m < 3; m++)
		cr_expect_eq(plan_of(&t, modes[m], 3, cpus(0, 16), 0).ngroups, 2u, "mode %d", modes[m]);
}

Test(numa, interleave_with_the_caller_on_node_0_only_uses_node_0)
{
	struct cp__numa_topology t = topo_of(2, 8, 0);
	struct cp__numa_plan p = plan_of(&t, MPOL_INTERLEAVE, 3, cpus(0, 8), 0);
	cr_assert_eq(p.ngroups, 1u);
	expect_group("interleave {0,1}, caller on 0-7", &p, 0, cpus(0, 8));
	cr_expect_eq(p.cpus, 8u);
	/* and half of node 0: the caller's CPUs, not the node's */
	p = plan_of(&t, MPOL_INTERLEAVE, 3, cpus(2, 4), 0);
	cr_assert_eq(p.ngroups, 1u);
	expect_group("interleave {0,1}, caller on 2-5", &p, 0, cpus(2, 4));
	cr_expect_eq(p.cpus, 4u);
}

Test(numa, preferred_places_on_the_preferred_node)
{
	struct cp__numa_topology t = topo_of(2, 8, 0);
	struct cp__numa_plan p = plan_of(&t, MPOL_PREFERRED, 2, cpus(0, 16), 0);
	cr_assert_eq(p.ngroups, 1u);
	expect_group("preferred {1}, caller on node 0", &p, 0, cpus(8, 8));
	cr_expect_eq(p.cpus, 8u);
	/* an empty mask is the old kernels' MPOL_LOCAL */
	p = plan_of(&t, MPOL_PREFERRED, 0, cpus(0, 16), 0);
	cr_assert_eq(p.ngroups, 1u);
	expect_group("preferred {}, caller on node 0", &p, 0, cpus(0, 8));
}

Test(numa, memory_only_nodes_get_no_group)
{
	/* nodes 0 and 1 with 8 CPUs each, node 2 a CXL expander: memory only */
	struct cp__numa_topology t = topo_of(3, 8, 1u << 2);
	struct cp__numa_plan p = plan_of(&t, MPOL_BIND, 6, cpus(0, 16), 0);
	cr_assert_eq(p.ngroups, 1u, "bind {1,2}");
	expect_group("bind {1,2}", &p, 0, cpus(8, 8));
	cr_expect_eq(p.cpus, 8u);
	/* bind to the expander alone: the pages land there anyway; all the caller's CPUs fill */
	p = plan_of(&t, MPOL_BIND, 4, cpus(0, 16), 0);
	cr_assert_eq(p.ngroups, 1u, "bind {2}");
	expect_group("bind {2}", &p, 0, cpus(0, 16));
	cr_expect_eq(p.cpus, 16u);
	/* one node of CPUs and an expander: that is where the workers already run */
	struct cp__numa_topology one = topo_of(2, 8, 1u << 1);
	p = plan_of(&one, MPOL_BIND, 2, cpus(0, 8), 0);
	cr_expect_eq(p.ngroups, 0u, "bind {1}, every CPU on node 0");
	cr_expect_eq(p.cpus, 8u);
}

Test(numa, a_caller_pinned_off_the_policys_nodes_fills_on_its_own_cpus)
{
	struct cp__numa_topology t = topo_of(2, 8, 0);
	struct cp__numa_plan p = plan_of(&t, MPOL_BIND, 2, cpus(0, 4), 0);
	cr_assert_eq(p.ngroups, 1u, "bind {1}, caller on 0-3");
	expect_group("bind {1}, caller on 0-3", &p, 0, cpus(0, 4));
	cr_expect_eq(p.cpus, 4u);
	p = plan_of(&t, MPOL_PREFERRED, 1, cpus(8, 2), 1);
	cr_assert_eq(p.ngroups, 1u, "preferred {0}, caller on 8-9");
	expect_group("preferred {0}, caller on 8-9", &p, 0, cpus(8, 2));
}

Test(numa, an_unknown_caller_node_fills_on_the_callers_cpus)
{
	struct cp__numa_topology t = topo_of(2, 8, 0);
	const unsigned nodes[] = { 2, 64, ~0u };
	for (unsigned i = 0; i < 3; i++) {
		struct cp__numa_plan p = plan_of(&t, MPOL_DEFAULT, 0, cpus(4, 8), nodes[i]);
		cr_assert_eq(p.ngroups, 1u, "caller_node %u", nodes[i]);
		expect_group("default, unknown caller node", &p, 0, cpus(4, 8));
		cr_expect_eq(p.cpus, 8u);
	}
	/* bind does not use it */
	struct cp__numa_plan p = plan_of(&t, MPOL_BIND, 2, cpus(0, 16), ~0u);
	expect_group("bind {1}, unknown caller node", &p, 0, cpus(8, 8));
}

Test(numa, sixty_four_nodes)
{
	struct cp__numa_topology t = topo_of(CP__NUMA_MAX_NODES, 2, 0);
	struct cp__numa_plan p = plan_of(&t, MPOL_INTERLEAVE, ~(uint64_t)0, cpus(0, 128), 5);
	cr_assert_eq(p.ngroups, 64u);
	expect_group("interleave all, first", &p, 0, cpus(0, 2));
	expect_group("interleave all, node 63", &p, 63, cpus(126, 2));
	cr_expect_eq(p.cpus, 128u);
	p = plan_of(&t, MPOL_BIND, (uint64_t)1 << 63, cpus(0, 128), 0);
	cr_assert_eq(p.ngroups, 1u, "bind {63}");
	expect_group("bind {63}", &p, 0, cpus(126, 2));
	p = plan_of(&t, MPOL_DEFAULT, 0, cpus(0, 128), 63);
	cr_assert_eq(p.ngroups, 1u, "default on node 63");
	expect_group("default on node 63", &p, 0, cpus(126, 2));
	/* bits past the nodes there are: none of them are nodes */
	struct cp__numa_topology t32 = topo_of(32, 2, 0);
	p = plan_of(&t32, MPOL_BIND, ((uint64_t)1 << 40) | 1, cpus(0, 64), 0);
	cr_assert_eq(p.ngroups, 1u, "bind {0,40} of 32 nodes");
	expect_group("bind {0,40} of 32 nodes", &p, 0, cpus(0, 2));
}

/* The readers on this machine: whatever it is, they agree with what the
 * kernel says, and leave errno alone. */
Test(numa, readers_on_this_machine)
{
	struct cp__numa_topology t;
	errno = 4242;
	int r = cp__numa_read_topology(&t);
	cr_expect_eq(errno, 4242, "read_topology changed errno");
	cr_assert(r == 0 || r == -1, "read_topology returned %d", r);
	cr_assert_geq(t.nnodes, 1u);
	cr_assert_leq(t.nnodes, (unsigned)CP__NUMA_MAX_NODES);
	unsigned cpu = 0, node = ~0u;
	cr_assert_eq(syscall(SYS_getcpu, &cpu, &node, NULL), 0);
	if (r == 0 && node < t.nnodes)
		cr_expect(CPU_ISSET(cpu, &t.node_cpus[node]), "CPU %u is not in node %u's cpulist",
			  cpu, node);
	cpu_set_t mine;
	cr_assert_eq(sched_getaffinity(0, sizeof(mine), &mine), 0);
	struct cp__numa_policy local = { MPOL_DEFAULT, 0 };
	struct cp__numa_plan p;
	cp__numa_plan_for(&t, &local, &mine, node, &p);
	if (t.nnodes == 1)
		cr_expect_eq(p.ngroups, 0u, "one node here, yet %u groups", p.ngroups);

	const size_t len = 4 * 4096;
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(m, MAP_FAILED);
	struct cp__numa_policy pol = { -1, ~(uint64_t)0 };
	errno = 4242;
	r = cp__numa_range_policy(m, &pol);
	cr_expect_eq(errno, 4242, "range_policy changed errno");
	if (r != 0) {
		cr_expect_eq(pol.mode, MPOL_DEFAULT, "a failed read says default");
		munmap(m, len);
		cr_skip_test("get_mempolicy refused here (seccomp?): the policy checks did not run");
	}
	cr_expect_eq(pol.mode, MPOL_DEFAULT, "a fresh mapping's policy is %d", pol.mode);

	unsigned long node0[2] = { 1, 0 };
	if (syscall(SYS_mbind, m, len, MPOL_BIND, node0, 65UL, 0U) != 0) {
		int e = errno;
		munmap(m, len);
		cr_skip_test("mbind(MPOL_BIND, node 0) refused (%s): the bound policy was not read",
			     strerror(e));
	}
	r = cp__numa_range_policy((char *)m + 4096, &pol);
	cr_expect_eq(r, 0);
	cr_expect_eq(pol.mode, MPOL_BIND, "after mbind the policy is %d", pol.mode);
	cr_expect_eq(pol.nodes, 1u, "after mbind the nodes are %#llx", (unsigned long long)pol.nodes);
	/* the mode flags get_mempolicy ORs in are not part of the mode; a
	 * relative mask names no node ids, so it is placed as default */
	const int static_nodes = 1 << 15, relative_nodes = 1 << 14;
	cr_assert_eq(syscall(SYS_mbind, m, len, MPOL_BIND | static_nodes, node0, 65UL, 0U), 0);
	cr_expect_eq(cp__numa_range_policy(m, &pol), 0);
	cr_expect_eq(pol.mode, MPOL_BIND, "static nodes: the policy is %d", pol.mode);
	cr_expect_eq(pol.nodes, 1u);
	cr_assert_eq(syscall(SYS_mbind, m, len, MPOL_BIND | relative_nodes, node0, 65UL, 0U), 0);
	cr_expect_eq(cp__numa_range_policy(m, &pol), 0);
	cr_expect_eq(pol.mode, MPOL_DEFAULT, "relative nodes: the policy is %d", pol.mode);
	munmap(m, len);

	/* a mapping with no policy of its own faults by the thread's: read that */
	if (syscall(SYS_set_mempolicy, MPOL_INTERLEAVE, node0, 65UL) != 0)
		cr_skip_test("set_mempolicy(MPOL_INTERLEAVE, node 0) refused (%s): the thread's "
			     "policy was not read", strerror(errno));
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	r = cp__numa_range_policy(m, &pol);
	syscall(SYS_set_mempolicy, MPOL_DEFAULT, NULL, 0UL);
	cr_assert_neq(m, MAP_FAILED);
	cr_expect_eq(r, 0);
	cr_expect_eq(pol.mode, MPOL_INTERLEAVE, "under the thread's interleave the policy is %d",
		     pol.mode);
	cr_expect_eq(pol.nodes, 1u);

	/* an address with nothing mapped: -1 and default */
	munmap(m, len);
	errno = 4242;
	r = cp__numa_range_policy(m, &pol);
	cr_expect_eq(r, -1);
	cr_expect_eq(errno, 4242);
	cr_expect_eq(pol.mode, MPOL_DEFAULT);
}
