/* SPDX-License-Identifier: MIT */
/*
 * clearpages as a plugin: dlopen the shared library, clear memory with the
 * parallel call (which registers fork handlers inside the library), dlclose
 * it, then fork. The fork must not run handlers of the unloaded library: this
 * is what the .so's own __dso_handle and destructor (common/so-glue.c) are for.
 *
 *   plugin_dlclose path/to/libclearpages.so.0      exit 0: all held
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <clearpages.h>

int main(int argc, char **argv)
{
	const size_t npages = 8192;   /* 32 MiB: big enough to be shared among threads */
	int (*parallel)(void *, size_t, unsigned);
	void *lib, *mem, *sym;
	unsigned char *buf;
	size_t i;
	pid_t pid;
	int status, rc;

	if (argc != 2) {
		fprintf(stderr, "usage: %s LIBRARY\n", argv[0]);
		return 2;
	}
	lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "plugin_dlclose: %s\n", dlerror());
		return 1;
	}
	sym = dlsym(lib, "cp_clear_pages_parallel");
	if (!sym || posix_memalign(&mem, CP_PAGE_SIZE, npages * CP_PAGE_SIZE) != 0) {
		fprintf(stderr, "plugin_dlclose: no cp_clear_pages_parallel or no memory\n");
		return 1;
	}
	/* POSIX allows the object-to-function pointer conversion dlsym needs. */
	memcpy(&parallel, &sym, sizeof(parallel));
	buf = mem;
	memset(buf, 0xa5, npages * CP_PAGE_SIZE);
	rc = parallel(buf, npages, 2);
	for (i = 0; i < npages * CP_PAGE_SIZE && buf[i] == 0; i++)
		;
	if (rc != 0 || i != npages * CP_PAGE_SIZE) {
		fprintf(stderr, "plugin_dlclose: FAILED: rc %d, first set byte %lu\n", rc, (unsigned long)i);
		return 1;
	}
	if (dlclose(lib) != 0) {
		fprintf(stderr, "plugin_dlclose: dlclose: %s\n", dlerror());
		return 1;
	}
	pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "plugin_dlclose: FAILED: fork after dlclose\n");
		return 1;
	}
	printf("plugin_dlclose: %lu pages cleared in parallel, unloaded, fork ok\n",
	       (unsigned long)npages);
	free(mem);
	return 0;
}
