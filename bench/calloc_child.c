/* SPDX-License-Identifier: MIT */
/*
 * clearbench calloc's workers seen from the parent (calloc.h): each one this binary again
 * with one allocator LD_PRELOADed, told what to time through a pipe.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "calloc.h"

extern char **environ;

int calloc_child_start(struct child *c, const struct alloc *a, size_t size, int quick,
		       size_t cold_ws, const char *extra_env)
{
	static char exe[4096];
	if (!exe[0] && readlink("/proc/self/exe", exe, sizeof(exe) - 1) < 0)
		return perror("calloc: /proc/self/exe"), 1;
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = calloc(n + 4, sizeof(*env));
	if (!env)
		return perror("calloc"), 1;
	char spec[96], preload[4200];
	size_t k = 0, xlen = extra_env ? strcspn(extra_env, "=") + 1 : 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11) && strncmp(environ[i], CALLOC_WORKER_ENV "=", 25) &&
		    !(xlen && !strncmp(environ[i], extra_env, xlen)))
			env[k++] = environ[i];
	snprintf(spec, sizeof(spec), CALLOC_WORKER_ENV "=%zu %d %d %zu", size, quick, a->kind,
		 cold_ws);
	env[k++] = spec;
	if (extra_env)
		env[k++] = (char *)extra_env;
	if (a->lib[0]) {
		snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", a->lib);
		env[k++] = preload;
	}
	int res[2], cmd[2];
	if (pipe2(res, O_CLOEXEC))
		return free(env), perror("calloc: pipe"), 1;
	if (pipe2(cmd, O_CLOEXEC))
		return free(env), close(res[0]), close(res[1]), perror("calloc: pipe"), 1;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, res[1], 3);
	posix_spawn_file_actions_adddup2(&fa, cmd[0], 4);
	char *argv[] = { exe, "calloc", NULL };
	char *argv2[] = { (char *)a->loader, "--library-path", (char *)a->libdir, exe, "calloc",
			  NULL };
	int rc = a->loader[0] ? posix_spawn(&c->pid, a->loader, &fa, NULL, argv2, env)
			      : posix_spawn(&c->pid, exe, &fa, NULL, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	close(res[1]);
	close(cmd[0]);
	free(env);
	if (rc) {
		close(res[0]);
		close(cmd[1]);
		return fprintf(stderr, "calloc: cannot start %s: %s\n", exe, strerror(rc)), 1;
	}
	c->a = a;
	c->cmd_fd = cmd[1];
	c->results = fdopen(res[0], "r");
	if (!c->results)
		return close(res[0]), close(cmd[1]), perror("calloc: fdopen"), 1;
	return 0;
}

int calloc_child_ask(struct child *c, char cmd, size_t size, double *gbs)
{
	char line[64];
	if (write(c->cmd_fd, &cmd, 1) != 1 || !fgets(line, sizeof(line), c->results) ||
	    sscanf(line, "%lf", gbs) != 1)
		return fprintf(stderr, "calloc: the %s worker failed at %zu bytes\n", c->a->name,
			       size), 1;
	return 0;
}

int calloc_child_finish(struct child *c)
{
	int status = 0;
	close(c->cmd_fd);
	fclose(c->results);
	if (waitpid(c->pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		return fprintf(stderr, "calloc: the %s worker exited badly\n", c->a->name), 1;
	return 0;
}
