/* SPDX-License-Identifier: MIT */
/*
 * The profile file reader (common/profile_file.c) on its own: what it reads,
 * what it refuses and with which error, that it never blocks (a hang is a
 * failure: SIGALRM after test_hang_seconds(10)), and that it leaves no
 * descriptor open.
 * The machine-wide variant also wants root's file, writable by no one else.
 */
#include "testutil.h"
#include "profile_file.h"
#include <errno.h>
#include <sys/stat.h>

#define CAP 64u

static char dir[64];
/* The path of name in the test's folder (four calls' answers live at once). */
static char *in_dir(const char *name)
{
	static char paths[4][128];
	static unsigned next;
	char *path = paths[next++ % 4];
	snprintf(path, sizeof(paths[0]), "%s/%s", dir, name);
	return path;
}

static void make_dir(void)
{
	strcpy(dir, "/tmp/cp_test_pfile_XXXXXX");
	cr_assert(mkdtemp(dir));
}

static void remove_dir(void)
{
	static const char *const names[] = { "ok", "fifo", "big", "cap", "empty", "link" };
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unlink(in_dir(names[i]));
	rmdir(dir);
}
TestSuite(profile_file, .init = make_dir, .fini = remove_dir);

static const char *file_of(const char *name, size_t len, mode_t mode)
{
	char text[4 * CAP];
	cr_assert(len <= sizeof(text));
	for (size_t i = 0; i < len; i++)
		text[i] = (char)('a' + i % 26);
	const char *path = in_dir(name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	cr_assert(fd >= 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, text, len), (ssize_t)len);
	cr_assert_eq(fchmod(fd, mode), 0);
	close(fd);
	return path;
}

/* The lowest free descriptor: a leak shows as a higher one afterwards. */
static int lowest_free_fd(void)
{
	int fd = open("/dev/null", O_RDONLY);
	close(fd);
	return fd;
}

enum { PLAIN, TRUSTED };

static int read_bounded(int trusted, const char *path, size_t *len)
{
	char buf[CAP];
	int fd_before = lowest_free_fd();
	*len = 12345;
	alarm(test_hang_seconds(10));
	int r = cp__profile_file_read(path, buf, sizeof(buf), len, trusted);
	alarm(0);
	cr_assert_eq(lowest_free_fd(), fd_before, "%s: a descriptor left open", path);
	if (r)
		cr_assert_eq(*len, 0, "%s: refused, yet length %zu", path, *len);
	return r;
}

static void expect(int trusted, const char *path, int want)
{
	size_t len;
	int r = read_bounded(trusted, path, &len);
	cr_assert_eq(r, want, "%s: %d, expected %d", path, r, want);
}

Test(profile_file, reads_a_regular_file_whole)
{
	char buf[CAP];
	size_t len;
	const char *path = file_of("ok", 40, 0644);
	cr_assert_eq(cp__profile_file_read(path, buf, sizeof(buf), &len, PLAIN), 0);
	cr_assert_eq(len, 40);
	cr_assert_eq(memcmp(buf, "abcdefghijklmnopqrstuvwxyzabcdefghijklmn", 40), 0);
	expect(PLAIN, file_of("empty", 0, 0644), 0);
	expect(PLAIN, file_of("cap", CAP, 0644), 0);
	cr_assert_eq(symlink(path, in_dir("link")), 0);
	expect(PLAIN, in_dir("link"), 0);
}

Test(profile_file, refuses_what_is_not_a_regular_file_without_blocking)
{
	cr_assert_eq(mkfifo(in_dir("fifo"), 0600), 0);
	int idle[2];
	cr_assert_eq(pipe(idle), 0);          /* the writer stays open and silent */
	cr_assert(dup2(idle[0], STDIN_FILENO) >= 0);
	const char *const odd[] = { in_dir("fifo"), "/dev/stdin", "/dev/zero", "/dev/null",
				    dir, "/", "/nonexistent/profile", "" };
	for (unsigned i = 0; i < sizeof(odd) / sizeof(odd[0]); i++)
		expect(PLAIN, odd[i], -ENOENT);
	size_t len;
	char buf[CAP];
	cr_assert_eq(cp__profile_file_read(NULL, buf, sizeof(buf), &len, PLAIN), -ENOENT);
}

Test(profile_file, refuses_larger_than_the_cap_or_unlike_its_stat)
{
	expect(PLAIN, file_of("big", CAP + 1, 0644), -EINVAL);
	expect(PLAIN, file_of("big", 4 * CAP, 0644), -EINVAL);
	/* a /proc file: size 0 by stat, a few bytes of text when read */
	expect(PLAIN, "/proc/self/statm", -EINVAL);
}

Test(profile_file, machine_wide_wants_root_and_no_other_writer)
{
	if (geteuid() != 0)
		cr_skip_test("needs root: the files must belong to root and to another user");
	expect(TRUSTED, file_of("ok", 40, 0644), 0);
	expect(TRUSTED, file_of("ok", 40, 0600), 0);
	expect(TRUSTED, file_of("ok", 40, 0664), -EINVAL);
	expect(TRUSTED, file_of("ok", 40, 0646), -EINVAL);
	expect(PLAIN, in_dir("ok"), 0);         /* the plain reader takes it */
	file_of("ok", 40, 0644);
	cr_assert_eq(chown(in_dir("ok"), 65534, 65534), 0);
	expect(TRUSTED, in_dir("ok"), -EINVAL);
	expect(PLAIN, in_dir("ok"), 0);
	cr_assert_eq(chown(in_dir("ok"), 0, 65534), 0);         /* root's, another group */
	expect(TRUSTED, in_dir("ok"), 0);
	cr_assert_eq(symlink(in_dir("ok"), in_dir("link")), 0);
	expect(TRUSTED, in_dir("link"), 0);   /* the file, not the link */
	expect(TRUSTED, "/dev/null", -ENOENT);
}
