/* SPDX-License-Identifier: MIT */
/*
 * clearpages-freestanding.o's first use, raced: in each of many fresh
 * processes, THREADS threads are released together onto their first call,
 * and every one of them must see exactly the decisions (report.h: source,
 * kernel list, cp_kernel_for at every power of two, plus cp_kernel_find)
 * that a single-threaded first use makes in a child of its own. A hosted
 * program (threads, fork) linking only the freestanding object; test-tsan
 * builds it with ThreadSanitizer too.
 *
 *   fs_race [PROCESSES]      last line: "N passed, N failed"
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "report.h"

#define THREADS 4
#define REPORT_BYTES 8192

struct capture {
	char text[REPORT_BYTES];
	size_t len;
};
static __thread struct capture *into;

static void write_capture(const char *s, size_t n)
{
	if (n > sizeof(into->text) - 1 - into->len)
		n = sizeof(into->text) - 1 - into->len;
	memcpy(into->text + into->len, s, n);
	into->len += n;
	into->text[into->len] = '\0';
}

/* The decisions as this thread sees them, its first call first. */
static void decisions(struct capture *c)
{
	into = c;
	c->len = 0;
	struct out o = { write_capture, { 0 }, 0 };
	const struct cp_kernel *movq = cp_kernel_find(
#if defined(__x86_64__)
		"movq"
#else
		"stp"
#endif
	);
	report(&o);
	const char *line = movq ? "find baseline: yes\n" : "find baseline: NULL\n";
	write_capture(line, strlen(line));
}

static int go;
static struct capture seen[THREADS];

static void *racer(void *arg)
{
	struct capture *c = arg;
	while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
		;                       /* released together */
	decisions(c);
	return NULL;
}

/* One fresh process: THREADS racers; 0 when each saw `want`. */
static int raced_process(const char *want)
{
	pthread_t t[THREADS];
	for (unsigned i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, racer, &seen[i]))
			return 2;
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	int bad = 0;
	for (unsigned i = 0; i < THREADS; i++) {
		pthread_join(t[i], NULL);
		if (strcmp(seen[i].text, want) && !bad++) {
			fprintf(stderr, "thread %u saw:\n%.400s\n-- the single-threaded first use:\n%.400s\n",
				i, seen[i].text, want);
		}
	}
	return bad ? 1 : 0;
}

static int wait_ok(pid_t pid)
{
	int status;
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0;
}

int main(int argc, char **argv)
{
	unsigned processes = argc > 1 ? (unsigned)atoi(argv[1]) : 150, passed = 0, failed = 0;
	static struct capture want;
	int fd[2];
	if (pipe(fd))
		return 2;
	pid_t pid = fork();            /* the reference: one thread, one first use */
	if (pid == 0) {
		decisions(&want);
		ssize_t w = write(fd[1], want.text, want.len);
		_exit(w == (ssize_t)want.len ? 0 : 1);
	}
	close(fd[1]);
	ssize_t r;
	while ((r = read(fd[0], want.text + want.len, sizeof(want.text) - 1 - want.len)) > 0)
		want.len += (size_t)r;
	close(fd[0]);
	if (!wait_ok(pid) || want.len == 0) {
		printf("FAIL the single-threaded reference\n0 passed, 1 failed\n");
		return 1;
	}
	for (unsigned p = 0; p < processes; p++) {
		fflush(stdout);
		pid = fork();
		if (pid == 0)
			_exit(raced_process(want.text));
		if (wait_ok(pid))
			passed++;
		else
			failed++;
	}
	printf("fs_race: %u processes, %u threads each released onto their first call: %u saw "
	       "other decisions than a single-threaded first use\n", processes, THREADS, failed);
	printf("%u passed, %u failed\n", passed, failed);
	return failed != 0;
}
