/* SPDX-License-Identifier: MIT */
/* cp_zero's MAY_DISCARD and RESIDENT against a procfs that describes another
 * process, and against calls that end early (suite zero_procfs):
 *  - another process's maps, smaps and pagemap mounted over this process's
 *    (a mount namespace suffices): nothing is reported zero that is not;
 *  - openat2 refused (ENOSYS, as before Linux 5.6): nothing is trusted;
 *  - a handler's siglongjmp out of the calls, and pthread_cancel of threads
 *    making them: no descriptor outlives the call that opened it.
 * The mount and timer tests run in forked children (a namespace and a signal
 * handler are the whole process's), which touch no stdio and no malloc (the
 * Criterion worker has a second thread); what they find comes back in a
 * shared page. Their timers and deadlines come from the call's own cost,
 * measured here. */
#include "zero_mem.h"
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stddef.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>

#define MIB ((size_t)1 << 20)
#define OLD 0xab          /* what the memory held before the call */

/* Descriptors open in this process: fcntl probes (no descriptor of their
 * own, no allocation, no cancellation point). */
static long open_fds(void)
{
	struct rlimit rl;
	long max = 65536, n = 0;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)max)
		max = (long)rl.rlim_cur;
	for (long fd = 0; fd < max; fd++)
		n += fcntl((int)fd, F_GETFD) != -1;
	return n;
}

static void *shared_page(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	cr_assert(p != MAP_FAILED);
	memset(p, 0, size);
	return p;
}

/* len bytes at an address aligned to align, in a PROT_NONE reservation
 * (*map, *map_len) that nothing else will take. */
static unsigned char *reserve_aligned(size_t len, size_t align, void **map, size_t *map_len)
{
	*map_len = len + align;
	*map = mmap(NULL, *map_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	cr_assert(*map != MAP_FAILED);
	return (unsigned char *)(((uintptr_t)*map + align - 1) & ~(uintptr_t)(align - 1));
}

/* body(arg) in a forked child (test_fork: it dies with this thread, and by
 * SIGALRM after `seconds`); waited for at most 5 s longer, then killed. Its
 * exit status; a death by signal fails the test. */
static int run_forked(int (*body)(void *), void *arg, double seconds)
{
	unsigned alarm_s = seconds < 1 ? 1 : seconds > 3600 ? 3600 : (unsigned)seconds + 1;
	pid_t pid = test_fork(alarm_s);
	cr_assert(pid >= 0, "fork");
	if (pid == 0)
		_exit(body(arg));
	int st = 0;
	double end = test_now_seconds() + alarm_s + 5;
	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (test_now_seconds() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			cr_assert_fail("the child still ran 5 s past its %u s deadline", alarm_s);
		}
		usleep(2000);
	}
	cr_assert(WIFEXITED(st), "the child died of signal %d (%s)%s", WTERMSIG(st),
		  strsignal(WTERMSIG(st)), WTERMSIG(st) == SIGALRM ? ": it hung past its deadline" : "");
	return WEXITSTATUS(st);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* ---- another process's procfs files mounted over this one's ---- */

enum { FAKE_CASES = 3 };
static const char *const fake_cases[FAKE_CASES] = {
	("MAY_DISCARD, shared memfd, maps+smaps+pagemap of a process with private "
	 "anonymous memory there"),
	"RESIDENT, shared memfd, maps+smaps+pagemap of that process",
	"RESIDENT, private anonymous holding data, pagemap of that process (where it holds none)",
};
static const char *const fake_steps[] = {
	"", "unshare(CLONE_NEWNS)", "mount(\"/\", MS_REC | MS_PRIVATE)",
	"mount(MS_BIND) of the helper's maps, smaps or pagemap over this process's",
	"reading back /proc/self/maps (the mounted file is not what this process reads: qemu-user?)",
	"fork of the helper", "memfd_create", "umount2 of the mounted maps and smaps",
};
#define FAKE_SKIPPED 77

struct fake_out {
	int step, err;                       /* the step that failed, its errno */
	struct { int rc; size_t discarded, bad_at; unsigned char bad; } r[FAKE_CASES];
};

struct fake_args {
	unsigned char *a, *b;                /* unit-aligned, len bytes each */
	size_t len;
	struct fake_out *out;
};

static int fake_fail(struct fake_out *o, int step)
{
	o->step = step;
	o->err = errno;
	return FAKE_SKIPPED;
}

/* "/proc/<pid>/<name>" into buf, without stdio. */
static void proc_path(char *buf, pid_t pid, const char *name)
{
	char digits[16];
	int n = 0;
	do
		digits[n++] = (char)('0' + pid % 10);
	while ((pid /= 10) > 0);
	strcpy(buf, "/proc/");
	size_t at = strlen(buf);
	while (n)
		buf[at++] = digits[--n];
	buf[at++] = '/';
	strcpy(buf + at, name);
}

static int bind_over_self(pid_t helper, const char *name)
{
	char from[64], to[64];
	proc_path(from, helper, name);
	proc_path(to, getpid(), name);
	return mount(from, to, "none", MS_BIND, NULL);
}

/* What this process reads in /proc/self/maps for the mapping holding p: 1
 * private anonymous, 0 anything else, -1 no line for it. */
static int maps_says_private_anon(const void *p)
{
	static char text[1 << 20];           /* (forked child: no malloc) */
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t len = 0;
	ssize_t got;
	while (len < sizeof(text) && (got = read(fd, text + len, sizeof(text) - len)) > 0)
		len += (size_t)got;
	close(fd);
	for (size_t at = 0; at < len;) {
		size_t end = at;
		while (end < len && text[end] != '\n')
			end++;
		uintptr_t s, e;
		int anon;
		if (cp__maps_parse_line(text + at, end - at, &s, &e, &anon) == 0 &&
		    (uintptr_t)p >= s && (uintptr_t)p < e)
			return anon;
		at = end + 1;
	}
	return -1;
}

static void fake_record(struct fake_args *f, int c, unsigned char *p, int rc, size_t d)
{
	size_t bad = first_not(p, f->len, 0);
	f->out->r[c].rc = rc;
	f->out->r[c].discarded = d;
	f->out->r[c].bad_at = bad;
	f->out->r[c].bad = bad < f->len ? p[bad] : 0;
}

/* In the child, with the helper (whose memory at a and b is private,
 * anonymous and untouched) running: this process's a becomes a shared memfd
 * holding OLD, its b private anonymous holding OLD; the helper's files
 * mounted over this process's; each case's call. */
static int fake_cases_run(struct fake_args *f, pid_t helper)
{
	int mfd = memfd_create("cp_fake_procfs", MFD_CLOEXEC);
	if (mfd < 0 || ftruncate(mfd, (off_t)f->len) ||
	    mmap(f->a, f->len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, mfd, 0) != f->a)
		return fake_fail(f->out, 6);
	close(mfd);
	memset(f->a, OLD, f->len);
	memset(f->b, OLD, f->len);
	if (bind_over_self(helper, "maps") || bind_over_self(helper, "smaps") ||
	    bind_over_self(helper, "pagemap"))
		return fake_fail(f->out, 3);
	if (maps_says_private_anon(f->a) != 1) {
		errno = 0;
		return fake_fail(f->out, 4);
	}
	size_t d = 0;
	int rc = cp_zero_ex(f->a, f->len, CP_ZERO_MAY_DISCARD, &d);
	fake_record(f, 0, f->a, rc, d);
	memset(f->a, OLD, f->len);
	d = 0;
	rc = cp_zero_ex(f->a, f->len, CP_ZERO_RESIDENT, &d);
	fake_record(f, 1, f->a, rc, d);
	char self_maps[64], self_smaps[64];
	proc_path(self_maps, getpid(), "maps");
	proc_path(self_smaps, getpid(), "smaps");
	if (umount2(self_maps, MNT_DETACH) || umount2(self_smaps, MNT_DETACH))
		return fake_fail(f->out, 7);
	d = 0;
	rc = cp_zero_ex(f->b, f->len, CP_ZERO_RESIDENT, &d);
	fake_record(f, 2, f->b, rc, d);
	return 0;
}

static int fake_child(void *arg)
{
	struct fake_args *f = arg;
	if (unshare(CLONE_NEWNS))
		return fake_fail(f->out, 1);
	if (mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL))
		return fake_fail(f->out, 2);
	/* private anonymous and untouched at a and b, in the helper as here */
	if (mmap(f->a, f->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		 -1, 0) != f->a ||
	    mmap(f->b, f->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		 -1, 0) != f->b)
		return 3;
	pid_t me = getpid(), helper = fork();
	if (helper == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == me)
			for (;;)
				pause();
		_exit(0);
	}
	if (helper < 0)
		return fake_fail(f->out, 5);
	int s = fake_cases_run(f, helper);
	kill(helper, SIGKILL);               /* every path: no process left behind */
	waitpid(helper, NULL, 0);
	return s;
}

Test(zero_procfs, another_process_files_mounted_over_this_ones_are_not_trusted)
{
	discard_from_one_page();
	size_t unit = cp__discard_unit();
	size_t len = 4 * MIB < 2 * unit ? 2 * unit : (4 * MIB + unit - 1) / unit * unit;
	void *map_a, *map_b;
	size_t map_a_len, map_b_len;
	struct fake_args f = { reserve_aligned(len, unit, &map_a, &map_a_len),
			       reserve_aligned(len, unit, &map_b, &map_b_len), len,
			       shared_page(sizeof(struct fake_out)) };
	int s = run_forked(fake_child, &f, 60);
	if (s == FAKE_SKIPPED)
		cr_skip_test("the fake procfs cannot be set up here: %s failed%s%s",
			     fake_steps[f.out->step], f.out->err ? ": " : "",
			     f.out->err ? strerror(f.out->err) : "");
	cr_assert_eq(s, 0, "child status %d (3 mmap)", s);
	int bad = 0;
	for (int c = 0; c < FAKE_CASES; c++) {
		int ok = f.out->r[c].rc == 0 && f.out->r[c].discarded == 0 && f.out->r[c].bad_at == len;
		cr_expect(ok, "%s: returned %d, discarded %zu, byte %zu of %zu = 0x%02x", fake_cases[c],
			  f.out->r[c].rc, f.out->r[c].discarded, f.out->r[c].bad_at, len, f.out->r[c].bad);
		bad += !ok;
	}
	cr_assert_eq(bad, 0, "%d of %d cases trusted another process's files", bad, FAKE_CASES);
	munmap(map_a, map_a_len);
	munmap(map_b, map_b_len);
	munmap(f.out, sizeof(*f.out));
}

/* ---- no openat2: nothing trusted ---- */

struct no_openat2_out {
	int err, rc[2];
	size_t discarded, bad_at[2];
};

struct no_openat2_args {
	struct region *r;
	struct no_openat2_out *out;
};

/* A filter answering ENOSYS to openat2, as a kernel before 5.6 does. */
static int refuse_openat2(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { (unsigned short)(sizeof(f) / sizeof(f[0])), f };
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

static int no_openat2_child(void *arg)
{
	struct no_openat2_args *a = arg;
	struct region *r = a->r;
	if (refuse_openat2()) {
		a->out->err = errno;
		return FAKE_SKIPPED;
	}
	a->out->rc[0] = cp_zero_ex(r->p, r->len, CP_ZERO_MAY_DISCARD, &a->out->discarded);
	a->out->bad_at[0] = first_not(r->p, r->len, 0);
	memset(r->p, OLD, r->len);
	size_t d;
	a->out->rc[1] = cp_zero_ex(r->p, r->len, CP_ZERO_RESIDENT, &d);
	a->out->bad_at[1] = first_not(r->p, r->len, 0);
	return 0;
}

Test(zero_procfs, without_openat2_nothing_is_trusted)
{
	discard_from_one_page();
	struct region r = region_map(PRIVATE_ANON, 2);
	struct no_openat2_args a = { &r, shared_page(sizeof(struct no_openat2_out)) };
	int s = run_forked(no_openat2_child, &a, 60);
	if (s == FAKE_SKIPPED)
		cr_skip_test("no seccomp filter here: %s", strerror(a.out->err));
	cr_assert_eq(s, 0, "child status %d", s);
	cr_expect(a.out->rc[0] == 0 && a.out->discarded == 0 && a.out->bad_at[0] == r.len,
		  "MAY_DISCARD with openat2 refused: returned %d, discarded %zu of %zu, first "
		  "byte not zero %zu (%zu: none)", a.out->rc[0], a.out->discarded, r.len,
		  a.out->bad_at[0], r.len);
	cr_expect(a.out->rc[1] == 0 && a.out->bad_at[1] == r.len, "RESIDENT with openat2 "
		  "refused: returned %d, first byte not zero %zu (%zu: none)", a.out->rc[1],
		  a.out->bad_at[1], r.len);
	munmap(a.out, sizeof(*a.out));
	region_unmap(&r);
}

/* ---- a handler's siglongjmp out of the calls ---- */

#define JUMPS 400

struct jump_out {
	long fds_before, fds_after, interrupted, attempts, completed;
};

struct jump_args {
	unsigned char *p;
	size_t len;
	unsigned flags;
	double cost_ns;
	long max_attempts;
	struct jump_out *out;
};

static sigjmp_buf jump_env;
static volatile sig_atomic_t in_call, interrupted;

static void jump_out(int sig)
{
	(void)sig;
	if (in_call) {
		in_call = 0;
		interrupted++;
		siglongjmp(jump_env, 1);
	}
}

/* One call: what RESIDENT finds is given back first, so that each call
 * asks the pagemap and populates (not the plain clear of present memory). */
static size_t one_call(unsigned char *p, size_t len, unsigned flags)
{
	size_t d = 0;
	if (flags & CP_ZERO_RESIDENT)
		madvise(p, len, MADV_DONTNEED);
	cr_assert_eq(cp_zero_ex(p, len, flags, &d), 0);
	return d;
}

static int jump_child(void *arg)
{
	struct jump_args *j = arg;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = jump_out;
	sigaction(SIGUSR1, &sa, NULL);
	struct sigevent ev;
	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_THREAD_ID;
	ev.sigev_signo = SIGUSR1;
	ev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	timer_t timer;
	if (timer_create(CLOCK_MONOTONIC, &ev, &timer))
		return 78;
	const struct itimerspec off = { { 0, 0 }, { 0, 0 } };
	j->out->fds_before = open_fds();
	long i;
	for (i = 0; interrupted < JUMPS && i < j->max_attempts; i++) {
		if (j->flags & CP_ZERO_RESIDENT)
			madvise(j->p, j->len, MADV_DONTNEED);
		/* one shot a call, at 1/64 .. 63/64 of its measured cost */
		long ns = (long)(j->cost_ns * (double)(i % 32 * 2 + 1) / 64);
		struct itimerspec once = { { 0, 0 }, { ns / 1000000000, ns % 1000000000 + (ns == 0) } };
		if (sigsetjmp(jump_env, 1) == 0) {
			size_t d;
			timer_settime(timer, 0, &once, NULL);
			in_call = 1;
			cp_zero_ex(j->p, j->len, j->flags, &d);
			in_call = 0;
			j->out->completed++;
		}
		timer_settime(timer, 0, &off, NULL);
	}
	j->out->attempts = i;
	j->out->interrupted = interrupted;
	sa.sa_handler = SIG_IGN;             /* one still on its way */
	sigaction(SIGUSR1, &sa, NULL);
	j->out->fds_after = open_fds();
	return 0;
}

static void jump_out_of_calls(unsigned flags, const char *what)
{
	discard_from_one_page();
	struct region r = region_map(PRIVATE_THP, flags & CP_ZERO_RESIDENT ? 1 : 4);
	double t[21];
	size_t d = 0;
	for (int i = 0; i < 21; i++) {
		double s = test_now_seconds();
		d = one_call(r.p, r.len, flags);
		t[i] = (test_now_seconds() - s) * 1e9;
	}
	qsort(t, 21, sizeof(t[0]), cmp_double);
	if ((flags & CP_ZERO_MAY_DISCARD) && !procfs_untrusted())
		cr_assert_eq(d, r.len, "%s: %zu of %zu bytes discarded: not the path under test",
			     what, d, r.len);
	struct jump_args j = { r.p, r.len, flags, t[10], 40 * JUMPS,
			       shared_page(sizeof(struct jump_out)) };
	/* an attempt is a call at most, and the timer's set-up: four times the
	 * call is the deadline of each (it only ends a hang) */
	int s = run_forked(jump_child, &j, 10 + j.max_attempts * t[10] * 4 / 1e9);
	cr_assert_eq(s, 0, "child status %d (78 no timer)", s);
	struct jump_out *o = j.out;
	cr_assert_geq(o->interrupted, JUMPS, "%s: %ld of %ld calls interrupted (%ld completed), "
		      "call %.0f ns: the timer did not land inside the calls", what, o->interrupted,
		      o->attempts, o->completed, t[10]);
	cr_assert_eq(o->fds_after, o->fds_before, "%s: fds %ld -> %ld over %ld interrupted calls "
		     "(%ld completed)", what, o->fds_before, o->fds_after, o->interrupted,
		     o->completed);
	munmap(o, sizeof(*o));
	region_unmap(&r);
}

Test(zero_procfs, a_handler_longjmp_out_of_discards_leaves_no_descriptor)
{
	jump_out_of_calls(CP_ZERO_MAY_DISCARD, "MAY_DISCARD");
}

Test(zero_procfs, a_handler_longjmp_out_of_resident_leaves_no_descriptor)
{
	jump_out_of_calls(CP_ZERO_RESIDENT, "RESIDENT");
}

/* ---- pthread_cancel of threads in the calls ---- */

#define CANCELLED 200

struct cancel_job {
	unsigned char *p;
	size_t len;
	unsigned flags;
	int began, in_call, ended_in_call;
};

static void note_end(void *arg)
{
	struct cancel_job *j = arg;
	j->ended_in_call = __atomic_load_n(&j->in_call, __ATOMIC_RELAXED);
}

static void *call_until_cancelled(void *arg)
{
	struct cancel_job *j = arg;
	pthread_cleanup_push(note_end, j);
	for (;;) {
		size_t d;
		if (j->flags & CP_ZERO_RESIDENT)
			madvise(j->p, j->len, MADV_DONTNEED);
		__atomic_store_n(&j->in_call, 1, __ATOMIC_RELAXED);
		cp_zero_ex(j->p, j->len, j->flags, &d);
		__atomic_store_n(&j->in_call, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&j->began, 1, __ATOMIC_RELEASE);
		pthread_testcancel();
	}
	pthread_cleanup_pop(0);
	return NULL;
}

static struct timespec realtime_in(double seconds)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	double ns = (double)ts.tv_nsec + seconds * 1e9;
	ts.tv_sec += (time_t)(ns / 1e9);
	ts.tv_nsec = (long)(ns - (double)(time_t)(ns / 1e9) * 1e9);
	return ts;
}

static void cancel_in_calls(unsigned flags, const char *what)
{
	discard_from_one_page();
	struct region r = region_map(PRIVATE_THP, flags & CP_ZERO_RESIDENT ? 1 : 4);
	double t[21];
	for (int i = 0; i < 21; i++) {
		double s = test_now_seconds();
		one_call(r.p, r.len, flags);
		t[i] = (test_now_seconds() - s) * 1e9;
	}
	qsort(t, 21, sizeof(t[0]), cmp_double);
	double cost = t[10], wait_s = 5 + 100 * cost / 1e9;   /* a hang's end only */
	long before = open_fds();
	int inside = 0;
	for (int i = 0; i < CANCELLED; i++) {
		struct cancel_job j = { r.p, r.len, flags, 0, 0, 0 };
		pthread_t th;
		cr_assert_eq(pthread_create(&th, NULL, call_until_cancelled, &j), 0);
		double end = test_now_seconds() + wait_s;
		while (!__atomic_load_n(&j.began, __ATOMIC_ACQUIRE) && test_now_seconds() < end)
			sched_yield();
		int began = __atomic_load_n(&j.began, __ATOMIC_ACQUIRE);
		/* then into its next call, at 0 .. 15/16 of the call's cost */
		for (double s = test_now_seconds(); (test_now_seconds() - s) * 1e9 < cost * (i % 16) / 16;)
			;
		pthread_cancel(th);
		void *ret = NULL;
		struct timespec until = realtime_in(wait_s);
		int jr = pthread_timedjoin_np(th, &ret, &until);
		cr_assert_eq(jr, 0, "%s: thread %d did not end within %.1f s of its cancellation "
			     "(join: %s)", what, i, wait_s, strerror(jr));
		cr_assert(began, "%s: thread %d made no call in %.1f s", what, i, wait_s);
		cr_assert_eq(ret, PTHREAD_CANCELED, "%s: thread %d was not cancelled", what, i);
		inside += j.ended_in_call;
	}
	long after = open_fds();
	cr_assert_eq(after, before, "%s: fds %ld -> %ld over %d cancelled threads (%d of them "
		     "ended inside a call)", what, before, after, CANCELLED, inside);
	region_unmap(&r);
}

Test(zero_procfs, cancelled_threads_in_discards_leave_no_descriptor)
{
	cancel_in_calls(CP_ZERO_MAY_DISCARD, "MAY_DISCARD");
}

Test(zero_procfs, cancelled_threads_in_resident_leave_no_descriptor)
{
	cancel_in_calls(CP_ZERO_RESIDENT, "RESIDENT");
}
