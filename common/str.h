/* SPDX-License-Identifier: MIT */
/* The few string operations the pure layer needs, without libc: the same code
 * builds into the freestanding object, whose only undefined symbols may be
 * memset/memcpy/memmove. */
#ifndef CP_STR_H
#define CP_STR_H
#include <stddef.h>

static inline size_t cp__strlen(const char *s)
{
	size_t n = 0;
	while (s[n])
		n++;
	return n;
}

static inline int cp__streq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

static inline char cp__lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* `len` bytes at a equal the NUL-terminated b, ignoring ASCII case. */
static inline int cp__strn_caseeq(const char *a, size_t len, const char *b)
{
	size_t i = 0;
	for (; i < len && b[i]; i++)
		if (cp__lower(a[i]) != cp__lower(b[i]))
			return 0;
	return i == len && !b[i];
}

/* Bounded copy that always terminates (dst of `size` > 0 bytes). */
static inline void cp__strlcpy(char *dst, const char *src, size_t size)
{
	size_t i = 0;
	for (; i + 1 < size && src[i]; i++)
		dst[i] = src[i];
	dst[i] = '\0';
}
#endif
