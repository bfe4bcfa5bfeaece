/* SPDX-License-Identifier: MIT */
/* Profile files for the profile tests: made in /tmp, removed by the suite's
 * fini (and by child bodies before they exit, which skip it). */
#ifndef CP_PROFILE_FILES_H
#define CP_PROFILE_FILES_H
#include "testutil.h"
#include "testhooks.h"

#define PROFILE_FILES_MAX 64
static char profile_files[PROFILE_FILES_MAX][40];
static unsigned profile_nfiles;

static inline void profile_files_remove(void)
{
	for (unsigned i = 0; i < profile_nfiles; i++)
		unlink(profile_files[i]);
	profile_nfiles = 0;
}

/* The profile text in a fresh file; returns its path. */
static inline const char *profile_file(const char *text, size_t len)
{
	cr_assert(profile_nfiles < PROFILE_FILES_MAX);
	char *path = profile_files[profile_nfiles++];
	strcpy(path, "/tmp/cp_test_profile_XXXXXX");
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, text, len), (ssize_t)len);
	close(fd);
	return path;
}
#define PROFILE(text) profile_file(text, sizeof(text) - 1)

/* This CPU as a profile's cpu line names it, without the "cpu " key. */
static inline const char *profile_this_cpu(void)
{
	static char desc[128];
	struct cp__cpu cpu;
	struct cp__profile_cpu pc;
	cp__cpu_detect(&cpu);
	cp__profile_cpu_of(&cpu, &pc);
	cp__profile_cpu_describe(&pc, desc, sizeof(desc));
	return desc;
}
#endif
