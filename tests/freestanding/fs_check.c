/* SPDX-License-Identifier: MIT */
/*
 * The freestanding program: its own _start, raw system calls and mem*
 * functions, linked -nostdlib -static with clearpages-freestanding.o alone.
 * It clears extents of 1 page to 64 MiB flush against a guard page, cp_clear
 * ranges between guard pages and the huge orders, checks every byte, and
 * prints the kernel picked per extent.
 *
 *   fs_check [--report] [--expect k1,k2,...] [--disable TOKENS] [--no-simd]
 *            [--regs MIDR,PFR0,ISAR2,DCZID]   (arm64, hex) [--l2 BYTES] [--llc BYTES]
 *
 * --report: only the decisions (report.h), to compare with the hosted library.
 * --disable / --no-simd / --regs / --l2 / --llc: describe the CPU with cp_freestanding_init()
 * first (--no-simd: CP_CPU_DESCRIPTION_NO_SIMD, and no listed kernel may be CP_SIMD).
 * Last line: "N passed, N failed"; exit status 1 on a failure.
 */
/* It checks the deprecated aliases too (include/clearpages.h), and is built
 * with -Werror by common/freestanding/Dir.mk and examples/cmake. */
#define CP_NO_DEPRECATED 1
#include <errno.h>
#include <stdint.h>
#include "sys.h"
#include "report.h"

#define PG ((size_t)CP_PAGE_SIZE)
#define MAX_PAGES ((size_t)16384)          /* 64 MiB */
#define FILL 0xa5

/* What a freestanding environment provides (the object may call these). */
void *memset(void *s, int c, size_t n)
{
	unsigned char *p = s;
	uint64_t w = 0x0101010101010101ull * (unsigned char)c;
	while (n && ((uintptr_t)p & 7))
		*p++ = (unsigned char)c, n--;
	for (; n >= 8; n -= 8, p += 8)
		*(uint64_t *)(void *)p = w;
	while (n--)
		*p++ = (unsigned char)c;
	return s;
}
void *memmove(void *d, const void *s, size_t n)
{
	unsigned char *dp = d;
	const unsigned char *sp = s;
	if (dp < sp)
		while (n--)
			*dp++ = *sp++;
	else
		while (n--)
			dp[n] = sp[n];
	return d;
}
void *memcpy(void *restrict d, const void *restrict s, size_t n)
{
	return memmove(d, s, n);
}

static struct out out = { fs_write, { 0 }, 0 };
static unsigned passed, failed;

static void say(const char *a, const char *b, const char *c)
{
	out_str(&out, a);
	out_str(&out, b);
	out_str(&out, c);
	out_str(&out, "\n");
	out_flush(&out);
}
static void check(int ok, const char *what, const char *why)
{
	if (ok)
		passed++, say("ok ", what, "");
	else
		failed++, say("FAIL ", what, why);
}
static int streq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

/* A region of `pages` pages between two PROT_NONE guard pages. */
struct region {
	unsigned char *map, *base;
	size_t pages;
};
static int region_map(struct region *r, size_t pages)
{
	r->pages = pages;
	r->map = fs_mmap((pages + 2) * PG);
	if (!r->map)
		return -1;
	r->base = r->map + PG;
	if (fs_mprotect(r->map, PG, FS_PROT_NONE) ||
	    fs_mprotect(r->base + pages * PG, PG, FS_PROT_NONE))
		return -1;
	return 0;
}
/* Bytes [from, to) of the region are `v`: word reads, every byte compared. */
static int all_are(const unsigned char *p, size_t from, size_t to, unsigned char v)
{
	uint64_t w = 0x0101010101010101ull * v;
	size_t i = from;
	for (; i < to && (i & 7); i++)
		if (p[i] != v)
			return 0;
	for (; i + 8 <= to; i += 8)
		if (*(const uint64_t *)(const void *)(p + i) != w)
			return 0;
	for (; i < to; i++)
		if (p[i] != v)
			return 0;
	return 1;
}
/* Exactly [from, to) zero, the rest of the region still FILL. */
static int cleared_exactly(const struct region *r, size_t from, size_t to)
{
	return all_are(r->base, 0, from, FILL) && all_are(r->base, from, to, 0) &&
	       all_are(r->base, to, r->pages * PG, FILL);
}

/* cp_clear_pages/_hot/_cold of n pages flush against the end guard, with a
 * FILL page before; prints the kernel cp_kernel_for(n) names. */
static void check_extents(struct region *r)
{
	static int (*const calls[3])(void *, size_t) = {
		cp_clear_pages, cp_clear_pages_hot, cp_clear_pages_cold };
	static const char *const names[3] = { "cp_clear_pages", "cp_clear_pages_hot",
					      "cp_clear_pages_cold" };
	for (size_t n = 1; n <= MAX_PAGES; n *= 2) {
		size_t from = (r->pages - n) * PG, to = r->pages * PG;
		for (unsigned c = 0; c < 3; c++) {
			struct out what = { NULL, { 0 }, 0 };
			out_str(&what, names[c]);
			out_str(&what, " ");
			out_u64(&what, n);
			out_str(&what, " pages");
			if (c == 0) {   /* the public name of this choice */
				out_str(&what, ": kernel ");
				out_str(&what, cp_kernel_for(n)->name);
			}
			what.buf[what.n] = '\0';
			memset(r->base + from - PG, FILL, n * PG + PG);
			int rc = calls[c](r->base + from, n);
			check(rc == 0 && all_are(r->base, from - PG, from, FILL) &&
			      all_are(r->base, from, to, 0), what.buf,
			      rc ? ": returned an error" : ": not exactly the extent is zero");
		}
	}
}

/* cp_clear at odd addresses and lengths in a 4-page region, some ranges flush
 * with either guard. */
static void check_clear_ranges(void)
{
	static const size_t offs[] = { 0, 1, 63, 4095, 4096, 4097, 8191 };
	static const size_t lens[] = { 1, 7, 64, 4095, 4096, 4097, 8192, 8193, 12287 };
	struct region r;
	int ok = region_map(&r, 4) == 0;
	unsigned bad = 0;
	for (unsigned i = 0; ok && i < sizeof(offs) / sizeof(offs[0]); i++)
		for (unsigned j = 0; j < sizeof(lens) / sizeof(lens[0]) + 1; j++) {
			size_t len = j < sizeof(lens) / sizeof(lens[0]) ? lens[j] : 4 * PG - offs[i];
			if (offs[i] + len > 4 * PG)
				continue;
			memset(r.base, FILL, 4 * PG);
			if (cp_clear(r.base + offs[i], len) || !cleared_exactly(&r, offs[i], offs[i] + len))
				bad++;
		}
	check(ok && !bad, "cp_clear: ranges at odd offsets and lengths, flush with the guards", ": a byte is wrong");
	/* cp_zero: the flags are accepted; MAY_DISCARD and PARALLEL clear here */
	static const unsigned flags[] = { CP_ZERO_MAY_DISCARD, CP_ZERO_MAY_DISCARD | CP_ZERO_COLD,
					  CP_ZERO_PARALLEL | CP_ZERO_HOT };
	for (unsigned i = 0; ok && i < 3; i++) {
		size_t discarded = 1;
		memset(r.base, FILL, 4 * PG);
		if (cp_zero_ex(r.base + 1, 4 * PG - 2, flags[i], &discarded) || discarded ||
		    !cleared_exactly(&r, 1, 4 * PG - 1))
			bad++;
	}
	check(ok && !bad && cp_zero(r.base, PG, CP_ZERO_HOT | CP_ZERO_COLD) == -EINVAL,
	      "cp_zero: every intent clears, nothing discarded, HOT|COLD refused", ": a byte is wrong");
	/* RESIDENT needs madvise and /proc: refused here, nothing written */
	memset(r.base, FILL, 4 * PG);
	size_t done = 1;
	check(ok && cp_zero(r.base, PG, CP_ZERO_RESIDENT) == -EINVAL &&
	      cp_zero_progress(r.base, PG, CP_ZERO_RESIDENT | CP_ZERO_HUGE_PAGES, 0, 0, &done) ==
	      -EINVAL && done == 0 && r.base[0] == FILL && r.base[PG - 1] == FILL &&
	      cp_zero_progress(r.base, PG, 0, 0, 0, &done) == 0 && done == PG &&
	      cleared_exactly(&r, 0, PG),
	      "cp_zero: RESIDENT refused, cp_zero_progress clears", ": accepted or wrote");
	if (ok)
		fs_munmap(r.map, 6 * PG);
}

static unsigned betweens;
static void count_between(void *ctx)
{
	(void)ctx;
	betweens++;
}

/* Every order around a hot page, and an explicit kernel, each checked. */
static void check_huge(void)
{
	struct region r;
	int ok = region_map(&r, 16) == 0;
	unsigned bad = 0;
	for (int order = CP_ORDER_NEIGHBOURHOOD_LAST; ok && order <= CP_ORDER_HOT_RANGE_LAST; order++) {
		struct cp_huge_opts o = CP_HUGE_OPTS_INIT;
		o.order = (enum cp_order)order;
		o.batch_pages = 3;
		o.between = count_between;
		memset(r.base, FILL, 16 * PG);
		betweens = 0;
		if (cp_clear_huge_opts(r.base, 16, 5, &o) || !cleared_exactly(&r, 0, 16 * PG) ||
		    betweens == 0)
			bad++;
	}
	const struct cp_kernel *const *list;
	size_t n = cp_kernels(&list);
	struct cp_huge_opts o = CP_HUGE_OPTS_INIT;
	o.kernel = list[n - 1];
	memset(r.base, FILL, 16 * PG);
	if (ok && (cp_clear_huge_opts(r.base + PG, 14, 13, &o) || !cleared_exactly(&r, PG, 15 * PG)))
		bad++;
	memset(r.base, FILL, 16 * PG);
	if (ok && (cp_clear_huge(r.base, 16, 0) || !cleared_exactly(&r, 0, 16 * PG)))
		bad++;
	check(ok && !bad, "cp_clear_huge(_opts): every order, batches, an explicit kernel",
	      ": a byte is wrong or a call failed");
	if (ok)
		fs_munmap(r.map, 18 * PG);
}

/* Copies without libc: every copy kernel, cp_copy_pages and cp_copy_huge
 * (NEIGHBOURHOOD_LAST) from the first half of a 16-page region into the
 * second, flush with the end guard; overlap refused. */
static void check_copy(void)
{
	const struct cp_copy_kernel *const *list;
	size_t n = cp_copy_kernels(&list);
	struct region r;
	int ok = region_map(&r, 16) == 0 && n > 0;
	unsigned bad = 0;
	for (size_t k = 0; ok && k <= n + 1; k++) {
		for (size_t i = 0; i < 8 * PG; i++)
			r.base[i] = (unsigned char)(i * 7 + i / PG);
		memset(r.base + 8 * PG, FILL, 8 * PG);
		if (k < n)
			list[k]->copy(r.base + 9 * PG, r.base + PG, 7);
		else if ((k == n ? cp_copy_pages(r.base + 9 * PG, r.base + PG, 7)
				 : cp_copy_huge(r.base + 9 * PG, r.base + PG, 7, 3)))
			bad++;
		if (!all_are(r.base, 8 * PG, 9 * PG, FILL))
			bad++;
		for (size_t i = 0; i < 7 * PG; i++)
			bad += r.base[9 * PG + i] != r.base[PG + i];
	}
	if (ok && cp_copy_pages(r.base + PG, r.base, 2) != -EINVAL)
		bad++;
	/* cp_copy: odd head and tail, each intent, memcpy the environment's */
	static const unsigned intents[] = { 0, CP_COPY_HOT, CP_COPY_COLD };
	for (size_t f = 0; ok && f < 3; f++) {
		memset(r.base + 8 * PG, FILL, 8 * PG);
		if (cp_copy(r.base + 9 * PG - 5, r.base + PG - 5, 5 * PG + 9, intents[f]))
			bad++;
		if (!all_are(r.base, 8 * PG, 9 * PG - 5, FILL) ||
		    !all_are(r.base, 14 * PG + 4, 16 * PG, FILL))
			bad++;
		for (size_t i = 0; i < 5 * PG + 9; i++)
			bad += r.base[9 * PG - 5 + i] != r.base[PG - 5 + i];
	}
	if (ok && (cp_copy(r.base + PG, r.base, 2 * PG, CP_COPY_HOT | CP_COPY_COLD) != -EINVAL ||
		   cp_copy(r.base + PG, r.base + 7, PG, 0) != -EINVAL || cp_copy(NULL, NULL, 0, ~0u)))
		bad++;
	check(ok && !bad, "cp_copy, cp_copy_pages, cp_copy_huge and every copy kernel: exact, "
	      "overlap and bad flags refused", ": a byte is wrong or a call failed");
	if (ok)
		fs_munmap(r.map, 18 * PG);
}

static void check_contract(unsigned char *page)
{
	check(cp_clear_pages(NULL, 1) == -EINVAL && cp_clear_pages(page + 1, 1) == -EINVAL &&
	      cp_clear_pages(page, 0) == 0 && cp_clear_pages_cold(NULL, 1) == -EINVAL &&
	      cp_clear_pages(page, SIZE_MAX / PG + 1) == -EINVAL && cp_clear(NULL, 1) == -EINVAL &&
	      cp_clear(NULL, 0) == 0 && cp_clear_huge(page, 4, 4) == -EINVAL,
	      "bad arguments give -EINVAL, empty ones 0", ": a check differs from the contract");
	const struct cp_kernel *const *list;
	size_t n = cp_kernels(&list);
	int found = n > 0 && !cp_kernel_find("no-such-kernel");
	for (size_t i = 0; i < n; i++)
		found &= cp_kernel_find(list[i]->name) == list[i];
	check(found, "cp_kernel_find agrees with cp_kernels", "");
	struct out v = { NULL, { 0 }, 0 };
	out_u64(&v, CP_VERSION_MAJOR);
	out_str(&v, ".");
	out_u64(&v, CP_VERSION_MINOR);
	out_str(&v, ".");
	out_u64(&v, CP_VERSION_PATCH);
	v.buf[v.n] = '\0';
	check(streq(cp_version(), v.buf), "cp_version is the header's version", "");
	check(cp_freestanding_init(NULL) == -EBUSY, "cp_freestanding_init after first use: -EBUSY", "");
}

static unsigned long long hex(const char **p)
{
	unsigned long long v = 0;
	for (; **p && **p != ','; (*p)++)
		v = v * 16 + (unsigned)(**p <= '9' ? **p - '0' : (**p | 0x20) - 'a' + 10);
	if (**p == ',')
		(*p)++;
	return v;
}

/* cp_freestanding_init() with the features to leave out and (arm64) the
 * register values "MIDR,PFR0,ISAR2,DCZID"; either may be NULL; the LLC size
 * of --llc. */
static size_t l2_bytes, llc_bytes;        /* --l2, --llc: described, else 0 */
static unsigned no_simd;                  /* --no-simd: CP_CPU_DESCRIPTION_NO_SIMD */
static int describe_cpu(const char *disable, const char *regs)
{
	struct cp_cpu_description d = { no_simd, disable, 0, 0, 0, 0, l2_bytes, llc_bytes };
	if (regs) {
		d.flags |= CP_CPU_DESCRIPTION_REGS;
		d.midr_el1 = hex(&regs);
		d.id_aa64pfr0_el1 = hex(&regs);
		d.id_aa64isar2_el1 = hex(&regs);
		d.dczid_el0 = hex(&regs);
	}
	return cp_freestanding_init(&d);
}

/* Before any other call: a bad description changes nothing, a good one is
 * taken once. */
static void check_describe(const char *disable, const char *regs)
{
	struct cp_cpu_description bad_flag = { 0x80u, NULL, 0, 0, 0, 0, 0, 0 };
	struct cp_cpu_description bad_token = { 0, "avx2,no-such-feature", 0, 0, 0, 0, 0, 0 };
	check(cp_freestanding_init(&bad_flag) == -EINVAL, "description: unknown flag -EINVAL", "");
	check(cp_freestanding_init(&bad_token) == -EINVAL, "description: unknown token -EINVAL", "");
	check(describe_cpu(disable, regs) == 0, "description taken", ": not 0");
	check(describe_cpu(disable, regs) == -EBUSY, "description: a second one -EBUSY", "");
	if (!llc_bytes)
		return;
	/* The generic rule goes non-temporal by the LLC: from at most its size on. */
	size_t llc_pages = llc_bytes / PG;
	const struct cp_kernel *small = cp_kernel_for(1), *at_llc = cp_kernel_for(llc_pages);
	check(!streq(cp_policy_source(), "generic") ||
	      (!(small->flags & CP_NONTEMPORAL) && (at_llc->flags & CP_NONTEMPORAL)),
	      "description: the LLC size places the generic non-temporal crossover",
	      ": cp_kernel_for(LLC) is temporal");
}

static void check_list(const char *expect)
{
	const struct cp_kernel *const *list;
	size_t n = cp_kernels(&list);
	struct out got = { NULL, { 0 }, 0 };
	for (size_t i = 0; i < n; i++) {
		out_str(&got, i ? "," : "");
		out_str(&got, list[i]->name);
	}
	got.buf[got.n] = '\0';
	int simd = 0;
	for (size_t i = 0; i < n; i++)
		simd |= (list[i]->flags & CP_SIMD) != 0;
	if (no_simd)
		check(!simd, "general registers only: no CP_SIMD kernel listed", ": one is");
	say("kernels: ", got.buf, "");
	say("source: ", cp_policy_source(), "");
	if (expect)
		check(streq(got.buf, expect), "kernel list of this CPU", ": not the expected one");
}

void __attribute__((noreturn, used)) fs_start(long *sp)
{
	int argc = (int)sp[0];
	char **argv = (char **)(sp + 1);
	const char *expect = NULL, *disable = NULL, *regs = NULL;
	int report_only = 0;
	for (int i = 1; i < argc; i++) {
		if (streq(argv[i], "--report"))
			report_only = 1;
		else if (i + 1 < argc && streq(argv[i], "--expect"))
			expect = argv[++i];
		else if (i + 1 < argc && streq(argv[i], "--disable"))
			disable = argv[++i];
		else if (streq(argv[i], "--no-simd"))
			no_simd = CP_CPU_DESCRIPTION_NO_SIMD;
		else if (i + 1 < argc && streq(argv[i], "--regs"))
			regs = argv[++i];
		else if (i + 1 < argc && (streq(argv[i], "--llc") || streq(argv[i], "--l2"))) {
			size_t *to = streq(argv[i], "--l2") ? &l2_bytes : &llc_bytes;
			for (const char *d = argv[++i]; *d; d++)
				*to = *to * 10 + (size_t)(*d - '0');
		}
		else {
			say("fs_check: bad argument '", argv[i], "'");
			fs_exit(2);
		}
	}
	if (report_only) {
		if ((disable || regs || l2_bytes || llc_bytes || no_simd) && describe_cpu(disable, regs))
			fs_exit(1);
		report(&out);
		fs_exit(0);
	}
	if (disable || regs || l2_bytes || llc_bytes || no_simd)
		check_describe(disable, regs);
	check_list(expect);
	struct region r;
	if (region_map(&r, MAX_PAGES + 1)) {
		say("fs_check: cannot map 64 MiB", "", "");
		fs_exit(1);
	}
	check_contract(r.base);
	check_extents(&r);
	check_clear_ranges();
	check_huge();
	check_copy();
	out_u64(&out, passed);
	out_str(&out, " passed, ");
	out_u64(&out, failed);
	out_str(&out, " failed\n");
	out_flush(&out);
	fs_exit(failed ? 1 : 0);
}
