/* SPDX-License-Identifier: MIT */
/*
 * pinned-pool: a pinned host memory pool for GPU transfers, made ready by
 * clearpages (consumers/cuda-pinned/README.md).
 *
 *   pool:      mmap N bytes private anonymous, 2 MiB aligned;
 *              cp_zero(pool, N, CP_ZERO_RESIDENT | CP_ZERO_PARALLEL
 *                               [| CP_ZERO_HUGE_PAGES]);
 *              cuMemHostRegister(pool, N, 0 or CU_MEMHOSTREGISTER_PORTABLE)
 *   against:   cuMemHostAlloc(N) (the driver faults and pins on one thread)
 *
 * Both are timed until the memory is pinned and usable ("pool ready"); then a
 * host-to-device copy from the start of the pool and a device-to-host copy
 * back into its end check a pattern byte for byte, and the end of the pool is
 * checked to read zero before the copy lands there.
 *
 * The CUDA driver API is reached through dlopen("libcuda.so.1") only: the few
 * types and prototypes are declared here, nothing needs CUDA to build. No
 * libcuda.so.1, or no usable device: one line saying so, exit 77 (skip).
 * Bad input: one line, exit 2. A failure: exit 1.
 */
#define _GNU_SOURCE
#include <clearpages.h>
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define EXIT_SKIP 77
#define EXIT_USAGE 2
#define MIB (1ull << 20)
#define GIB (1ull << 30)
#define HUGE_ALIGN (2 * MIB)

/* --- the CUDA driver API, declared by hand (cuda.h's names and values) --- */
typedef int CUresult;                  /* enum cudaError_enum */
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef unsigned long long CUdeviceptr;
#define CUDA_SUCCESS 0
#define CUDA_ERROR_NO_DEVICE 100
#define CU_MEMHOSTALLOC_PORTABLE 0x01u
#define CU_MEMHOSTREGISTER_PORTABLE 0x01u

static struct {
	CUresult (*Init)(unsigned flags);
	CUresult (*DriverGetVersion)(int *version);
	CUresult (*DeviceGetCount)(int *count);
	CUresult (*DeviceGet)(CUdevice *dev, int ordinal);
	CUresult (*DeviceGetName)(char *name, int len, CUdevice dev);
	CUresult (*DevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice dev);
	CUresult (*DevicePrimaryCtxRelease)(CUdevice dev);
	CUresult (*CtxSetCurrent)(CUcontext ctx);
	CUresult (*CtxSynchronize)(void);
	CUresult (*MemHostAlloc)(void **p, size_t bytesize, unsigned flags);
	CUresult (*MemFreeHost)(void *p);
	CUresult (*MemHostRegister)(void *p, size_t bytesize, unsigned flags);
	CUresult (*MemHostUnregister)(void *p);
	CUresult (*MemAlloc)(CUdeviceptr *dptr, size_t bytesize);
	CUresult (*MemFree)(CUdeviceptr dptr);
	CUresult (*MemcpyHtoD)(CUdeviceptr dst, const void *src, size_t bytes);
	CUresult (*MemcpyDtoH)(void *dst, CUdeviceptr src, size_t bytes);
	CUresult (*GetErrorName)(CUresult error, const char **str);
	CUresult (*GetErrorString)(CUresult error, const char **str);
} cu;

/* The exported names: cuda.h maps the unversioned spellings to these (_v2
 * where the ABI changed: 64-bit sizes and device pointers, CUDA 3.2; the
 * register flags, 6.5; the primary context release, 11.0). */
static const struct { const char *name; void **slot; } cu_syms[] = {
	{ "cuInit",                       (void **)&cu.Init },
	{ "cuDriverGetVersion",           (void **)&cu.DriverGetVersion },
	{ "cuDeviceGetCount",             (void **)&cu.DeviceGetCount },
	{ "cuDeviceGet",                  (void **)&cu.DeviceGet },
	{ "cuDeviceGetName",              (void **)&cu.DeviceGetName },
	{ "cuDevicePrimaryCtxRetain",     (void **)&cu.DevicePrimaryCtxRetain },
	{ "cuDevicePrimaryCtxRelease_v2", (void **)&cu.DevicePrimaryCtxRelease },
	{ "cuCtxSetCurrent",              (void **)&cu.CtxSetCurrent },
	{ "cuCtxSynchronize",             (void **)&cu.CtxSynchronize },
	{ "cuMemHostAlloc",               (void **)&cu.MemHostAlloc },
	{ "cuMemFreeHost",                (void **)&cu.MemFreeHost },
	{ "cuMemHostRegister_v2",         (void **)&cu.MemHostRegister },
	{ "cuMemHostUnregister",          (void **)&cu.MemHostUnregister },
	{ "cuMemAlloc_v2",                (void **)&cu.MemAlloc },
	{ "cuMemFree_v2",                 (void **)&cu.MemFree },
	{ "cuMemcpyHtoD_v2",              (void **)&cu.MemcpyHtoD },
	{ "cuMemcpyDtoH_v2",              (void **)&cu.MemcpyDtoH },
	{ "cuGetErrorName",               (void **)&cu.GetErrorName },
	{ "cuGetErrorString",             (void **)&cu.GetErrorString },
};

static const char *cu_err(CUresult r)
{
	static char buf[160];
	const char *name = NULL, *str = NULL;
	if (cu.GetErrorName)
		cu.GetErrorName(r, &name);
	if (cu.GetErrorString)
		cu.GetErrorString(r, &str);
	snprintf(buf, sizeof buf, "%s (%d): %s", name ? name : "CUDA error", r,
		 str ? str : "no description");
	return buf;
}

#define CU_CHECK(call) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { \
	fprintf(stderr, "pinned-pool: %s failed: %s\n", #call, cu_err(r_)); exit(1); } } while (0)

/* The one line a skip prints, on stdout; exit 77. */
static void skip(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void skip(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("pinned-pool: SKIP: ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	exit(EXIT_SKIP);
}

/* Loads libcuda.so.1 and opens the device; exits 77 where there is none. */
static CUdevice cuda_open(int ordinal, CUcontext *ctx, char *name, int namelen, int *driver)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		skip("no CUDA driver: cannot load libcuda.so.1 (%s)", dlerror());
	for (size_t i = 0; i < sizeof cu_syms / sizeof cu_syms[0]; i++) {
		*cu_syms[i].slot = dlsym(h, cu_syms[i].name);
		if (!*cu_syms[i].slot)
			skip("libcuda.so.1 has no %s (a driver older than this program needs)",
			     cu_syms[i].name);
	}
	CUresult r = cu.Init(0);
	if (r != CUDA_SUCCESS)
		skip("no usable CUDA device: cuInit: %s", cu_err(r));
	int count = 0;
	r = cu.DeviceGetCount(&count);
	if (r != CUDA_SUCCESS)
		skip("no usable CUDA device: cuDeviceGetCount: %s", cu_err(r));
	if (count == 0)
		skip("no CUDA device (cuDeviceGetCount: 0)");
	if (ordinal >= count) {
		fprintf(stderr, "pinned-pool: --device %d: there are %d CUDA device(s)\n", ordinal, count);
		exit(EXIT_USAGE);
	}
	CUdevice dev;
	CU_CHECK(cu.DeviceGet(&dev, ordinal));
	if (cu.DeviceGetName(name, namelen, dev) != CUDA_SUCCESS)
		snprintf(name, namelen, "device %d", ordinal);
	if (cu.DriverGetVersion(driver) != CUDA_SUCCESS)
		*driver = 0;
	CU_CHECK(cu.DevicePrimaryCtxRetain(ctx, dev));
	CU_CHECK(cu.CtxSetCurrent(*ctx));
	return dev;
}

/* --- host side --- */
static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static void usage_error(const char *what, const char *arg)
{
	fprintf(stderr, "pinned-pool: %s%s%s (pinned-pool --help)\n", what, arg ? ": " : "", arg ? arg : "");
	exit(EXIT_USAGE);
}

/* "16G", "512M", "16" (GiB); a multiple of 2 MiB, at least 2 MiB. */
static unsigned long long parse_size(const char *s)
{
	char *end;
	errno = 0;
	if (*s < '0' || *s > '9')
		usage_error("--size wants a number with an optional M or G suffix", s);
	unsigned long long v = strtoull(s, &end, 10), unit = GIB;
	if (errno || end == s)
		usage_error("--size wants a number with an optional M or G suffix", s);
	if (*end == 'M' || *end == 'm')
		unit = MIB, end++;
	else if (*end == 'G' || *end == 'g')
		unit = GIB, end++;
	if (*end == 'i' && end[1] == 'B')
		end += 2;
	if (*end)
		usage_error("--size wants a number with an optional M or G suffix", s);
	if (v == 0 || v > (1ull << 40) / unit)
		usage_error("--size out of range (2 MiB to 1 TiB)", s);
	v *= unit;
	if (v % HUGE_ALIGN)
		usage_error("--size must be a multiple of 2 MiB", s);
	return v;
}

/* MemAvailable from /proc/meminfo, bytes; 0 when unknown. */
static unsigned long long mem_available(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	unsigned long long kb = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
}

/* The bracketed word of /sys/kernel/mm/transparent_hugepage/enabled. */
static const char *thp_mode(void)
{
	static char mode[32] = "unknown";
	char line[128];
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	if (!f)
		return mode;
	if (fgets(line, sizeof line, f)) {
		char *a = strchr(line, '['), *b = a ? strchr(a, ']') : NULL;
		if (a && b && b - a - 1 < (long)sizeof mode) {
			memcpy(mode, a + 1, b - a - 1);
			mode[b - a - 1] = 0;
		}
	}
	fclose(f);
	return mode;
}

/* AnonHugePages of the mapping holding addr (/proc/self/smaps), kB; -1 unknown. The pool
 * is its own mapping unless the kernel merged it with a neighbour of the same kind. */
static long long anon_huge_kb(const void *addr)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	unsigned long long start, end;
	long long kb = -1;
	int in = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f)) {
		if (sscanf(line, "%llx-%llx ", &start, &end) == 2 && strchr(line, '-') < strchr(line, ' ')) {
			if (in)
				break;
			in = start <= (uintptr_t)addr && (uintptr_t)addr < end;
		} else if (in && sscanf(line, "AnonHugePages: %lld kB", &kb) == 1) {
			break;
		}
	}
	fclose(f);
	return kb;
}

/* mmap len bytes private anonymous at a 2 MiB-aligned address (the slop unmapped). */
static char *map_aligned(size_t len)
{
	char *m = mmap(NULL, len + HUGE_ALIGN, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	char *a = (char *)(((uintptr_t)m + HUGE_ALIGN - 1) & ~(uintptr_t)(HUGE_ALIGN - 1));
	if (a > m)
		munmap(m, a - m);
	munmap(a + len, m + HUGE_ALIGN - a);   /* the tail: 2 MiB less the head */
	return a;
}

static uint64_t pattern(size_t i)
{
	uint64_t x = (uint64_t)i * 0x9e3779b97f4a7c15ull + 0x5851f42d4c957f2dull;
	return x ^ (x >> 29);
}

static void help(void)
{
	printf("usage: pinned-pool [--size N[M|G]] [--no-huge-pages] [--portable] [--no-hostalloc] [--device N]\n"
	       "  A pinned host pool for GPU transfers: mmap + cp_zero(CP_ZERO_RESIDENT | CP_ZERO_PARALLEL\n"
	       "  [| CP_ZERO_HUGE_PAGES]) + cuMemHostRegister, timed against cuMemHostAlloc of the same\n"
	       "  size; then a host-to-device-to-host pattern round trip through the pool.\n"
	       "  --size N[M|G]    pool size, a multiple of 2 MiB; a plain number is GiB (default 16G,\n"
	       "                   cut to 3/4 of MemAvailable where that is less)\n"
	       "  --no-huge-pages  leave out CP_ZERO_HUGE_PAGES (no MADV_HUGEPAGE on the pool)\n"
	       "  --portable       CU_MEMHOSTREGISTER_PORTABLE (and CU_MEMHOSTALLOC_PORTABLE)\n"
	       "  --no-hostalloc   skip the cuMemHostAlloc comparison\n"
	       "  --device N       CUDA device ordinal (default 0)\n"
	       "Exit: 0 done, 1 failed, 2 bad input, 77 skipped (no libcuda.so.1 or no device).\n");
}

int main(int argc, char **argv)
{
	unsigned long long size = 16 * GIB;
	int size_given = 0, huge = 1, portable = 0, hostalloc = 1, ordinal = 0;
	static const struct option opts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "no-huge-pages", no_argument, NULL, 'H' },
		{ "portable", no_argument, NULL, 'p' },
		{ "no-hostalloc", no_argument, NULL, 'A' },
		{ "device", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	opterr = 0;
	for (int c; (c = getopt_long(argc, argv, "s:d:h", opts, NULL)) != -1;) {
		switch (c) {
		case 's': size = parse_size(optarg); size_given = 1; break;
		case 'H': huge = 0; break;
		case 'p': portable = 1; break;
		case 'A': hostalloc = 0; break;
		case 'd': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*optarg < '0' || *optarg > '9' || *end || v > 1024)
				usage_error("--device wants a device ordinal", optarg);
			ordinal = (int)v;
			break;
		}
		case 'h': help(); return 0;
		default: usage_error("unknown option, or an option without its value", argv[optind - 1]);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument", argv[optind]);

	/* One pool or one cuMemHostAlloc at a time: the size must fit once, with room to spare. */
	unsigned long long avail = mem_available();
	if (avail && size > avail / 4 * 3) {
		unsigned long long cut = avail / 4 * 3 / HUGE_ALIGN * HUGE_ALIGN;
		if (size_given || cut < HUGE_ALIGN) {
			fprintf(stderr, "pinned-pool: --size %.2f GiB is more than 3/4 of MemAvailable (%.2f GiB)\n",
				(double)size / GIB, (double)avail / GIB);
			exit(EXIT_USAGE);
		}
		printf("pinned-pool: 16 GiB is more than 3/4 of MemAvailable (%.2f GiB): the pool is %.2f GiB\n",
		       (double)avail / GIB, (double)cut / GIB);
		size = cut;
	}
	const size_t len = (size_t)size;
	const double gib = (double)len / GIB;

	CUcontext ctx;
	char name[128];
	int driver = 0;
	CUdevice dev = cuda_open(ordinal, &ctx, name, sizeof name, &driver);
	const unsigned zflags = CP_ZERO_RESIDENT | CP_ZERO_PARALLEL | (huge ? CP_ZERO_HUGE_PAGES : 0u);
	const unsigned rflags = portable ? CU_MEMHOSTREGISTER_PORTABLE : 0u;
	printf("pinned-pool: %s (device %d), CUDA driver %d.%d; clearpages %s; THP %s; pool %.2f GiB, %s, register flags %s\n",
	       name, ordinal, driver / 1000, driver % 1000 / 10, cp_version(), thp_mode(), gib,
	       huge ? "CP_ZERO_HUGE_PAGES" : "no HUGE_PAGES", portable ? "PORTABLE" : "0");
	fflush(stdout);

	/* 1. cuMemHostAlloc: the driver allocates, faults and pins. */
	double t_alloc = 0, t_freehost = 0;
	if (hostalloc) {
		void *p;
		double t = now();
		CU_CHECK(cu.MemHostAlloc(&p, len, portable ? CU_MEMHOSTALLOC_PORTABLE : 0u));
		t_alloc = now() - t;
		t = now();
		CU_CHECK(cu.MemFreeHost(p));
		t_freehost = now() - t;
		printf("cuMemHostAlloc %.2f GiB: %.3f s (%.2f GB/s); cuMemFreeHost %.3f s\n",
		       gib, t_alloc, len / t_alloc / 1e9, t_freehost);
		fflush(stdout);
	}

	/* 2. The pool: mmap, cp_zero resident, register. */
	double t0 = now();
	char *pool = map_aligned(len);
	if (!pool) {
		fprintf(stderr, "pinned-pool: mmap %.2f GiB: %s\n", gib, strerror(errno));
		return 1;
	}
	int rc = cp_zero(pool, len, zflags);
	double t1 = now();
	if (rc != 0) {
		fprintf(stderr, "pinned-pool: cp_zero(pool, %zu, RESIDENT|PARALLEL%s) = %d (%s)%s\n", len,
			huge ? "|HUGE_PAGES" : "", rc, strerror(-rc),
			rc == -EINVAL ? ": this libclearpages does not implement CP_ZERO_RESIDENT yet?" : "");
		return 1;
	}
	CU_CHECK(cu.MemHostRegister(pool, len, rflags));
	double t2 = now();
	const double t_zero = t1 - t0, t_reg = t2 - t1, t_pool = t2 - t0;
	long long huge_kb = anon_huge_kb(pool);
	printf("pool %.2f GiB: mmap + cp_zero %.3f s (%.2f GB/s) + cuMemHostRegister %.3f s = %.3f s; AnonHugePages %.2f GiB\n",
	       gib, t_zero, len / t_zero / 1e9, t_reg, t_pool, huge_kb < 0 ? -1.0 : huge_kb / 1048576.0);
	if (hostalloc)
		printf("ratio pool / cuMemHostAlloc: %.3f (the pool ready %.1fx %s)\n", t_pool / t_alloc,
		       t_pool < t_alloc ? t_alloc / t_pool : t_pool / t_alloc, t_pool < t_alloc ? "sooner" : "later");
	fflush(stdout);

	/* 3. The pool works: it reads zero, and a pattern survives host -> device -> host. */
	size_t cbytes = len / 2 < GIB ? len / 2 : GIB, words = cbytes / 8;
	uint64_t *src = (uint64_t *)pool, *dst = (uint64_t *)(pool + len - cbytes);
	for (size_t off = 0; off < len; off += CP_PAGE_SIZE) {   /* a word of every page */
		uint64_t w = *(volatile uint64_t *)(pool + off + (off / CP_PAGE_SIZE * 8) % CP_PAGE_SIZE);
		if (w) {
			fprintf(stderr, "pinned-pool: the pool is not zero at offset %zu\n", off);
			return 1;
		}
	}
	for (size_t i = 0; i < words; i++)                     /* all of the copy's target */
		if (dst[i]) {
			fprintf(stderr, "pinned-pool: the pool is not zero at offset %zu\n", len - cbytes + i * 8);
			return 1;
		}
	for (size_t i = 0; i < words; i++)
		src[i] = pattern(i);
	CUdeviceptr dbuf;
	CU_CHECK(cu.MemAlloc(&dbuf, cbytes));
	double t = now();
	CU_CHECK(cu.MemcpyHtoD(dbuf, src, cbytes));
	CU_CHECK(cu.CtxSynchronize());
	double t_h2d = now() - t;
	t = now();
	CU_CHECK(cu.MemcpyDtoH(dst, dbuf, cbytes));
	CU_CHECK(cu.CtxSynchronize());
	double t_d2h = now() - t;
	for (size_t i = 0; i < words; i++)
		if (dst[i] != pattern(i)) {
			fprintf(stderr, "pinned-pool: round trip: word %zu of %zu came back %#" PRIx64 ", sent %#" PRIx64 "\n",
				i, words, dst[i], pattern(i));
			return 1;
		}
	printf("round trip %.0f MiB: host-to-device %.1f GB/s, device-to-host %.1f GB/s; every byte came back\n",
	       (double)cbytes / MIB, cbytes / t_h2d / 1e9, cbytes / t_d2h / 1e9);

	CU_CHECK(cu.MemFree(dbuf));
	t = now();
	CU_CHECK(cu.MemHostUnregister(pool));
	double t_unreg = now() - t;
	munmap(pool, len);
	cu.DevicePrimaryCtxRelease(dev);

	/* One line for scripts (device-check.sh collects them). */
	printf("result: size_gib=%.2f huge_pages=%d portable=%d thp=%s hostalloc_s=%.3f freehost_s=%.3f "
	       "zero_s=%.3f register_s=%.3f pool_s=%.3f ratio=%.3f anon_huge_gib=%.2f h2d_gbs=%.1f d2h_gbs=%.1f "
	       "unregister_s=%.3f\n",
	       gib, huge, portable, thp_mode(), t_alloc, t_freehost, t_zero, t_reg, t_pool,
	       hostalloc ? t_pool / t_alloc : 0.0, huge_kb < 0 ? -1.0 : huge_kb / 1048576.0,
	       cbytes / t_h2d / 1e9, cbytes / t_d2h / 1e9, t_unreg);
	return 0;
}
