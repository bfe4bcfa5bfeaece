/* SPDX-License-Identifier: MIT */
/* cp_zero(CP_ZERO_MAY_DISCARD) never loses data (issue 38): memory the maps
 * show as private anonymous but that something else holds or fills is
 * stored, never discarded: userfaultfd-registered ranges, guard regions, a
 * /proc/self/maps that is not procfs. Pinned memory (an io_uring registered
 * buffer) cannot be seen: the header promises it is the caller's to exclude,
 * and flags 0 zeroes it in place. A fault left by longjmp leaves no
 * descriptor open. The handler and profile-cap tests of the same issue are in
 * tests/test_zero_safety_signals.c. */
#include "zero_mem.h"
#include <dirent.h>
#include <errno.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>

TestSuite(zero_safety);

#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102
#endif

/* ---- userfaultfd: a MISSING-mode handler that supplies SECRET pages ---- */
struct uffd_server {
	int uffd;
	int stop;
	unsigned served;
	unsigned char page[4096] __attribute__((aligned(4096)));
};

static void *uffd_serve(void *arg)
{
	struct uffd_server *s = arg;
	memset(s->page, SECRET, sizeof(s->page));
	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
		struct pollfd p = { .fd = s->uffd, .events = POLLIN };
		if (poll(&p, 1, 50) <= 0)
			continue;
		struct uffd_msg m;
		if (read(s->uffd, &m, sizeof(m)) != sizeof(m) || m.event != UFFD_EVENT_PAGEFAULT)
			continue;
		struct uffdio_copy c = { .dst = m.arg.pagefault.address & ~(uint64_t)4095,
					 .src = (uintptr_t)s->page, .len = 4096 };
		ioctl(s->uffd, UFFDIO_COPY, &c);
		s->served++;
	}
	return NULL;
}

Test(zero_safety, userfaultfd_memory_is_stored)
{
	if (test_under_valgrind())
		cr_skip_test("valgrind 3.19 has no userfaultfd system call (323: unhandled)");
	discard_from_one_page();
	size_t unit = cp__discard_unit(), len = 4 * unit;
	struct region r = region_map(PRIVATE_ANON, 4);
	cr_assert_eq(madvise(r.p, len, MADV_DONTNEED), 0);      /* untouched: all missing */
	int uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
	if (uffd < 0)
		uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0) {
		region_unmap(&r);
		cr_skip_test("userfaultfd: %s (no CONFIG_USERFAULTFD, or vm.unprivileged_userfaultfd=0)",
			     strerror(errno));
	}
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .range = { (uintptr_t)r.p, len },
				       .mode = UFFDIO_REGISTER_MODE_MISSING };
	cr_assert_eq(ioctl(uffd, UFFDIO_API, &api), 0, "UFFDIO_API: %s", strerror(errno));
	cr_assert_eq(ioctl(uffd, UFFDIO_REGISTER, &reg), 0, "UFFDIO_REGISTER: %s", strerror(errno));
	static struct uffd_server server;
	server.uffd = uffd;
	pthread_t t;
	cr_assert_eq(pthread_create(&t, NULL, uffd_serve, &server), 0);
	size_t d = 0;
	int rc = cp_zero_ex(r.p, len, CP_ZERO_MAY_DISCARD, &d);
	size_t zero = first_not(r.p, len, 0);
	__atomic_store_n(&server.stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	close(uffd);
	cr_assert_eq(rc, 0);
	cr_assert_eq(d, 0, "%zu bytes of userfaultfd-registered memory discarded", d);
	cr_assert_eq(zero, len, "byte %zu reads 0x%02x after cp_zero: the handler's page came back",
		     zero, zero < len ? r.p[zero] : 0);
	region_unmap(&r);
}

/* ---- guard regions (Linux 6.13+) ---- */
static sigjmp_buf fault_jmp;
static volatile sig_atomic_t faults;

static void on_fault(int sig)
{
	(void)sig;
	faults++;
	siglongjmp(fault_jmp, 1);
}

static void catch_faults(int on)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on ? on_fault : SIG_DFL;
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
}

/* A guard page inside memory MAY_DISCARD could give back: the call faults as
 * a clear with stores would (flags 0), rather than succeed and leave the
 * caller's next read to fault. */
Test(zero_safety, guard_region_faults_as_stores_do)
{
	discard_from_one_page();
	struct region r = region_map(PRIVATE_ANON, 4);
	size_t unit = cp__discard_unit();
	unsigned char *guard = r.p + unit + 5 * PG;
	if (madvise(guard, PG, MADV_GUARD_INSTALL)) {
		region_unmap(&r);
		cr_skip_test("MADV_GUARD_INSTALL: %s (guard regions are Linux 6.13+)", strerror(errno));
	}
	/* accepted is not enforced: qemu-user returns 0 and installs nothing */
	pid_t pid = test_fork(test_hang_seconds(20));
	cr_assert(pid >= 0);
	if (pid == 0) {
		signal(SIGSEGV, SIG_DFL);      /* no sanitizer's report: the fault is the answer */
		*(volatile unsigned char *)guard = 1;
		_exit(0);
	}
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	if (!WIFSIGNALED(st)) {
		region_unmap(&r);
		cr_skip_test("MADV_GUARD_INSTALL returned 0 but a store to the page did not fault "
			     "(qemu-user accepts the advice and installs nothing)");
	}
	size_t d = 0;
	volatile int returned = 0;
	faults = 0;
	catch_faults(1);
	if (sigsetjmp(fault_jmp, 1) == 0) {
		cp_zero_ex(r.p, r.len, CP_ZERO_MAY_DISCARD, &d);
		returned = 1;
	}
	catch_faults(0);
	cr_assert_eq(faults, 1, "cp_zero(MAY_DISCARD) over a guard page returned 0 with %zu bytes "
		     "discarded (it must fault as its stores would)", d);
	cr_assert_not(returned);
	region_unmap(&r);
}

Test(zero_safety, longjmp_out_of_a_discard_leaks_no_descriptor)
{
	discard_from_one_page();
	struct region r = region_map(PRIVATE_ANON, 2);
	size_t unit = cp__discard_unit();
	cr_assert_eq(mprotect(r.p + unit, PG, PROT_NONE), 0);
	int before = test_open_fds(), rounds = test_quick() ? 100 : 1000;
	volatile int i;
	faults = 0;
	catch_faults(1);
	for (i = 0; i < rounds; i++)
		if (sigsetjmp(fault_jmp, 1) == 0)
			cp_zero(r.p, r.len, CP_ZERO_MAY_DISCARD);
	catch_faults(0);
	int after = test_open_fds();
	cr_assert_eq(faults, rounds, "%d faults in %d calls over a PROT_NONE page", (int)faults, rounds);
	cr_assert_eq(after, before, "open descriptors %d -> %d after %d faults left by longjmp",
		     before, after, rounds);
	region_unmap(&r);
}

/* ---- a /proc/self/maps that is not procfs is not trusted ---- */
/* In a child with its own mount namespace: a tmpfs over /proc whose
 * self/maps claims that shared memory is private anonymous. */
static int fake_proc(void *shared, size_t len)
{
	if (unshare(CLONE_NEWNS) || mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) ||
	    mount("fake", "/proc", "tmpfs", 0, "size=64k") || mkdir("/proc/self", 0755))
		return 77;
	int fd = open("/proc/self/maps", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return 77;
	char line[128];
	int n = snprintf(line, sizeof(line), "%lx-%lx rw-p 00000000 00:00 0 \n",
			 (unsigned long)(uintptr_t)shared, (unsigned long)((uintptr_t)shared + len));
	if (write(fd, line, (size_t)n) != n)
		return 77;
	close(fd);
	size_t d = 0;
	if (cp_zero_ex(shared, len, CP_ZERO_MAY_DISCARD, &d))
		return 10;
	if (first_not(shared, len, 0) != len)
		return 11;
	return d ? 13 : 0;
}

Test(zero_safety, maps_text_not_on_procfs_is_not_trusted)
{
	if (test_under_qemu())
		cr_skip_test("qemu-user answers /proc/self/maps itself");
	discard_from_one_page();
	struct region r = region_map(SHARED_ANON, 2);
	unsigned seconds = test_hang_seconds(20);
	pid_t pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		alarm(seconds);
		_exit(fake_proc(r.p, r.len));
	}
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st), "the child died (signal %d)", WTERMSIG(st));
	if (WEXITSTATUS(st) == 77)
		cr_skip_test("a tmpfs over /proc in a new mount namespace is not permitted here");
	cr_assert_eq(WEXITSTATUS(st), 0, "child status %d (10 error, 11 shared memory kept its data: "
		     "discarded on a forged maps file, 13 discarded)", WEXITSTATUS(st));
	region_unmap(&r);
}

/* ---- hugetlbfs: a file mapping, stored ---- */
Test(zero_safety, hugetlb_is_stored)
{
	size_t len = 2u << 20;
	unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (p == MAP_FAILED)
		cr_skip_test("MAP_HUGETLB of 2 MiB: %s (vm.nr_hugepages is 0 here)", strerror(errno));
	discard_from_one_page();
	memset(p, FILL, len);
	size_t d = 1;
	cr_assert_eq(cp_zero_ex(p, len, CP_ZERO_MAY_DISCARD, &d), 0);
	cr_assert_eq(d, 0, "%zu bytes of hugetlb memory discarded", d);
	cr_assert_eq(first_not(p, len, 0), len);
	munmap(p, len);
}

/* ---- pinned memory: an io_uring registered buffer ---- */
#include "uring_min.h"

/* What the library cannot see is the caller's promise, and the header and
 * cp_zero(3) say so beside MAY_DISCARD. */
static int file_says(const char *path, const char *what)
{
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "%s (the suite runs from the source tree)", path);
	char line[512];
	int found = 0;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, what) != NULL;
	fclose(f);
	return found;
}

Test(zero_safety, pinned_memory_is_the_callers_promise)
{
	cr_assert(file_says("include/clearpages.h", "pinned"),
		  "clearpages.h says nothing of pinned memory and MAY_DISCARD");
	cr_assert(file_says("man/man3/cp_zero.3", "pinned"),
		  "cp_zero(3) says nothing of pinned memory and MAY_DISCARD");
}

/* Flags 0 zero a registered buffer in place: a READ_FIXED afterwards lands
 * in the memory the process reads. */
Test(zero_safety, io_uring_registered_buffer_zeroed_in_place)
{
	size_t len = 8u << 20;
	unsigned char *buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert(buf != MAP_FAILED);
	memset(buf, FILL, len);
	struct uring u;
	int e = uring_open(&u, buf, len);
	if (e) {
		munmap(buf, len);
		cr_skip_test("io_uring with a registered buffer: %s (kernel.io_uring_disabled, "
			     "seccomp, or no CONFIG_IO_URING)", strerror(e));
	}
	cr_assert_eq(cp_zero(buf, len, 0), 0);
	cr_assert_eq(first_not(buf, len, 0), len);
	int fd = secret_file(MEMFD_SHARED, 1u << 20);
	long got = uring_read_fixed(&u, fd, buf + PG, 1u << 20);
	close(fd);
	uring_close(&u);
	cr_assert_eq(got, 1 << 20, "READ_FIXED returned %ld", got);
	cr_assert_eq(first_not(buf + PG, 1u << 20, SECRET), 1u << 20,
		     "READ_FIXED's bytes are not in the buffer the process reads");
	cr_assert_eq(first_not(buf, PG, 0), PG);
	munmap(buf, len);
}
