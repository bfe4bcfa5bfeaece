/* SPDX-License-Identifier: MIT */
/*
 * Included first by every C file of clearpages-freestanding.o (-include).
 * Internal declarations become hidden, so references between the object's
 * files are PC-relative, with no GOT (nm -u lists no _GLOBAL_OFFSET_TABLE_);
 * clearpages.h pushes default visibility back for the public calls. The mem*
 * functions are declared first, default: they come from the consumer.
 */
#ifndef CP_FREESTANDING_PRELUDE_H
#define CP_FREESTANDING_PRELUDE_H
#include <stddef.h>
void *memset(void *s, int c, size_t n);
void *memcpy(void *restrict d, const void *restrict s, size_t n);
void *memmove(void *d, const void *s, size_t n);
#include <string.h>

/* Until arch/x86_64/cpu.c uses no string functions but memset/memcpy/memmove:
 * its strcmp/strcpy/strspn/strlen become these (static: no symbol escapes). */
#if defined(__x86_64__)
#include "str.h"
static inline int cp__fs_strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (unsigned char)*a - (unsigned char)*b;
}
static inline char *cp__fs_strcpy(char *d, const char *s)
{
	char *r = d;
	while ((*d++ = *s++))
		;
	return r;
}
static inline size_t cp__fs_strspn(const char *s, const char *accept)
{
	size_t n = 0;
	for (;; n++) {
		const char *a = accept;
		while (*a && *a != s[n])
			a++;
		if (!*a)
			return n;
	}
}
#define strcmp cp__fs_strcmp
#define strcpy cp__fs_strcpy
#define strspn cp__fs_strspn
#define strlen cp__strlen
#endif

#pragma GCC visibility push(hidden)
#endif
