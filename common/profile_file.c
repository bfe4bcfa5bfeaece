/* SPDX-License-Identifier: MIT */
/* Profile files read whole, never blocking (see profile_file.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "profile_file.h"

int cp__profile_file_read(const char *path, char *buf, size_t cap, size_t *len, int trusted)
{
	if (!path || !*path)
		return -ENOENT;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -ENOENT;
	struct stat st;
	int r = 0;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		r = -ENOENT;
	else if (trusted && (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH))))
		r = -EINVAL;
	else if ((size_t)st.st_size > cap)
		r = -EINVAL;
	size_t got = 0;
	while (r == 0) {
		ssize_t n = read(fd, buf + got, cap - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			r = -ENOENT;
		else if (n == 0)
			break;
		else if ((got += (size_t)n) == cap)
			r = -EINVAL;   /* larger than the cap (it grew while read) */
	}
	close(fd);
	*len = got;
	return r;
}
