/* SPDX-License-Identifier: MIT */
/*
 * What kind of memory a range is, asked of /proc/self/maps: the one question
 * cp_zero's discard needs answered (MADV_DONTNEED zeroes private anonymous
 * memory only; shared and shmem mappings keep their data, private file
 * mappings revert to the file). Hosted only. Async-signal-safe: open, ioctl,
 * read and close, a fixed buffer on the stack, no allocation, no stdio.
 */
#ifndef CP_MAPS_H
#define CP_MAPS_H

#include <stddef.h>
#include <stdint.h>

/* One part of the range: [start, end) and whether every byte of it is mapped
 * private, anonymous and writable (1) or anything else, unmapped included (0). */
typedef void (*cp__maps_part_fn)(uintptr_t start, uintptr_t end, int private_anon, void *ctx);

/* Calls part() for consecutive parts covering [start, end) exactly, in
 * ascending order, each mapping asked about once (PROCMAP_QUERY where the
 * kernel has it, Linux 6.11+; else the text of /proc/self/maps). Returns 0,
 * or -1 with part() never called when /proc/self/maps cannot be opened. */
int cp__maps_walk(uintptr_t start, uintptr_t end, cp__maps_part_fn part, void *ctx);

/* Tests: 1 makes cp__maps_walk read the text even where PROCMAP_QUERY works. */
extern int cp__maps_text_only;

/* Pure: the kind of one line of /proc/self/maps (without its newline, perhaps
 * cut after the inode field): 0 with [*start, *end) and *private_anon, or -1
 * for a line it cannot read. */
int cp__maps_parse_line(const char *line, size_t len, uintptr_t *start, uintptr_t *end,
			int *private_anon);

#endif
