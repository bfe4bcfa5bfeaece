/* SPDX-License-Identifier: MIT */
/*
 * The figures the Linux threads published, which the scenarios reproduce: the
 * scenarios' closing notes and the report's "published" tables both quote
 * them from here, so they are written once.
 */
#include <stdio.h>
#include <string.h>
#include "published.h"

static const struct bench_published published[] = {
	{ "batch", "[PATCH v10 7/8] mm, folio_zero_user: support clearing page ranges",
	  "Ankur Arora", "AMD EPYC Genoa (Zen 4), preempt=none, boost off, 1 GiB pages",
	  "clear_pages batching: GB/s and L1-dcache-loads per 64 B against the batch size",
	  5, 3, { "batch", "rep stosb GB/s", "L1-dcache-loads/64B" },
	  { { "8M (2M pages)", "25.10", "2.00" }, { "8M", "26.88", "2.00" },
	    { "32M", "38.69", "0.79" }, { "64M", "46.91", "0.28" },
	    { "whole (1G)", "58.68", "0.024" } } },
	{ "fault", "[PATCH v11 8/8] mm: folio_zero_user: cache neighbouring pages",
	  "Ankur Arora", "AMD Genoa (EPYC 9J14, 2 x 96 cores x 2 threads), hugetlb",
	  "vm-scalability anon-w-seq-hugetlb, 384 processes: stime and utime (s)",
	  4, 3, { "order (this benchmark's name)", "stime", "utime" },
	  { { "discontiguous-page (page-at-a-time)", "1739.93 +- 6.15%", "1016.61 +- 4.75%" },
	    { "contiguous-page (sequential)", "1853.70 +- 2.51%", "1187.13 +- 3.50%" },
	    { "batched-pages (batched)", "1756.75 +- 2.98%", "1133.32 +- 4.89%" },
	    { "neighbourhood-last", "1725.18 +- 4.59%", "1123.78 +- 7.38%" } } },
	{ "walk", "[PATCH v2] mm: Optimized hugepage zeroing & copying from user",
	  "Prathu Baronia", "Qualcomm SM8150 (arm64) and Intel Core i7-8700",
	  "memset of 100 MiB in one shot, forward and reverse per 4 KiB page (us, mean of 100)",
	  2, 4, { "host", "oneshot", "forward", "reverse" },
	  { { "SM8150 (arm64)", "3389.26", "8876.16", "18157.6" },
	    { "i7-8700 (x86-64)", "3203.49", "5766.46", "5187.86" } } },
	{ "latency", "[PATCH v2] mm: Optimized hugepage zeroing & copying from user",
	  "Prathu Baronia", "Qualcomm SM8150: CPU0 Cortex-A55, CPU6 Cortex-A76",
	  "ftrace of clear_huge_page() on 2 MiB pages (us, mean +- stddev)",
	  2, 3, { "clearing", "CPU0", "CPU6" },
	  { { "page at a time (base)", "242.099 +- 45.0096", "258.372 +- 22.0754" },
	    { "one memset (v2)", "112.297 +- 0.310989", "67.359 +- 1.15997" } } },
	{ "latency", "[RFC] mm/memory.c: Optimizing THP zeroing routine for !HIGHMEM cases",
	  "Prathu Baronia", "Qualcomm SM8150, kernel 4.14.117",
	  "ftrace of clear_huge_page() on 2 MiB pages (us, mean +- stddev)",
	  2, 3, { "clearing", "CPU0", "CPU6" },
	  { { "page at a time (base)", "237.383 +- 31.288", "258.065 +- 19.97" },
	    { "one memset (v1)", "112.298 +- 0.36", "71.238 +- 13.7819" } } },
	{ "copy", "[PATCH v2] mm: Optimized hugepage zeroing & copying from user",
	  "Prathu Baronia", "Qualcomm SM8150 (arm64) and Intel Core i7-8700",
	  "clear figures only (the thread says copy_user_huge_page gained likewise and publishes "
	  "no copy figure): one shot against page at a time (us; forward per 4 KiB page for the "
	  "memset of 100 MB, ftrace means for clear_huge_page)",
	  4, 4, { "clearing", "one shot us", "page at a time us", "one shot / page at a time" },
	  { { "memset 100 MB, SM8150 (arm64)", "3389.26", "8876.16", "0.38" },
	    { "memset 100 MB, i7-8700 (x86-64)", "3203.49", "5766.46", "0.56" },
	    { "clear_huge_page 2 MiB, SM8150 CPU0", "112.297", "242.099", "0.46" },
	    { "clear_huge_page 2 MiB, SM8150 CPU6", "67.359", "258.372", "0.26" } } },
};
#define NPUBLISHED (sizeof(published) / sizeof(published[0]))

size_t bench_published_for(const char *scenario, const struct bench_published **out)
{
	for (size_t i = 0; i < NPUBLISHED; i++)
		if (!strcmp(published[i].scenario, scenario)) {
			size_t n = 0;
			while (i + n < NPUBLISHED && !strcmp(published[i + n].scenario, scenario))
				n++;
			*out = &published[i];
			return n;
		}
	*out = NULL;
	return 0;
}
