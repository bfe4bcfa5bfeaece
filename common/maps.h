/* SPDX-License-Identifier: MIT */
/*
 * What kind of memory a range is, asked of /proc/self/maps: the one question
 * cp_zero's discard needs answered (MADV_DONTNEED zeroes private anonymous
 * memory only; shared and shmem mappings keep their data, private file
 * mappings revert to the file). Hosted only. Async-signal-safe: the file
 * through files.h (its own, from a procfs that can be trusted; signals
 * blocked while it is open), ioctl or read, a fixed buffer on the stack, no
 * allocation, no stdio.
 */
#ifndef CP_MAPS_H
#define CP_MAPS_H

#include <stddef.h>
#include <stdint.h>

/* One part of a range: [start, end) and whether every byte of it is mapped
 * private, anonymous and writable (1) or anything else, unmapped included (0);
 * mapped: one mapping covers it (0: a hole, or bytes the maps text could not
 * tell); writable: that mapping is writable; page_size: the mapping's page
 * size where PROCMAP_QUERY tells it (a hugetlb mapping's huge page), else 0
 * (the last three for cp_zero's CP_ZERO_RESIDENT). */
struct cp__maps_part {
	uintptr_t start, end;
	int private_anon;
	int mapped, writable;
	size_t page_size;
};

/* Parts covering [start, *) in ascending order from start, each mapping asked
 * about once (PROCMAP_QUERY where the kernel has it, Linux 6.11+; else the
 * text of /proc/self/maps): at most max (>= 2) of them into parts, *n set.
 * They end at end, or earlier when parts[] filled up (ask again from
 * parts[*n - 1].end). Returns 0, or -1 with nothing in parts when this
 * process's own maps cannot be opened from a procfs it can trust
 * (cp__file_open_self: no /proc, a mount over the file, no openat2). No
 * descriptor is open when it returns, so the caller may store (and fault)
 * at once. */
int cp__maps_parts(uintptr_t start, uintptr_t end, struct cp__maps_part *parts, size_t max,
		   size_t *n);

/* Tests: 1 makes cp__maps_parts read the text even where PROCMAP_QUERY works. */
extern int cp__maps_text_only;

/* Each line of fd (open by cp__file_open_self), without its newline and cut
 * after keep bytes, into line (keep bytes) and to fn(line, len, ctx), until
 * fn returns nonzero or the file ends. A read buffer on the stack;
 * async-signal-safe. */
typedef int (*cp__line_fn)(const char *line, size_t len, void *ctx);
void cp__proc_lines(int fd, char *line, size_t keep, cp__line_fn fn, void *ctx);

/* Pure: the kind of one line of /proc/self/maps (without its newline, perhaps
 * cut after the inode field): 0 with [*start, *end) and *private_anon, or -1
 * for a line it cannot read. */
int cp__maps_parse_line(const char *line, size_t len, uintptr_t *start, uintptr_t *end,
			int *private_anon);

#endif
