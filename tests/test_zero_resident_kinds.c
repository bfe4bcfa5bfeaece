/* SPDX-License-Identifier: MIT */
/*
 * CP_ZERO_RESIDENT on memory whose content populate would bring back, or
 * that someone else fills: swapped-out pages (a swap file made for the test,
 * root only) and a userfaultfd range whose handler supplies SECRET pages.
 * Populate alone would return that content; the range must read zero.
 */
#include "zero_mem.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/swap.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif

static size_t count_nonzero_pages(const unsigned char *p, size_t len)
{
	size_t n = 0;
	for (size_t at = 0; at < len; at += CP_PAGE_SIZE)
		n += first_not(p + at, CP_PAGE_SIZE, 0) != CP_PAGE_SIZE;
	return n;
}

/* Pages of [p, p + len) that pagemap says are swapped out. */
static size_t swapped_pages(const void *p, size_t len)
{
	int fd = open("/proc/self/pagemap", O_RDONLY);
	cr_assert(fd >= 0);
	size_t n = 0;
	for (size_t at = 0; at < len; at += CP_PAGE_SIZE) {
		uint64_t e = 0;
		cr_assert_eq(pread(fd, &e, 8, (off_t)(((uintptr_t)p + at) / CP_PAGE_SIZE * 8)), 8);
		n += e >> 62 & 1;
	}
	close(fd);
	return n;
}

#define SWAPFILE "/tmp/cp_test_swap"

/* A 32 MiB swap file, on: 0, or a reason to skip. */
static const char *swap_on(void)
{
	if (geteuid() != 0)
		return "not root: no swap file can be switched on";
	int fd = open(SWAPFILE, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	if (fd < 0 || ftruncate(fd, 32 << 20) || fsync(fd) || close(fd))
		return "cannot write " SWAPFILE;
	/* a file with holes cannot be swapped to: write its blocks */
	fd = open(SWAPFILE, O_WRONLY);
	static const unsigned char zero[1 << 16];
	for (int i = 0; i < 512; i++)
		if (write(fd, zero, sizeof(zero)) != (ssize_t)sizeof(zero))
			return "cannot fill " SWAPFILE;
	close(fd);
	if (system("mkswap -q " SWAPFILE " >/dev/null 2>&1") != 0)
		return "mkswap failed (util-linux missing?)";
	if (swapon(SWAPFILE, 0) != 0)
		return "swapon refused here (a container, or a file system without swap files)";
	return NULL;
}

static void swap_off(void)
{
	swapoff(SWAPFILE);
	unlink(SWAPFILE);
}

Test(zero_resident_kinds, swapped_out_pages_come_back_zero)
{
	if (test_under_qemu())
		cr_skip_test("qemu-user: pagemap speaks of host addresses, not this guest's");
	const char *why = swap_on();
	if (why) {
		unlink(SWAPFILE);
		cr_skip_test("%s", why);
	}
	size_t len = 4 << 20;
	unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert(p != MAP_FAILED);
	madvise(p, len, MADV_NOHUGEPAGE);
	memset(p, SECRET, len);
	madvise(p, len, MADV_PAGEOUT);
	size_t swapped = swapped_pages(p, len);
	if (swapped == 0) {
		swap_off();
		cr_skip_test("MADV_PAGEOUT swapped nothing out here");
	}
	int r = cp_zero(p, len, CP_ZERO_RESIDENT);
	size_t left = count_nonzero_pages(p, len), resident = resident_bytes(p, len);
	swap_off();
	cr_assert_eq(r, 0);
	cr_assert_eq(left, 0, "%zu of %zu pages (%zu were swapped) hold their old bytes", left,
		     len / CP_PAGE_SIZE, swapped);
	cr_assert_eq(resident, len);
}

/* ---- userfaultfd: a handler thread supplies SECRET pages ---- */

struct uffd_handler {
	int uffd;
	int stop_fd;
	unsigned long served;
};

static void *serve(void *arg)
{
	struct uffd_handler *h = arg;
	static unsigned char page[CP_PAGE_SIZE] __attribute__((aligned(CP_PAGE_SIZE)));
	memset(page, SECRET, sizeof(page));
	for (;;) {
		struct pollfd fds[2] = { { h->uffd, POLLIN, 0 }, { h->stop_fd, POLLIN, 0 } };
		if (poll(fds, 2, -1) < 0 || fds[1].revents)
			return NULL;
		struct uffd_msg msg;
		if (read(h->uffd, &msg, sizeof(msg)) != (ssize_t)sizeof(msg))
			continue;
		if (msg.event != UFFD_EVENT_PAGEFAULT)
			continue;
		struct uffdio_copy c = { .dst = msg.arg.pagefault.address & ~(uint64_t)(CP_PAGE_SIZE - 1),
					 .src = (uintptr_t)page, .len = CP_PAGE_SIZE };
		if (ioctl(h->uffd, UFFDIO_COPY, &c) == 0)
			h->served++;
	}
}

Test(zero_resident_kinds, userfaultfd_memory_is_stored)
{
	int uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0)
		cr_skip_test("userfaultfd: %s (vm.unprivileged_userfaultfd, or a seccomp filter)",
			     strerror(errno));
	struct uffdio_api api = { .api = UFFD_API };
	cr_assert_eq(ioctl(uffd, UFFDIO_API, &api), 0);
	const unsigned flag_sets[] = { CP_ZERO_RESIDENT, CP_ZERO_RESIDENT | CP_ZERO_PARALLEL };
	for (unsigned f = 0; f < 2; f++) {
		size_t len = 66 << 20;
		unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		cr_assert(p != MAP_FAILED);
		madvise(p, len, MADV_NOHUGEPAGE);
		memset(p, FILL, len / 4);      /* a resident quarter, the rest the handler's */
		struct uffdio_register reg = { .range = { (uintptr_t)p, len },
					       .mode = UFFDIO_REGISTER_MODE_MISSING };
		cr_assert_eq(ioctl(uffd, UFFDIO_REGISTER, &reg), 0);
		int stop[2];
		cr_assert_eq(pipe(stop), 0);
		struct uffd_handler h = { uffd, stop[0], 0 };
		pthread_t t;
		cr_assert_eq(pthread_create(&t, NULL, serve, &h), 0);
		int r = cp_zero(p, len, flag_sets[f]);
		cr_assert_eq(write(stop[1], "x", 1), 1);
		pthread_join(t, NULL);
		close(stop[0]);
		close(stop[1]);
		cr_assert_eq(r, 0);
		cr_assert_gt(h.served, 0, "the handler served no fault: the range was not stored");
		size_t left = count_nonzero_pages(p, len);
		cr_assert_eq(left, 0, "flags %u: %zu pages hold what the handler supplied",
			     flag_sets[f], left);
		cr_assert_eq(resident_bytes(p, len), len);
		munmap(p, len);
	}
	close(uffd);
}

/* ---- from a signal handler (RESIDENT without PARALLEL is async-signal-safe) ---- */

#include <dirent.h>
#include <signal.h>
#include <sys/time.h>
#include <time.h>

#define HANDLER_BYTES ((size_t)256 << 10)
static unsigned char *handler_region;
static volatile sig_atomic_t handler_runs, handler_bad;

/* Fresh again (MADV_DONTNEED), its first half written, filled: all of it
 * async-signal-safe system calls and the library's call. */
static void fill_in_handler(int sig)
{
	(void)sig;
	int saved = errno;
	madvise(handler_region, HANDLER_BYTES, MADV_DONTNEED);
	memset(handler_region, FILL, HANDLER_BYTES / 2);
	handler_bad += cp_zero(handler_region, HANDLER_BYTES, CP_ZERO_RESIDENT) != 0 ||
		       first_not(handler_region, HANDLER_BYTES, 0) != HANDLER_BYTES;
	handler_runs++;
	errno = saved;
}

static int open_descriptors(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;
	cr_assert(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

Test(zero_resident_kinds, a_timer_fills_inside_fills)
{
	size_t len = 3 << 20;
	unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	handler_region = mmap(NULL, HANDLER_BYTES, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert(p != MAP_FAILED && handler_region != MAP_FAILED);
	cr_assert_eq(cp_zero(p, CP_PAGE_SIZE, CP_ZERO_RESIDENT), 0);    /* initialised outside */
	int fds = open_descriptors();
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fill_in_handler;
	sa.sa_flags = SA_RESTART;
	cr_assert_eq(sigaction(SIGALRM, &sa, NULL), 0);
	/* the handler's own time, measured: the timer leaves the loop 3/4 of it
	 * (under qemu or valgrind a fill takes 20x as long as natively) */
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < 5; i++)
		fill_in_handler(0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	long us = ((t1.tv_sec - t0.tv_sec) * 1000000L + (t1.tv_nsec - t0.tv_nsec) / 1000) / 5;
	long every_us = us * 4 > 300 ? us * 4 : 300;
	handler_runs = 0;
	struct itimerval every = { { every_us / 1000000, every_us % 1000000 },
				   { every_us / 1000000, every_us % 1000000 } },
			 off = { { 0, 0 }, { 0, 0 } };
	cr_assert_eq(setitimer(ITIMER_REAL, &every, NULL), 0);
	unsigned rounds = 0, bad = 0;
	/* paced by the handler's runs, not by time: at least 50 of them */
	while ((handler_runs < 50 && rounds < 100000) || rounds < 200) {
		madvise(p, len, MADV_DONTNEED);
		memset(p + len / 3, FILL, len / 3);
		bad += cp_zero(p + 17, len - 40, CP_ZERO_RESIDENT) != 0 ||
		       first_not(p + 17, len - 40, 0) != len - 40;
		rounds++;
	}
	cr_assert_eq(setitimer(ITIMER_REAL, &off, NULL), 0);
	/* a SIGALRM still pending (valgrind delivers late) must neither kill the
	 * test nor find the region unmapped: ignored, which discards it */
	signal(SIGALRM, SIG_IGN);
	cr_assert_eq(bad, 0, "%u of %u interrupted fills went wrong", bad, rounds);
	cr_assert_geq(handler_runs, 50, "the timer fired %d times in %u fills", (int)handler_runs,
		      rounds);
	cr_assert_eq(handler_bad, 0, "%d of %d fills in the handler went wrong", (int)handler_bad,
		     (int)handler_runs);
	cr_assert_eq(open_descriptors(), fds, "descriptors left open");
	cr_log_info("%d handler fills during %u fills", (int)handler_runs, rounds);
	munmap(p, len);
	munmap(handler_region, HANDLER_BYTES);
}
