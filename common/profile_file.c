/* SPDX-License-Identifier: MIT */
/*
 * Profile files are read whole, without blocking, before the parser sees
 * them and outside any lock: a profile path naming a FIFO with no writer or
 * an idle pipe (/dev/stdin) must not stall cp_set_profile or the one-time
 * initialisation, and a lock held across file I/O would stall every other
 * loader and any child forked meanwhile. The opens, reads and closes go
 * through files.h, with signals blocked and no cancellation point while a
 * descriptor is open: a cancelled cp_set_profile leaves none behind.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include "files.h"
#include "profile_file.h"

static int same_file_state(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* Read fd to its end into buf; -EINVAL past cap bytes, -ENOENT on an error. */
static int read_all(int fd, char *buf, size_t cap, size_t *len)
{
	size_t total = 0;
	for (;;) {
		char probe;     /* with buf full: is there more? */
		size_t room = cap - total;
		ssize_t n = room ? cp__file_read(fd, buf + total, room) : cp__file_read(fd, &probe, 1);
		if (n < 0)
			return -ENOENT;
		if (n == 0)
			break;
		if (room == 0)
			return -EINVAL;
		total += (size_t)n;
	}
	*len = total;
	return 0;
}

int cp__profile_file_read(const char *path, char *buf, size_t cap, size_t *len, int trusted)
{
	struct stat before, after;
	*len = 0;
	if (!path || !*path)
		return -ENOENT;
	/* An O_PATH descriptor first, so that a device node is never opened
	 * for real (opening some has effects: a tape rewinds, a watchdog arms);
	 * the fstat of the descriptor read below is what decides. (O_PATH, not
	 * stat(): under qemu-user 10 a stat() in a child forked while another
	 * thread made file system calls was seen to hang.) */
	struct cp__file f;
	if (cp__file_open(&f, path, O_PATH))
		return -ENOENT;
	int regular = fstat(f.fd, &before) == 0 && S_ISREG(before.st_mode);
	cp__file_close(&f);
	if (!regular || cp__file_open(&f, path, O_RDONLY | O_NONBLOCK | O_NOCTTY))
		return -ENOENT;
	int fd = f.fd, r;
	if (fstat(fd, &before) || !S_ISREG(before.st_mode))
		r = -ENOENT;      /* replaced by something else since the stat */
	else if (trusted && (before.st_uid != 0 || (before.st_mode & (S_IWGRP | S_IWOTH))))
		r = -EINVAL;
	else if (before.st_size < 0 || (unsigned long long)before.st_size > cap)
		r = -EINVAL;
	else
		r = read_all(fd, buf, cap, len);
	if (r == 0 && (*len != (size_t)before.st_size || fstat(fd, &after) ||
		       !same_file_state(&before, &after)))
		r = -EINVAL;
	cp__file_close(&f);
	if (r)
		*len = 0;
	return r;
}
