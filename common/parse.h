/* SPDX-License-Identifier: MIT */
#ifndef CP_PARSE_H
#define CP_PARSE_H
#include <stddef.h>
/* Parse "123", "64k", "8M", "1G" (powers of 1024) in full. 0, or -1 if bad. */
int cp__parse_size(const char *s, size_t *out);
/* The same over exactly `len` bytes (no NUL needed). */
int cp__parse_size_n(const char *s, size_t len, size_t *out);
#endif
