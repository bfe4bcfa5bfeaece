/* Helpers shared by the Criterion suites: guard-paged mappings, fill and
 * verification, child processes with their own environment. */
#ifndef CP_TESTUTIL_H
#define CP_TESTUTIL_H

#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <sys/wait.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "clearpages.h"

#define FILL 0xa5

/* A mapping of `pages` 4096-byte pages with PROT_NONE guard pages on both
 * sides: a kernel that strays one byte outside faults. */
struct guarded {
	unsigned char *mem;     /* first usable byte, 4096-aligned */
	size_t len;             /* usable bytes */
	unsigned char *map;
	size_t map_len;
};

static inline struct guarded guarded_map(size_t pages)
{
	struct guarded g;
	size_t sys = (size_t)sysconf(_SC_PAGESIZE);
	size_t guard = sys > CP_PAGE_SIZE ? sys : CP_PAGE_SIZE;
	size_t len = pages * CP_PAGE_SIZE;
	size_t body = (len + sys - 1) / sys * sys;
	g.map_len = body + 2 * guard;
	g.map = mmap(NULL, g.map_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert(g.map != MAP_FAILED, "mmap of %zu bytes failed", g.map_len);
	cr_assert(mprotect(g.map + guard, body, PROT_READ | PROT_WRITE) == 0);
	/* end the usable part right at the trailing guard */
	g.mem = g.map + guard + body - len;
	g.len = len;
	return g;
}

static inline void guarded_unmap(struct guarded *g)
{
	munmap(g->map, g->map_len);
}

/* Index of the first byte in [p, p + len) that is not `v`, or len. */
static inline size_t first_not(const unsigned char *p, size_t len, unsigned char v)
{
	size_t i = 0;
	uint64_t word = 0x0101010101010101ull * v, w;
	for (; i < len && ((uintptr_t)(p + i) & 7); i++)
		if (p[i] != v)
			return i;
	for (; i + 8 <= len; i += 8) {
		memcpy(&w, p + i, 8);
		if (w != word)
			break;
	}
	for (; i < len; i++)
		if (p[i] != v)
			return i;
	return len;
}

/* Assert [start, start+len) of mem (size total) is zero and all else is FILL. */
static inline void assert_cleared(const char *who, const unsigned char *mem, size_t total,
				  size_t start, size_t len)
{
	size_t bad = first_not(mem, start, FILL);
	cr_assert(bad == start, "%s: byte %zu before the range [%zu, +%zu) was written",
		  who, bad, start, len);
	bad = first_not(mem + start, len, 0);
	cr_assert(bad == len, "%s: byte %zu of the range [%zu, +%zu) is not zero",
		  who, start + bad, start, len);
	bad = first_not(mem + start + len, total - start - len, FILL);
	cr_assert(bad == total - start - len,
		  "%s: byte %zu after the range [%zu, +%zu) was written",
		  who, start + len + bad, start, len);
}

/* Tests scale down under emulation: CP_TEST_QUICK=1 (set by the qemu runners). */
static inline int test_quick(void)
{
	const char *q = getenv("CP_TEST_QUICK");
	return q && *q && strcmp(q, "0");
}

/* xorshift64*: reproducible random sizes and positions. */
static inline uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12; *s ^= *s << 25; *s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1Dull;
}

/*
 * Run body() in a child process: the library reads its environment once, at
 * its first use, so every environment case needs a fresh process (the parent
 * must not have used the library before forking). The child starts with no
 * CLEARPAGES_* variable of the runner's, then gets the NAME, VALUE pairs of
 * envs (NULL-terminated); its stdout and stderr are captured; a hang fails
 * after 20 s; it must exit 0 (body() exits non-zero to report a failed step).
 */
struct child_out {
	char out[2048];
	char err[2048];
};

static inline void read_back(FILE *f, char *buf, size_t size)
{
	rewind(f);
	size_t n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
}

static inline struct child_out in_child(const char *const *envs, void (*body)(void))
{
	static const char *const vars[] = { "CLEARPAGES_KERNEL", "CLEARPAGES_DISABLE",
		"CLEARPAGES_NT_THRESHOLD", "CLEARPAGES_PROFILE", "CLEARPAGES_QUIET" };
	struct child_out co;
	FILE *out = tmpfile(), *err = tmpfile();
	cr_assert(out && err);
	fflush(NULL);
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		dup2(fileno(out), 1);
		dup2(fileno(err), 2);
		for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
			unsetenv(vars[i]);
		for (; *envs; envs += 2)
			setenv(envs[0], envs[1], 1);
		alarm(20);
		body();
		fflush(stdout);
		_exit(0);
	}
	int status;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	read_back(out, co.out, sizeof(co.out));
	read_back(err, co.err, sizeof(co.err));
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "child failed (status 0x%x: exit code = failing step), stderr: %s", status, co.err);
	return co;
}

static const char *const no_env[] = { NULL };

static inline size_t count_lines(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

#endif
