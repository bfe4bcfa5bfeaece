/* SPDX-License-Identifier: MIT */
/*
 * Every file the library opens (files.h).
 *
 * Which procfs to trust. What discard and RESIDENT give back or populate
 * rests on what /proc/self/maps, smaps and pagemap say of this process, and
 * a file mounted over them says what it likes: another process's maps, on
 * procfs too, called a shared memfd "private anonymous" and its discard kept
 * every byte (a mount namespace is all it takes). A filesystem-type check
 * cannot tell; the path can. "/proc" is opened as a directory and must be
 * procfs's root (PROC_SUPER_MAGIC, inode 1: not one of its directories
 * mounted there), then "self/<name>" is opened from it by openat2 with
 * RESOLVE_NO_XDEV, which fails on any mount crossed on the way (over the
 * file, over /proc/<pid>), and RESOLVE_NO_MAGICLINKS; "self" is an ordinary
 * symlink inside procfs and resolves. Where openat2 is missing (before Linux
 * 5.6, refused by a seccomp filter, unknown to valgrind 3.19) nothing is
 * trusted: the callers act as with no /proc (discard stores; RESIDENT
 * populates, then stores). The file
 * opened must be procfs as well: qemu-user answers some opens with a file
 * of its own.
 *
 * The window. From before the open until after the close every signal is
 * blocked on the calling thread (pthread_sigmask: async-signal-safe; glibc
 * keeps its own cancellation and set*id signals unblocked), and only raw
 * system calls run in it: glibc's open, read, pread and close are
 * cancellation points, syscall() is not, and ioctl, fstat and fstatfs are
 * none. A handler that would siglongjmp out of the call (the contract lets
 * it, on the caller's own thread) runs when the window closes, with nothing
 * open; a deferred cancellation waits for the caller's next cancellation
 * point. Before, 400 such jumps left about 390 descriptors open and 200
 * cancelled threads about 190. The price: a signal is delivered up to one
 * window late, the longest being a read of smaps (a page table walk per
 * mapping up to the range), and up to five more system calls per file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>
#include "files.h"

#ifndef SYS_openat2
#define SYS_openat2 437          /* one number on every architecture */
#endif
#define PROC_ROOT_INO 1

static void window_open(struct cp__file *f)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &f->caller_mask);
	f->fd = -1;
}

static void window_close(struct cp__file *f)
{
	pthread_sigmask(SIG_SETMASK, &f->caller_mask, NULL);
}

static void raw_close(int fd)
{
	syscall(SYS_close, fd);      /* (EINTR: closed all the same on Linux) */
}

static int on_procfs(int fd)
{
	struct statfs fs;
	return fstatfs(fd, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC;
}

static int proc_root(void)
{
	long fd;
	do
		fd = syscall(SYS_openat, AT_FDCWD, "/proc", O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
	while (fd < 0 && errno == EINTR);
	struct stat st;
	if (fd >= 0 && (!on_procfs((int)fd) || fstat((int)fd, &st) || st.st_ino != PROC_ROOT_INO)) {
		raw_close((int)fd);
		fd = -1;
	}
	return (int)fd;
}

int cp__file_open_self(struct cp__file *f, const char *name)
{
	char path[32] = "self/";
	size_t at = 5;
	for (size_t i = 0; name[i] && at + 1 < sizeof(path); i++)
		path[at++] = name[i];
	path[at] = 0;
	window_open(f);
	int root = proc_root();
	if (root >= 0) {
		struct open_how how = { .flags = O_RDONLY | O_CLOEXEC,
					.resolve = RESOLVE_NO_XDEV | RESOLVE_NO_MAGICLINKS };
		long fd;
		do
			fd = syscall(SYS_openat2, root, path, &how, sizeof(how));
		while (fd < 0 && errno == EINTR);
		if (fd >= 0 && !on_procfs((int)fd)) {
			raw_close((int)fd);
			fd = -1;
		}
		raw_close(root);
		f->fd = (int)fd;
	}
	if (f->fd < 0)
		window_close(f);
	return f->fd < 0 ? -1 : 0;
}

int cp__file_open(struct cp__file *f, const char *path, int flags)
{
	window_open(f);
	long fd;
	do
		fd = syscall(SYS_openat, AT_FDCWD, path, flags | O_CLOEXEC, 0);
	while (fd < 0 && errno == EINTR);
	if (fd < 0) {
		int e = errno;
		window_close(f);
		errno = e;
		return -1;
	}
	f->fd = (int)fd;
	return 0;
}

void cp__file_close(struct cp__file *f)
{
	int e = errno;
	if (f->fd >= 0)
		raw_close(f->fd);
	f->fd = -1;
	window_close(f);
	errno = e;
}

ssize_t cp__file_read(int fd, void *buf, size_t n)
{
	long got;
	do
		got = syscall(SYS_read, fd, buf, n);
	while (got < 0 && errno == EINTR);
	return (ssize_t)got;
}

ssize_t cp__file_pread(int fd, void *buf, size_t n, uint64_t offset)
{
	long got;
	do
		got = syscall(SYS_pread64, fd, buf, n, (off_t)offset);
	while (got < 0 && errno == EINTR);
	return (ssize_t)got;
}

ssize_t cp__file_read_small(const char *path, char *buf, size_t size)
{
	struct cp__file f;
	if (size == 0 || cp__file_open(&f, path, O_RDONLY))
		return -1;
	size_t len = 0;
	ssize_t got = 0;
	while (len + 1 < size && (got = cp__file_read(f.fd, buf + len, size - 1 - len)) > 0)
		len += (size_t)got;
	cp__file_close(&f);
	if (got < 0)
		return -1;
	buf[len] = 0;
	return (ssize_t)len;
}
