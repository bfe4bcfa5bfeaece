/* SPDX-License-Identifier: MIT */
/*
 * Every file the library opens goes through here (common/files.c): this
 * process's own procfs files from a procfs it can trust, and the small sysfs
 * and profile files. Each is opened, read and closed inside a window in
 * which every signal is blocked on the calling thread and no cancellation
 * point runs, so that no descriptor outlives the call that opened it however
 * the call ends (a handler's siglongjmp, pthread_cancel). Hosted only;
 * async-signal-safe, no allocation; the close keeps errno.
 */
#ifndef CP_FILES_H
#define CP_FILES_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* An open file and the caller's signal mask, given back at the close. */
struct cp__file {
	int fd;
	sigset_t caller_mask;
};

/* This process's own /proc/self/<name> ("maps", "smaps", "pagemap"), opened
 * read-only from procfs's root without crossing any mount: 0 with f->fd open
 * and the window open, or -1 with neither (no procfs at /proc, a mount over
 * the file or its directory, no openat2: not trusted). */
int cp__file_open_self(struct cp__file *f, const char *name);

/* path opened with flags (O_CLOEXEC added): 0 with f->fd open and the window
 * open, or -1 (errno) with neither. */
int cp__file_open(struct cp__file *f, const char *path, int flags);

/* Closes f->fd, then the window; keeps errno. */
void cp__file_close(struct cp__file *f);

/* read and pread of an open file (raw system calls, EINTR retried). */
ssize_t cp__file_read(int fd, void *buf, size_t n);
ssize_t cp__file_pread(int fd, void *buf, size_t n, uint64_t offset);

/* A small file whole (up to size - 1 bytes) into buf, NUL-terminated: its
 * length, or -1 (not there, unreadable). */
ssize_t cp__file_read_small(const char *path, char *buf, size_t size);

#endif
