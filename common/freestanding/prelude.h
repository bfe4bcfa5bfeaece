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

#pragma GCC visibility push(hidden)
#endif
