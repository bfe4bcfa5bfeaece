/* SPDX-License-Identifier: MIT */
/*
 * Linked into libclearpages.so only, which is linked with -nostartfiles: Debian
 * 12's crti.o/crtn.o (and, on arm64, crtbeginS.o) and libc_nonshared.a carry no
 * CET/BTI property, and one unmarked input strips it from the whole library.
 * This is the part of them the library needs, built with the project's
 * hardening flags so the linker keeps the property.
 */
#include <stdlib.h>   /* __GLIBC__ */

/* This DSO's identity for atexit and atfork handlers (crtbeginS.o's job). */
void *__dso_handle __attribute__((visibility("hidden"))) = &__dso_handle;

/* On dlclose, run and drop the handlers registered under this DSO, as
 * crtbeginS.o's __do_global_dtors_aux does; else a fork after dlclose would
 * jump into unmapped code. */
extern void __cxa_finalize(void *d) __attribute__((weak));
static void __attribute__((destructor)) cp_so_fini(void)
{
	if (__cxa_finalize)
		__cxa_finalize(__dso_handle);
}

#ifdef __GLIBC__
/* What libc_nonshared.a's pthread_atfork does: tag the handlers with this DSO. */
extern int __register_atfork(void (*prepare)(void), void (*parent)(void),
			     void (*child)(void), void *dso);
__attribute__((visibility("hidden")))
int pthread_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void));
int pthread_atfork(void (*prepare)(void), void (*parent)(void), void (*child)(void))
{
	return __register_atfork(prepare, parent, child, __dso_handle);
}
#endif
