/* SPDX-License-Identifier: MIT */
/*
 * PAGEMAP_SCAN (an ioctl on /proc/self/pagemap, Linux 6.7+): the page
 * regions of a range that have some categories. Debian 12's headers predate
 * it, so the UAPI's structures and constants (include/uapi/linux/fs.h) are
 * spelled out here once, for vma.c (guard regions) and resident.c (which
 * pages hold data).
 */
#ifndef CP_PAGEMAP_SCAN_H
#define CP_PAGEMAP_SCAN_H

#include <stdint.h>
#include <sys/ioctl.h>

struct pm_scan_arg_uapi {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};
struct page_region_uapi {
	uint64_t start, end, categories;
};
_Static_assert(sizeof(struct pm_scan_arg_uapi) == 96, "the UAPI's struct pm_scan_arg");
#define PAGEMAP_SCAN_REQ _IOWR('f', 16, struct pm_scan_arg_uapi)
#define PAGE_IS_PRESENT  (1u << 3)
#define PAGE_IS_SWAPPED  (1u << 4)
#define PAGE_IS_PFNZERO  (1u << 5)
#define PAGE_IS_GUARD    (1u << 8)   /* 6.14+ */

#endif
