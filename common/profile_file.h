/* SPDX-License-Identifier: MIT */
#ifndef CP_PROFILE_FILE_H
#define CP_PROFILE_FILE_H
#include <stddef.h>
/*
 * Read a whole profile file into buf (at most cap bytes, no NUL added; *len
 * its size) without ever blocking, before any parsing and outside any lock.
 *   0        read whole and unchanged
 *   -ENOENT  missing, unreadable, or not a regular file: a directory, FIFO,
 *            pipe (/dev/stdin), socket, tty or other device is refused without
 *            being read (a device node without even being opened)
 *   -EINVAL  larger than cap bytes; or its size, mtime or ctime changed while
 *            it was read (rewritten in place: install profiles by rename; a
 *            /proc or /sys file, which reads other than its stat size, counts
 *            as changed); or, with trusted (the machine-wide profile), not
 *            owned by root or writable by group or others (what sudo and
 *            ld.so ask of their configuration), checked on the open descriptor
 */
int cp__profile_file_read(const char *path, char *buf, size_t cap, size_t *len, int trusted);
#endif
