/* SPDX-License-Identifier: MIT */
#ifndef CP_PROFILE_FILE_H
#define CP_PROFILE_FILE_H
#include <stddef.h>
/*
 * Read a whole profile file into buf (at most cap bytes) without ever
 * blocking: opened O_NONBLOCK | O_CLOEXEC, and anything but a regular file is
 * refused. trusted: also refuse a file not owned by root or writable by group
 * or others (the machine-wide profile). 0, -ENOENT (missing, unreadable, not
 * a regular file), -EINVAL (too large, untrusted, changed while read).
 */
int cp__profile_file_read(const char *path, char *buf, size_t cap, size_t *len, int trusted);
#endif
