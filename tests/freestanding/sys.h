/* SPDX-License-Identifier: MIT */
/*
 * What the freestanding test program has instead of libc: its entry point
 * (_start passes the initial stack pointer to fs_start) and raw Linux system
 * calls, for x86_64 and arm64.
 */
#ifndef CP_FS_SYS_H
#define CP_FS_SYS_H
#include <stddef.h>

#if defined(__x86_64__)
enum { SYS_WRITE = 1, SYS_MMAP = 9, SYS_MPROTECT = 10, SYS_MUNMAP = 11, SYS_EXIT_GROUP = 231 };
__asm__(".text\n.globl _start\n.type _start, @function\n_start:\n"
	"\txor %ebp, %ebp\n\tmov %rsp, %rdi\n\tand $-16, %rsp\n\tcall fs_start\n\thlt\n");

static long sys6(long nr, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d, r8 __asm__("r8") = e, r9 __asm__("r9") = f;
	long ret;
	__asm__ volatile("syscall" : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}
#elif defined(__aarch64__)
enum { SYS_WRITE = 64, SYS_MMAP = 222, SYS_MPROTECT = 226, SYS_MUNMAP = 215, SYS_EXIT_GROUP = 94 };
__asm__(".text\n.globl _start\n.type _start, %function\n_start:\n"
	"\tmov x29, #0\n\tmov x30, #0\n\tmov x0, sp\n\tbl fs_start\n1:\tb 1b\n");

static long sys6(long nr, long a, long b, long c, long d, long e, long f)
{
	register long x8 __asm__("x8") = nr, x0 __asm__("x0") = a, x1 __asm__("x1") = b,
		 x2 __asm__("x2") = c, x3 __asm__("x3") = d, x4 __asm__("x4") = e,
		 x5 __asm__("x5") = f;
	__asm__ volatile("svc #0" : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5) : "memory");
	return x0;
}
#else
#error "x86_64 or arm64"
#endif

#define FS_PROT_NONE 0
#define FS_PROT_RW   3              /* PROT_READ | PROT_WRITE */
#define FS_MAP_ANON_PRIVATE 0x22    /* MAP_PRIVATE | MAP_ANONYMOUS */

static void *fs_mmap(size_t len)
{
	long r = sys6(SYS_MMAP, 0, (long)len, FS_PROT_RW, FS_MAP_ANON_PRIVATE, -1, 0);
	return r < 0 && r > -4096 ? NULL : (void *)r;
}
static int fs_mprotect(void *p, size_t len, int prot)
{
	return (int)sys6(SYS_MPROTECT, (long)p, (long)len, prot, 0, 0, 0);
}
static void fs_munmap(void *p, size_t len)
{
	sys6(SYS_MUNMAP, (long)p, (long)len, 0, 0, 0, 0);
}
static void fs_write(const char *s, size_t n)
{
	while (n) {
		long r = sys6(SYS_WRITE, 1, (long)s, (long)n, 0, 0, 0);
		if (r <= 0)
			return;
		s += r, n -= (size_t)r;
	}
}
static __attribute__((noreturn)) void fs_exit(int status)
{
	for (;;)
		sys6(SYS_EXIT_GROUP, status, 0, 0, 0, 0, 0);
}
#endif
