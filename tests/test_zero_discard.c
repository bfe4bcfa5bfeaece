/* SPDX-License-Identifier: MIT */
/* cp_zero(CP_ZERO_MAY_DISCARD): private anonymous memory is discarded in
 * whole aligned units (its pages leave the resident set, huge pages around
 * stay whole); every other kind is stored, never discarded (its resident set
 * stays, a file's contents never come back); mlocked memory, a range over two
 * kinds, the threshold, no /proc and a seccomp filter. Each kind is checked
 * through PROCMAP_QUERY and through the text of /proc/self/maps. */
#include "zero_mem.h"
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/time.h>

static int is_private(enum kind k)
{
	return k == PRIVATE_ANON || k == PRIVATE_THP;
}

/* Four units of kind k, cleared from one page and 7 bytes in to one page and
 * 3 bytes before the end: units 1 and 2 may be discarded, no more. */
static void check_kind(enum kind k, int text_only)
{
	cp__maps_text_only = text_only;
	struct region r = region_map(k, 4);
	size_t unit = cp__discard_unit(), d = 0, start = PG + 7, len = r.len - 2 * PG - 10;
	const char *how = text_only ? "maps text" : "PROCMAP_QUERY or text";
	cr_assert_eq(cp_zero_ex(r.p + start, len, CP_ZERO_MAY_DISCARD, &d), 0);
	char who[96];
	snprintf(who, sizeof(who), "%s (%s)", kind_names[k], how);
	/* residency first: reading a discarded page maps the zero page */
	if (is_private(k)) {
		cr_assert_eq(d, 2 * unit, "%s: %zu bytes discarded, not the two whole units", who, d);
		cr_assert_eq(resident_bytes(r.p + unit, 2 * unit), 0,
			     "%s: discarded units are still resident", who);
	} else {
		cr_assert_eq(d, 0, "%s: %zu bytes discarded", who, d);
	}
	if (k == SHARED_ANON || k == MEMFD_SHARED)
		cr_assert_eq(resident_bytes(r.p, r.len), r.len,
			     "%s: pages left the resident set: discarded, not cleared", who);
	assert_cleared(who, r.p, r.len, start, len);
	region_unmap(&r);
	cp__maps_text_only = 0;
}

Test(zero_discard, each_kind_through_the_query_and_the_text)
{
	discards_expected();
	discard_from_one_page();
	for (enum kind k = PRIVATE_ANON; k <= FILE_PRIVATE; k++) {
		check_kind(k, 0);
		check_kind(k, 1);
	}
}

Test(zero_discard, huge_pages_around_the_range_stay_whole)
{
	discards_expected();
	discard_from_one_page();
	struct region r = region_map(PRIVATE_THP, 4);
	long unit_kb = (long)(cp__discard_unit() / 1024), before = anon_huge_kb(r.p);
	if (before < 4 * unit_kb) {     /* qemu-user: none; cr_log_warn would fail the run */
		region_unmap(&r);
		cr_skip_test("THP: %ld kB of huge pages, not %ld: no split to watch here",
			     before, 4 * unit_kb);
	}
	size_t d;
	cr_assert_eq(cp_zero_ex(r.p + 3 * PG, r.len - 5 * PG, CP_ZERO_MAY_DISCARD, &d), 0);
	/* Counted before anything reads the range: a read fault on a discarded
	 * unit maps the huge zero page on some kernels and allocates a fresh
	 * huge page on others (6.18 on the Zen 5 VM), which AnonHugePages counts. */
	long after = anon_huge_kb(r.p);
	cr_assert_eq(d, 2 * unit_kb * 1024, "%zu bytes discarded, not the two middle units", d);
	cr_assert_eq(after, 2 * unit_kb, "AnonHugePages %ld kB -> %ld kB: the edge huge pages were "
		     "split (or not discarded)", before, after);
	assert_cleared("THP", r.p, r.len, 3 * PG, r.len - 5 * PG);
	region_unmap(&r);
}

Test(zero_discard, mlocked_memory_is_stored)
{
	discard_from_one_page();
	struct region r = region_map(PRIVATE_ANON, 2);
	if (mlock(r.p, r.len)) {
		region_unmap(&r);
		cr_skip_test("mlock of %zu bytes refused (RLIMIT_MEMLOCK): %s", r.len, strerror(errno));
	}
	if (locked_kb() < (long)(r.len / 1024)) {    /* ASan's mlock does nothing */
		region_unmap(&r);
		cr_skip_test("mlock returned 0 but VmLck is %ld kB: not locked here", locked_kb());
	}
	size_t d;
	cr_assert_eq(cp_zero_ex(r.p, r.len, CP_ZERO_MAY_DISCARD, &d), 0);
	assert_cleared("mlocked", r.p, r.len, 0, r.len);
	cr_assert_eq(d, 0, "%zu bytes of mlocked memory discarded", d);
	cr_assert_eq(resident_bytes(r.p, r.len), r.len);
	region_unmap(&r);
}

Test(zero_discard, a_range_over_two_kinds)
{
	discards_expected();
	discard_from_one_page();
	static const unsigned flags[] = { CP_ZERO_MAY_DISCARD, CP_ZERO_MAY_DISCARD | CP_ZERO_PARALLEL,
					  CP_ZERO_MAY_DISCARD | CP_ZERO_COLD };
	for (int text = 0; text < 2; text++)
		for (size_t i = 0; i < 3; i++) {
			cp__maps_text_only = text;
			struct region r = region_map(PRIVATE_ANON, 4);
			size_t unit = cp__discard_unit(), d;
			unsigned char *shared = r.p + 2 * unit;
			cr_assert(mmap(shared, 2 * unit, PROT_READ | PROT_WRITE,
				       MAP_FIXED | MAP_SHARED | MAP_ANONYMOUS, -1, 0) == shared);
			memset(shared, FILL, 2 * unit);
			cr_assert_eq(cp_zero_ex(r.p + 100, r.len - 200, flags[i], &d), 0);
			cr_assert_eq(resident_bytes(r.p + unit, unit), 0, "unit 1 still resident");
			assert_cleared("private then shared", r.p, r.len, 100, r.len - 200);
			cr_assert_eq(d, unit, "flags %#x, text %d: %zu bytes discarded, not unit 1 alone",
				     flags[i], text, d);
			cr_assert_eq(resident_bytes(shared, 2 * unit), 2 * unit,
				     "the shared half was discarded");
			region_unmap(&r);
		}
	cp__maps_text_only = 0;
}

/* The policy's discard_from: parts below it are stored; "none" never discards. */
Test(zero_discard, threshold_and_hot)
{
	discards_expected();
	struct region r = region_map(PRIVATE_ANON, 2);
	size_t unit = cp__discard_unit(), d;
	struct cp__policy p = cp__state()->defaults;
	const size_t from[] = { 2 * unit / PG + 1, 2 * unit / PG, CP__BAND_UNUSED };
	const size_t want[] = { 0, 2 * unit, 0 };
	for (int i = 0; i < 3; i++) {
		p.discard_from_pages = from[i];
		cr_assert_eq(cp__policy_publish(&p, "test"), 0);
		memset(r.p, FILL, r.len);
		cr_assert_eq(cp_zero_ex(r.p, r.len, CP_ZERO_MAY_DISCARD, &d), 0);
		assert_cleared("threshold", r.p, r.len, 0, r.len);
		cr_assert_eq(d, want[i], "discard_from %zu pages: %zu bytes discarded", from[i], d);
	}
	p.discard_from_pages = 1;
	cr_assert_eq(cp__policy_publish(&p, "test"), 0);
	memset(r.p, FILL, r.len);
	cr_assert_eq(cp_zero_ex(r.p, r.len, CP_ZERO_MAY_DISCARD | CP_ZERO_HOT, &d), 0);
	assert_cleared("hot", r.p, r.len, 0, r.len);
	cr_assert_eq(d, 0, "HOT discarded %zu bytes", d);
	region_unmap(&r);
}

/* Untouched memory (never written, or handed back already: an allocator's
 * reused block) is discarded from 4 MiB even where discard_from says never,
 * which was measured on resident memory; resident memory is stored. */
Test(zero_discard, untouched_memory_is_discarded_whatever_the_threshold)
{
	discards_expected();
	size_t unit = cp__discard_unit(), d;
	struct cp__policy p = cp__state()->defaults;
	p.discard_from_pages = CP__BAND_UNUSED;
	cr_assert_eq(cp__policy_publish(&p, "test"), 0);
	size_t units = (8u << 20) / unit;
	struct region r = region_map(PRIVATE_ANON, units ? units : 1);
	/* handed back: untouched */
	cr_assert_eq(madvise(r.p, r.len, MADV_DONTNEED), 0);
	cr_assert_eq(cp_zero_ex(r.p, r.len, CP_ZERO_MAY_DISCARD, &d), 0);
	assert_cleared("untouched", r.p, r.len, 0, r.len);
	cr_assert_eq(d, r.len, "untouched, discard_from none: %zu of %zu bytes discarded", d, r.len);
	/* resident again: stored */
	memset(r.p, FILL, r.len);
	cr_assert_eq(cp_zero_ex(r.p, r.len, CP_ZERO_MAY_DISCARD, &d), 0);
	assert_cleared("resident", r.p, r.len, 0, r.len);
	cr_assert_eq(d, 0, "resident, discard_from none: %zu bytes discarded", d);
	/* its first eighth written (a sample falls in each eighth): stored */
	cr_assert_eq(madvise(r.p, r.len, MADV_DONTNEED), 0);
	memset(r.p, FILL, r.len / CP__UNTOUCHED_SAMPLES);
	cr_assert_eq(cp_zero_ex(r.p, r.len, CP_ZERO_MAY_DISCARD, &d), 0);
	assert_cleared("partly written", r.p, r.len, 0, r.len);
	cr_assert_eq(d, 0, "a written sample, discard_from none: %zu bytes discarded", d);
	/* HOT never discards; below 4 MiB nothing is sampled */
	cr_assert_eq(madvise(r.p, r.len, MADV_DONTNEED), 0);
	cr_assert_eq(cp_zero_ex(r.p, r.len, CP_ZERO_MAY_DISCARD | CP_ZERO_HOT, &d), 0);
	cr_assert_eq(d, 0, "HOT discarded %zu bytes", d);
	cr_assert_eq(madvise(r.p, r.len, MADV_DONTNEED), 0);
	cr_assert_eq(cp_zero_ex(r.p, (2u << 20) - 4096, CP_ZERO_MAY_DISCARD, &d), 0);
	cr_assert_eq(d, 0, "under 4 MiB: %zu bytes discarded", d);
	region_unmap(&r);
}

/* In a child: clear a private region that could be discarded; exit 0 when it
 * reads zero and nothing was discarded, else a code saying what broke. */
static int clear_without_discard(struct region *r)
{
	size_t d = 1;
	errno = 1234;
	if (cp_zero_ex(r->p, r->len, CP_ZERO_MAY_DISCARD, &d) != 0)
		return 10;
	if (first_not(r->p, r->len, 0) != r->len)
		return 11;
	if (errno != 1234)
		return 12;
	return d == 0 ? 0 : 13;
}

static void child_check(int (*prepare)(void), const char *label)
{
	discard_from_one_page();
	struct region r = region_map(PRIVATE_ANON, 2);
	pid_t pid = test_fork(test_hang_seconds(20));
	cr_assert(pid >= 0);
	if (pid == 0) {
		int s = prepare();
		_exit(s ? s : clear_without_discard(&r));
	}
	int st;
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st), "%s: the child died (signal %d)", label, WTERMSIG(st));
	if (WEXITSTATUS(st) == 77)
		cr_skip_test("%s: cannot be set up here (unprivileged, or emulated)", label);
	cr_assert_eq(WEXITSTATUS(st), 0, "%s: child status %d (10 error, 11 not zero, 12 errno "
		     "changed, 13 discarded)", label, WEXITSTATUS(st));
	region_unmap(&r);
}

static int no_proc(void)
{
	if (unshare(CLONE_NEWNS) || mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) ||
	    umount2("/proc", MNT_DETACH))
		return 77;
	/* qemu-user answers opens of /proc/self/maps itself, mounted or not */
	int fd = open("/proc/self/maps", O_RDONLY);
	if (fd >= 0) {
		close(fd);
		return 77;
	}
	return 0;
}

/* A filter answering EPERM to the listed syscalls. */
static int refuse(const long *nrs, int n)
{
	struct sock_filter f[16];
	int i = 0;
	f[i++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
	for (int j = 0; j < n; j++) {
		f[i++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nrs[j], 0, 1);
		f[i++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM);
	}
	f[i++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { (unsigned short)i, f };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		return 77;
	return 0;
}

static int refuse_madvise_ioctl(void)
{
	static const long nrs[] = { SYS_madvise, SYS_ioctl };
	return refuse(nrs, 2);
}

static int refuse_open(void)
{
	static const long nrs[] = { SYS_openat };
	return refuse(nrs, 1);
}

Test(zero_discard, no_proc_clears)
{
	child_check(no_proc, "/proc unmounted");
}

Test(zero_discard, seccomp_refusing_madvise_and_ioctl_clears)
{
	child_check(refuse_madvise_ioctl, "seccomp: madvise and ioctl refused");
}

Test(zero_discard, seccomp_refusing_open_clears)
{
	child_check(refuse_open, "seccomp: openat refused");
}

/* A handler's discard, interrupting discards and stores in progress: the
 * maps walk is open/ioctl/read/close on the stack, errno comes back whole. */
static struct region handler_region;
static volatile sig_atomic_t handler_runs, handler_bad;

static void discard_in_handler(int sig)
{
	(void)sig;
	int saved = errno;
	size_t d;
	memset(handler_region.p, FILL, handler_region.len);
	errno = 4321;
	handler_bad += cp_zero_ex(handler_region.p + 1, handler_region.len - 2,
				  CP_ZERO_MAY_DISCARD, &d) != 0 || errno != 4321 || d == 0 ||
		       first_not(handler_region.p + 1, handler_region.len - 2, 0) !=
			       handler_region.len - 2;
	handler_runs++;
	errno = saved;
}

Test(zero_discard, in_a_signal_handler)
{
	discards_expected();
	discard_from_one_page();
	handler_region = region_map(PRIVATE_ANON, 3);
	struct region r = region_map(PRIVATE_THP, 2);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = discard_in_handler;
	sa.sa_flags = SA_RESTART;
	cr_assert_eq(sigaction(SIGALRM, &sa, NULL), 0);
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	unsigned rounds = test_quick() ? 20 : 200;
	for (unsigned i = 0; i < rounds; i++) {
		/* one shot a round, into the fill or the clear: a handler slower
		 * than the interval (valgrind, qemu) cannot starve the loop */
		struct itimerval once = { { 0, 0 }, { 0, 100 + 97 * (i % 16) } };
		cr_assert_eq(setitimer(ITIMER_REAL, &once, NULL), 0);
		memset(r.p, FILL, r.len);
		unsigned flags = i & 1 ? CP_ZERO_MAY_DISCARD : CP_ZERO_MAY_DISCARD | CP_ZERO_HOT;
		cr_assert_eq(cp_zero(r.p + 5, r.len - 10, flags), 0);
		char who[48];
		snprintf(who, sizeof(who), "interrupted round %u", i);
		assert_cleared(who, r.p, r.len, 5, r.len - 10);
	}
	setitimer(ITIMER_REAL, &off, NULL);
	/* a SIGALRM still on its way (qemu delivers late) must not find the
	 * region unmapped */
	sa.sa_handler = SIG_IGN;
	sigaction(SIGALRM, &sa, NULL);
	cr_assert_gt(handler_runs, 0, "the timer never fired");
	cr_assert_eq(handler_bad, 0, "%d of %d handler discards went wrong", (int)handler_bad,
		     (int)handler_runs);
	region_unmap(&r);
	region_unmap(&handler_region);
}

Test(zero_discard, maps_lines)
{
	uintptr_t s, e;
	int anon;
	static const struct { const char *line; int ok, anon; } cases[] = {
		{ "7f0000000000-7f0000200000 rw-p 00000000 00:00 0 ", 1, 1 },
		{ "7f0000000000-7f0000200000 rw-p 00000000 00:00 0", 1, 1 },
		{ "55d0c0000000-55d0c0021000 rw-p 00000000 00:00 0                          [heap]", 1, 1 },
		{ "7f0000000000-7f0000200000 rw-s 00000000 00:01 1034 /dev/zero (deleted)", 1, 0 },
		{ "7f0000000000-7f0000200000 rw-p 00000000 00:01 9 /memfd:x (deleted)", 1, 0 },
		{ "7f0000000000-7f0000200000 r--p 00000000 00:00 0 ", 1, 0 },
		{ "7f0000000000-7f0000200000 rw-p 00001000 fe:01 123 /tmp/f", 1, 0 },
		{ "7f0000200000-7f0000000000 rw-p 00000000 00:00 0", 0, 0 },
		{ "7f0000000000 7f0000200000 rw-p 00000000 00:00 0", 0, 0 },
		{ "7f0000000000-7f0000200000 rw-p 00000000 00:00", 0, 0 },
		{ "", 0, 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r = cp__maps_parse_line(cases[i].line, strlen(cases[i].line), &s, &e, &anon);
		cr_assert_eq(r == 0, cases[i].ok, "'%s': %d", cases[i].line, r);
		if (r == 0)
			cr_assert_eq(anon, cases[i].anon, "'%s'", cases[i].line);
	}
}
