/* SPDX-License-Identifier: MIT */
/*
 * clearpages — hand-written page-clearing kernels behind one dispatcher.
 *
 * Public contract: once landed, names and meanings here do not
 * change; additions are fine. C99 and C++11 clean, self-contained.
 * struct cp_huge_opts is part of the ABI of soname 0.
 *
 * Threads, signals and fork (the one statement of it; clearpages(3),
 * ATTRIBUTES, says the same). The library decides its state once, on the
 * first call, and publishes it whole; a profile change publishes a new one
 * and never rewrites the old, so a call sees one whole state, old or new.
 *  - Thread-safe: every function, from any number of threads at once.
 *  - Initialised: once any call but cp_version and the raw kernels
 *    (cp_x86_64_<kernel>, cp_arm64_<kernel>: they never initialise) has
 *    returned, whatever its arguments (a zero length or an -EINVAL counts),
 *    in this process or in the parent it was forked from.
 *  - Async-signal-safe once the library is initialised: cp_clear_pages,
 *    cp_clear_huge_opts (when its between() is), cp_kernels, cp_kernel_find,
 *    cp_kernel_for, cp_copy, cp_copy_pages, cp_copy_huge_opts (when its
 *    between() is), cp_copy_kernels, cp_copy_kernel_find, cp_copy_kernel_for,
 *    cp_policy_source, cp_policy_info, and cp_zero / cp_zero_ex /
 *    cp_zero_progress (when its progress is) without CP_ZERO_PARALLEL
 *    (MAY_DISCARD and RESIDENT
 *    read /proc/self/maps, smaps and pagemap with system calls only, on the
 *    stack, close them before any store, and keep errno), and the deprecated
 *    aliases (below) as the calls they stand for. Always: cp_version (it
 *    never initialises) and the raw kernels.
 *    Not async-signal-safe: the first call of all (it reads the environment
 *    and files and may print), cp_set_profile (files, a lock) and
 *    cp_clear_pages_parallel and CP_ZERO_PARALLEL (a lock; it may create
 *    threads). A handler that calls them anyway, once the library is
 *    initialised, never waits on a lock its own thread holds: its
 *    cp_set_profile returns -EBUSY, changing nothing, when it interrupted
 *    this thread inside a publication of a state (any other profile change
 *    works); its parallel call clears alone when it interrupted this thread
 *    inside the pool (a parallel call, worker creation included), and never
 *    creates a thread (pthread_create allocates) while a signal whose action
 *    is a handler is blocked on its thread, as the handler's own signal is
 *    unless installed with SA_NODEFER: it uses the workers there are, or
 *    clears alone. A handler installed with SA_NODEFER and an empty sa_mask
 *    cannot be told from ordinary code; from one, a parallel call may create
 *    threads, safe only where it cannot have interrupted malloc. (A thread
 *    that blocks a handled
 *    signal outside any handler also never creates workers: it uses those
 *    another thread created.)
 *  - Cancellation (deferred; no call is async-cancel-safe): no call is a
 *    cancellation point of its own. The parallel calls run with
 *    cancellation disabled, so a request made during one acts at the
 *    caller's next cancellation point after it returns; elsewhere only the
 *    caller's own between() or progress() can act on one, and the call then
 *    ends there as if that callback had longjmp'ed out (no lock is held).
 *  - Descriptors: no descriptor outlives the call that opened it, however
 *    the call ends (a handler's longjmp, a cancellation).
 *  - The counter: a thread that PR_SET_TSC (x86) makes fault on the TSC,
 *    set before or after the first use, gets every call working, deciding
 *    by extent alone.
 *  - fork(): from any thread at any time outside a handler, the child may
 *    use every call (the fork handlers are registered when the library is
 *    loaded; the child's thread pool starts empty). fork() from a signal
 *    handler never deadlocks in clearpages, whatever call it interrupted; if
 *    it interrupted cp_set_profile, cp_clear_pages_parallel or cp_zero with
 *    CP_ZERO_PARALLEL, the child of
 *    this multi-threaded parent may only exec or _exit, as POSIX requires.
 *  - A fault in a clear (SIGSEGV, SIGBUS) may be repaired by a handler that
 *    returns, on any thread; a handler may longjmp out of the calling
 *    thread's own clear, never out of a parallel call's worker thread.
 *  - clearpages-freestanding.o: every call is interrupt-safe once decided;
 *    the first use may race on any number of CPUs (no lock, no wait for up
 *    to 4 racers: each decides privately and the first to publish wins).
 */
#ifndef CLEARPAGES_H
#define CLEARPAGES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One spelling per intent (NEWS, 1.0.0):
 *   zero bytes, the library decides    cp_zero(addr, len, 0)
 *   ... that the caller reads soon     cp_zero(addr, len, CP_ZERO_HOT)
 *   ... that it won't touch soon       cp_zero(addr, len, CP_ZERO_COLD)
 *   ... on threads                     cp_zero(addr, len, CP_ZERO_PARALLEL)
 *   ... giving pages back              cp_zero(addr, len, CP_ZERO_MAY_DISCARD)
 *   ... and how much was given back    cp_zero_ex(addr, len, flags, &discarded)
 *   zero and resident (fresh memory)   cp_zero(addr, len, CP_ZERO_RESIDENT | CP_ZERO_PARALLEL)
 *   ... a long one, visible, stoppable cp_zero_progress(addr, len, flags, fn, ctx, &done)
 *   whole pages, alignment checked     cp_clear_pages(addr, npages)
 *   pages on exactly nthreads threads  cp_clear_pages_parallel(addr, npages, nthreads)
 *   a huge extent around a hot page    cp_clear_huge_opts(base, npages, hot_idx, opts or NULL)
 *   copy bytes, the library decides    cp_copy(dst, src, len, 0)
 *   ... that the caller reads soon     cp_copy(dst, src, len, CP_COPY_HOT)
 *   ... that it won't touch soon       cp_copy(dst, src, len, CP_COPY_COLD)
 *   copy whole pages                   cp_copy_pages(dst, src, npages)
 *   copy a huge extent, hot page last  cp_copy_huge_opts(dst, src, npages, hot_idx,
 *                                                        opts or NULL, kernel or NULL)
 * The other names are thin aliases, kept (ABI of soname 0) and deprecated:
 *   cp_clear(a, len)               = cp_zero(a, len, 0)
 *   cp_clear_pages_hot(a, n)       = cp_zero(a, n * CP_PAGE_SIZE, CP_ZERO_HOT)
 *   cp_clear_pages_cold(a, n)      = cp_zero(a, n * CP_PAGE_SIZE, CP_ZERO_COLD)
 *   cp_clear_huge(b, n, h)         = cp_clear_huge_opts(b, n, h, NULL)
 *   cp_copy_huge(d, s, n, h)       = cp_copy_huge_opts(d, s, n, h, NULL, NULL)
 * (the page aliases also give -EINVAL for an address not CP_PAGE_SIZE-aligned).
 * Their declarations carry the compiler's deprecation attribute; define
 * CP_NO_DEPRECATED before including this header to leave it out (the
 * library's own build and its tests do: they test the aliases).
 */
#if !defined(CP_NO_DEPRECATED) && (defined(__clang__) || \
    (defined(__GNUC__) && (__GNUC__ > 4 || (__GNUC__ == 4 && __GNUC_MINOR__ >= 5))))
#define CP_DEPRECATED(use) __attribute__((deprecated("use " use)))
#else
#define CP_DEPRECATED(use)
#endif

#define CP_VERSION_MAJOR 1
#define CP_VERSION_MINOR 0
#define CP_VERSION_PATCH 0
/* The soname's number (libclearpages.so.N): raised when an interface is
 * removed or changed, not with CP_VERSION_MAJOR. 1.0.0 keeps 0: every change
 * since 0.1.0 is an addition (make test-abi), so programs linked against a
 * 0.x library run against 1.x unchanged. */
#define CP_SONAME_VERSION 0

/* "MAJOR.MINOR.PATCH" of the library actually linked (may differ from the macros). */
const char *cp_version(void);

#define CP_PAGE_SIZE 4096          /* unit of the page API, whatever the system page size */
#define CP_NONTEMPORAL 1u          /* cp_kernel.flags: stores bypass (or evict-first) the cache */
#define CP_SIMD 2u                 /* cp_kernel.flags: the kernel uses vector (SIMD/FP) registers */

struct cp_kernel {
	const char *name;          /* unique: "rep_stosb", "dc_zva", ... */
	const char *arch;          /* "x86_64" or "arm64" */
	unsigned    flags;         /* CP_NONTEMPORAL, CP_SIMD */
	void      (*clear)(void *addr, size_t npages);   /* raw kernel: npages 0 does nothing, no checks */
};

/*
 * Checked entry points. npages == 0 (len == 0) returns 0 before any other check.
 * Otherwise -EINVAL, with nothing written, when: addr is NULL; addr is not
 * CP_PAGE_SIZE-aligned (page calls); npages > SIZE_MAX / CP_PAGE_SIZE; or the
 * range would run past the top of the address space.
 */
int cp_clear_pages(void *addr, size_t npages);       /* the dispatcher picks by extent and
							 where the memory is (cached or not) */
/* Deprecated aliases (above): _hot, caller reads it soon: temporal; _cold, caller
 * won't touch it soon: bypass the cache, unless already cached; cp_clear, any
 * address, any length. */
CP_DEPRECATED("cp_zero(addr, npages * CP_PAGE_SIZE, CP_ZERO_HOT)")
int cp_clear_pages_hot(void *addr, size_t npages);
CP_DEPRECATED("cp_zero(addr, npages * CP_PAGE_SIZE, CP_ZERO_COLD)")
int cp_clear_pages_cold(void *addr, size_t npages);
CP_DEPRECATED("cp_zero(addr, len, 0)")
int cp_clear(void *addr, size_t len);

/*
 * One call for every intent: zero [addr, addr + len), any address, any
 * length. flags are checked first: an unknown bit, or HOT with COLD, gives
 * -EINVAL with nothing written; then len == 0 returns 0, and the address
 * checks follow (-EINVAL, nothing written: addr NULL, or the range past the
 * top of the address space). 0 flags: the dispatcher decides, as
 * cp_clear_pages does for the whole pages inside; the head and tail (less
 * than a page each) take ordinary stores.
 *   CP_ZERO_HOT        the caller reads it soon: temporal
 *   CP_ZERO_COLD       it won't touch it soon: bypass the cache
 *   CP_ZERO_PARALLEL   threads as cp_clear_pages_parallel(.., 0); the
 *                      freestanding object clears on the calling thread
 *   CP_ZERO_MAY_DISCARD  the caller owns the memory and lets the library give
 *                      whole pages of it back to the kernel: they read as
 *                      zero and fault in fresh on the next touch. Only where
 *                      every mapping covering them is private, anonymous and
 *                      writable (asked of /proc/self/maps: PROCMAP_QUERY, or
 *                      its text), in parts of at least the profile's
 *                      discard_from (or of one unit where no sampled page of
 *                      a range of 4 MiB or more is resident: mincore), aligned
 *                      to the transparent huge page size
 *                      where THP is enabled (a part of a huge page discarded
 *                      splits it). Everything else is stored: head and tail,
 *                      shared, file, memfd, hugetlbfs or unknown mappings,
 *                      mlocked pages (madvise fails), no /proc, a seccomp
 *                      filter refusing open, ioctl or madvise. Never an error.
 *                      Also stored, from /proc/self/smaps and pagemap: memory
 *                      registered with userfaultfd, locked, I/O or PFN
 *                      mapped, MADV_DONTFORK (as RDMA registrations are),
 *                      sealed, with a protection key other than 0, or
 *                      holding guard pages (MADV_GUARD_INSTALL: where the
 *                      kernel has them but cannot report them, Linux 6.13,
 *                      nothing is discarded); and everything when these
 *                      files cannot be opened as this process's own: from
 *                      procfs's root at /proc by openat2 without crossing a
 *                      mount (another process's files mounted over them, a
 *                      kernel before Linux 5.6 or a seccomp filter refusing
 *                      openat2: stores). No descriptor outlives the call,
 *                      however it ends: each file is closed before anything
 *                      is discarded or stored, and while one is open every
 *                      signal is blocked on the calling thread and no
 *                      cancellation point runs (a handler's siglongjmp or a
 *                      pthread_cancel finds none open; a signal arriving
 *                      meanwhile is delivered at the close).
 *                      The caller's promise, which no file shows: no pinned
 *                      pages in the range. Memory pinned by a device or the
 *                      kernel (io_uring registered buffers, RDMA memory
 *                      regions without MADV_DONTFORK, vfio DMA mappings, GPU
 *                      host registration) keeps the old pages pinned: after
 *                      a discard the process reads fresh zero pages while the
 *                      device keeps reading and writing the old ones (a
 *                      READ_FIXED lands where the process never sees it).
 *                      Clear pinned memory without MAY_DISCARD: stores zero
 *                      it in place. Protection keys: MADV_DONTNEED ignores
 *                      them; a mapping whose key is not 0 is stored (its
 *                      stores fault where the key denies writes), so the
 *                      promise is only that key 0 does not deny them.
 *                      With CP_ZERO_HOT nothing is discarded: the caller
 *                      would fault every page straight back in.
 * No general-register flag: the policy holds one kernel per band and
 * intent, none chosen without vector registers; CLEARPAGES_DISABLE=simd
 * (hosted) or CP_CPU_DESCRIPTION_NO_SIMD (freestanding) say it per process.
 * cp_zero_ex also stores, in *discarded when not NULL, how many bytes were
 * given back rather than written (0 unless MAY_DISCARD); on -EINVAL it is
 * left as it was.
 */
#define CP_ZERO_HOT          1u
#define CP_ZERO_COLD         2u
#define CP_ZERO_PARALLEL     4u
#define CP_ZERO_MAY_DISCARD  8u
int cp_zero(void *addr, size_t len, unsigned flags);
int cp_zero_ex(void *addr, size_t len, unsigned flags, size_t *discarded);

/*
 * Zero and resident (hosted only; the freestanding object answers -EINVAL):
 *   CP_ZERO_RESIDENT   when the call returns 0, the range reads zero and
 *                      every page of it is present and writable without a
 *                      fault. Each part takes the fastest correct path:
 *                      private anonymous pages that hold nothing (never
 *                      written, or given back) are faulted in by the kernel,
 *                      which zeroes them once (MADV_POPULATE_WRITE; a store
 *                      per page before Linux 5.14); present pages are
 *                      cleared in place with the store kernels (HOT and COLD
 *                      as without RESIDENT); swapped-out pages are brought
 *                      in and then cleared. Shared, memfd, file and hugetlb
 *                      mappings are faulted in, then cleared with stores
 *                      (their content is never returned as it was).
 *                      Memory registered with userfaultfd, locked, I/O or
 *                      PFN mapped is stored only, as the caller's own writes
 *                      would be. Nothing is ever given back (no discard), so
 *                      pinned memory stays what the device sees.
 *                      Which pages hold data is asked of /proc/self/pagemap
 *                      (PAGEMAP_SCAN, or the file), opened as this process's
 *                      own as with MAY_DISCARD; where it cannot be asked or
 *                      trusted, every page is faulted in and then stored. Its
 *                      files' descriptors as MAY_DISCARD's: none outlives
 *                      the call. Checked before anything is written, -EINVAL:
 *                      with CP_ZERO_MAY_DISCARD; a hole, a read-only or
 *                      PROT_NONE part, a guard region (MADV_GUARD_INSTALL)
 *                      anywhere in the range. Where /proc/self/maps cannot
 *                      be read as this process's own nothing can be checked:
 *                      such a part then ends the call with -ENOMEM or -EFAULT
 *                      after the parts before it were filled.
 *                      -ENOMEM when the memory runs out (no huge pages for
 *                      a hugetlb mapping without reserve; a memory cgroup
 *                      at its limit OOM-kills or waits instead, as for the
 *                      caller's own writes): the range then holds, page by
 *                      page, zero or what it held; pages already made
 *                      resident stay so, nothing outside the range is
 *                      touched. -EFAULT likewise for a page the kernel
 *                      cannot fault in (a file mapping past its file's end).
 *   CP_ZERO_HUGE_PAGES with RESIDENT only (else -EINVAL): first advise
 *                      transparent huge pages (MADV_HUGEPAGE) on the 2 MiB-
 *                      aligned pages of the private anonymous mappings in
 *                      the range, so that one fault maps 512 pages where THP
 *                      is in "madvise" mode. That changes the mapping's THP
 *                      setting for good (as the caller's own madvise would);
 *                      without this flag the library never changes it.
 *   CP_ZERO_PARALLEL   with RESIDENT: the range is cut into chunks that the
 *                      calling thread and the pool's workers take in address
 *                      order. The thread count is measured, not assumed: the
 *                      first large call of a process adds threads while they
 *                      pay (populate stops scaling where the memory system
 *                      or the kernel's locks do) and later calls start from
 *                      that count. Workers run on the CPUs of the nodes
 *                      where the range's memory policy puts its pages (the
 *                      caller's node for the default local policy; the
 *                      nodes of a bind or interleave), within the caller's
 *                      CPUs.
 */
#define CP_ZERO_RESIDENT     16u
#define CP_ZERO_HUGE_PAGES   32u

/*
 * Long calls, visible and stoppable: cp_zero with progress(done, len, ctx)
 * called on the calling thread between chunks (every 32 MiB of the calling
 * thread's with RESIDENT, every 64 MiB without), done
 * being the bytes from addr that are finished (zero, and resident with
 * CP_ZERO_RESIDENT): a prefix, growing. progress may be NULL. When it
 * returns nonzero the call stops at the next chunk boundary (workers finish
 * the chunk they hold) and returns -ECANCELED. Whatever the return, *done
 * (when not NULL) is set to the finished prefix: len on 0; on -ECANCELED,
 * -ENOMEM or -EFAULT the bytes past it each hold zero or what they held.
 * The same checks and flags as cp_zero; on -EINVAL *done is 0 and nothing
 * is written. Not async-signal-safe with CP_ZERO_PARALLEL.
 */
typedef int (*cp_progress_fn)(size_t done, size_t len, void *ctx);
int cp_zero_progress(void *addr, size_t len, unsigned flags, cp_progress_fn progress,
		     void *ctx, size_t *done);

enum cp_order {
	CP_ORDER_NEIGHBOURHOOD_LAST, /* default: right of hot, left of hot, then hot +- radius */
	CP_ORDER_SEQUENTIAL,         /* one pass over the extent ("contiguous-page") */
	CP_ORDER_PAGE_AT_A_TIME,     /* one kernel call per page ("discontiguous-page") */
	CP_ORDER_CONVERGE,           /* process_huge_page(): far end first, then left/right onto hot */
	CP_ORDER_HOT_RANGE_LAST      /* pages [min(hot+radius, n), n) first, then [0, min(hot+radius, n)) */
};

struct cp_huge_opts {
	enum cp_order order;
	size_t radius;               /* pages, saturating arithmetic; CP_HUGE_OPTS_INIT: 2 */
	size_t batch_pages;          /* most pages per kernel call; 0 = no limit */
	const struct cp_kernel *kernel;   /* NULL = the library's choice per range */
	void (*between)(void *ctx);  /* runs between two consecutive kernel calls; may be NULL */
	void *ctx;
};
#define CP_HUGE_OPTS_INIT { CP_ORDER_NEIGHBOURHOOD_LAST, 2, 0, NULL, NULL, NULL }

/*
 * npages == 0 returns 0 before any other check. Otherwise -EINVAL, nothing
 * written: the page checks above, hot_idx >= npages, an unknown order,
 * opts->kernel with a NULL clear. opts NULL = CP_HUGE_OPTS_INIT. Within a range,
 * batches run in ascending address order; CONVERGE and PAGE_AT_A_TIME make one
 * kernel call per page. k kernel calls run between() k - 1 times. kernel NULL:
 * NEIGHBOURHOOD_LAST's hot range uses the temporal (hot) kernel and every other
 * range the extent policy for that range's size; CLEARPAGES_KERNEL, when set,
 * applies to all of them. An explicit opts->kernel is used as given.
 */
CP_DEPRECATED("cp_clear_huge_opts(base, npages, hot_idx, NULL)")
int cp_clear_huge(void *base, size_t npages, size_t hot_idx);
int cp_clear_huge_opts(void *base, size_t npages, size_t hot_idx,
		       const struct cp_huge_opts *opts);

/*
 * Copying pages (what copy_user_huge_page does on a copy-on-write fault of a
 * huge page; a fork of a VM's memory, a snapshot). The same policy as the
 * clear: copy kernels listed by cp_copy_kernels() in the same order
 * (temporal first, fastest at small extents first; then non-temporal),
 * chosen by extent from the state in force: a built-in row's own copy bands
 * (measured), else the clear's bands (built-in row, profile, generic rule,
 * CLEARPAGES_NT_THRESHOLD) with each kernel's copy counterpart at the same
 * extent. From where the clear's uncached bands go non-temporal (16 KiB at
 * least), cp_copy_pages also asks where the destination is, as
 * cp_clear_pages does (the thread's copy history below 1 MiB, a timed chunk
 * from there): non-temporal copies, prefetching, onto memory not in the
 * cache; the destination copied last, copied again, counts as cached.
 * CLEARPAGES_DISABLE masks copy kernels as clear ones;
 * CLEARPAGES_KERNEL names a clear kernel and leaves the copy calls alone.
 * Checks as cp_clear_pages, on both ranges (dst and src each not NULL,
 * CP_PAGE_SIZE-aligned, not past the top of the address space), plus
 * overlapping ranges: -EINVAL, nothing written. npages == 0 returns 0 first.
 */
struct cp_copy_kernel {
	const char *name;          /* unique among copy kernels: "rep_movsb", "ldp_stp", ... */
	const char *arch;          /* "x86_64" or "arm64" */
	unsigned    flags;         /* CP_NONTEMPORAL (stores), CP_SIMD */
	void      (*copy)(void *dst, const void *src, size_t npages);   /* raw: npages 0 does nothing */
};
int cp_copy_pages(void *dst, const void *src, size_t npages);
/*
 * The copy counterpart of cp_zero: copy [src, src + len) to [dst, dst + len),
 * any addresses, any length, with the caller's intent. len == 0 returns 0
 * first (nothing else is looked at: not the pointers, not the flags).
 * Otherwise -EINVAL, nothing written: dst or src NULL, either range past the
 * top of the address space, the ranges overlapping (adjacent ones do not),
 * an unknown flag bit, or HOT with COLD. Where dst and src sit at the same
 * offset in a page, the whole pages from dst's first page boundary go to a
 * copy kernel (in calls of 4080 KiB at most) and the head and tail (less
 * than a page each) to memcpy; where the offsets differ, no kernel can take
 * the pages (each needs both addresses page-aligned) and memcpy copies the
 * whole range. flags (the values of CP_ZERO_HOT and CP_ZERO_COLD):
 *   0             the dispatcher decides: the whole pages as cp_copy_pages
 *                 copies them, the residency estimate included
 *   CP_COPY_HOT   the caller reads the destination soon: temporal kernels
 *                 only, at every extent (the copy bands' kernel; where
 *                 they go non-temporal, the temporal kernel of the band
 *                 before), never estimated
 *   CP_COPY_COLD  it won't touch it soon: non-temporal at every extent (the
 *                 uncached copy bands' non-temporal kernel, avx2_nt_pf on
 *                 the x86 rows, also below where they go non-temporal),
 *                 never estimated
 * clearpages-freestanding.o: the same (memcpy is the caller's).
 */
#define CP_COPY_HOT  1u
#define CP_COPY_COLD 2u
int cp_copy(void *dst, const void *src, size_t len, unsigned flags);
/* A huge extent around the hot (faulting) page, in the clear's orders; opts
 * NULL = CP_HUGE_OPTS_INIT (neighbourhood-last: the hot range last, with the
 * temporal kernel). opts->kernel must be NULL (it is a clear kernel): the copy
 * kernel is `kernel`, used for every range, or NULL for the library's choice
 * per range. -EINVAL, nothing written: the checks above, hot_idx >= npages,
 * an unknown order, opts->kernel not NULL, kernel with a NULL copy.
 * cp_copy_huge: the deprecated alias (above) with opts and kernel NULL. */
CP_DEPRECATED("cp_copy_huge_opts(dst, src, npages, hot_idx, NULL, NULL)")
int cp_copy_huge(void *dst, const void *src, size_t npages, size_t hot_idx);
int cp_copy_huge_opts(void *dst, const void *src, size_t npages, size_t hot_idx,
		      const struct cp_huge_opts *opts, const struct cp_copy_kernel *kernel);
/* Usable copy kernels here, in the order above; by name (NULL: unknown,
 * unsupported or disabled); what cp_copy_pages uses for npages on cached
 * memory (0 acts as 1). */
size_t cp_copy_kernels(const struct cp_copy_kernel *const **list);
const struct cp_copy_kernel *cp_copy_kernel_find(const char *name);
const struct cp_copy_kernel *cp_copy_kernel_for(size_t npages);

#ifndef CLEARPAGES_FREESTANDING   /* threads and files: not in clearpages-freestanding.o */
/*
 * Same checks as cp_clear_pages; nthreads 0 = the CPUs this thread may run on;
 * extents below a measured threshold stay on the calling thread; a thread that
 * cannot be started means fewer threads, never an error.
 */
int cp_clear_pages_parallel(void *addr, size_t npages, unsigned nthreads);

/*
 * Load a tuned profile now (path NULL: back to the defaults).
 * 0, or -EINVAL / -ENOENT with the policy unchanged; -ENOMEM (no memory, or
 * 256 distinct policies already published: they are kept for the life of
 * the process, since a reader may still hold one) with the policy unchanged;
 * -EBUSY, nothing changed, from a signal handler that interrupted its own
 * thread inside a publication (see the top of this file). The cap counts
 * policies: a profile whose policy was published before, under any path or
 * spelling of one, publishes that state again (with that state's source).
 */
int cp_set_profile(const char *path);
#endif

/*
 * Where the extent policy came from: "env:PATH" (CLEARPAGES_PROFILE or
 * cp_set_profile), "system:PATH" (the machine-wide profile), "builtin:NAME" (a
 * profile measured for this CPU's microarchitecture, e.g. "builtin:amd-zen4")
 * or "generic" (the rule from cache sizes). Valid for the life of the process.
 * A policy loaded again under another name keeps the name that first
 * published it (states are kept per policy).
 */
const char *cp_policy_source(void);

/*
 * The policy's decisions a caller may plan with, in bytes (clearbench's
 * header prints the same). CP_POLICY_NEVER: this policy never does it.
 *   struct cp_policy_info info;
 *   info.size = sizeof(info);
 *   cp_policy_info(&info);
 * 0, or -EINVAL (NULL, or a size below this first version's) with nothing
 * written. Later versions only add fields at the end: the library fills
 * the fields it knows that fit in info->size, and sets size to the bytes
 * it filled.
 *  - discard_from: cp_zero with CP_ZERO_MAY_DISCARD hands resident private
 *    anonymous memory back from parts this long; shorter parts are stored.
 *    A host's built-in row may say never: there the system call and the
 *    fault of each page at its next touch were measured to cost more than
 *    the stores (docs/dispatch.md, the rows). Parts no page of which is
 *    resident are handed back from one huge page (or page) whatever it says.
 *    Hosted only: CP_POLICY_NEVER in clearpages-freestanding.o.
 *  - nt_from, uncached_nt_from: the first extent cp_zero(addr, len, 0) and
 *    cp_clear_pages clear with non-temporal stores, on memory the estimate
 *    finds cached, and not.
 *  - estimate_from: from this extent a call times where the memory is
 *    (below it the extent and the thread's history decide).
 *  - parallel_min_share: the smallest share a parallel call gives a thread.
 *  - copy_nt_from, copy_uncached_nt_from: the first extent cp_copy_pages
 *    copies non-temporally, onto memory the estimate finds cached, and not.
 *  - copy_estimate_from: from this extent a copy asks where its destination
 *    is (hosted only; CP_POLICY_NEVER in clearpages-freestanding.o).
 * Async-signal-safe once the library is initialised.
 */
#define CP_POLICY_NEVER ((size_t)-1)
struct cp_policy_info {
	size_t size;                 /* in: sizeof(struct cp_policy_info) */
	const char *source;          /* cp_policy_source() */
	size_t discard_from;
	size_t nt_from;
	size_t uncached_nt_from;
	size_t estimate_from;
	size_t parallel_min_share;
	size_t copy_nt_from;
	size_t copy_uncached_nt_from;
	size_t copy_estimate_from;
};
int cp_policy_info(struct cp_policy_info *info);

/* Usable kernels here: temporal first (fastest at small extents first), then
 * non-temporal (fastest at large extents first). Returns the count. */
size_t cp_kernels(const struct cp_kernel *const **list);
/* NULL: unknown, unsupported on this CPU, or disabled by CLEARPAGES_DISABLE. */
const struct cp_kernel *cp_kernel_find(const char *name);
/* What cp_clear_pages() uses for an extent of npages on cached memory; 0 acts as 1. */
const struct cp_kernel *cp_kernel_for(size_t npages);

#ifdef CLEARPAGES_FREESTANDING
/*
 * clearpages-freestanding.o (define CLEARPAGES_FREESTANDING before including
 * this header): the kernels, detection, the built-in policy and the checked
 * calls above, without libc. It needs memset, memcpy and memmove from the
 * caller's environment and nothing else. Absent from it, because they need
 * threads or files: cp_clear_pages_parallel and cp_set_profile. No
 * environment variables are read, nothing is printed, and cp_policy_source()
 * is "builtin:NAME" or "generic".
 *
 * The CPU is detected on first use (CPUID/XGETBV; arm64: MIDR_EL1,
 * ID_AA64PFR0_EL1, ID_AA64ISAR2_EL1, DCZID_EL0 through MRS, which works at
 * EL1 and at EL0 where the kernel emulates the ID registers), or described
 * once by cp_freestanding_init() before any other call:
 *   desc NULL       detect now (an eager first use, e.g. at boot);
 *   desc->disable   NULL, or features to leave out, in CLEARPAGES_DISABLE's
 *                   syntax ("avx2,clzero"; x86_64: erms fsrm fsrs avx2 clzero
 *                   avx512, arm64: dczva sve mops, both: simd; the other arch's ignored);
 *   CP_CPU_DESCRIPTION_REGS (arm64 only): take the four register values
 *                   below instead of reading them (EL0 without emulation;
 *                   a hypervisor describing the core it runs on);
 *   CP_CPU_DESCRIPTION_NO_SIMD: general registers only: no kernel that
 *                   touches vector state (CP_SIMD) is listed or chosen, for
 *                   kernel code that must not (the same as "simd" in
 *                   desc->disable);
 *   l2_bytes, llc_bytes  the cache sizes (per core; the last level one core
 *                   shares), e.g. from the device tree or ACPI PPTT: the
 *                   generic rule places the non-temporal crossover by them.
 * Returns 0; -EINVAL (unknown flag or token; nothing changes) or -EBUSY (the
 * state was already decided, by an earlier call or by first use).
 */
#define CP_CPU_DESCRIPTION_REGS 1u
#define CP_CPU_DESCRIPTION_NO_SIMD 2u
struct cp_cpu_description {
	unsigned flags;                      /* CP_CPU_DESCRIPTION_* */
	const char *disable;
	unsigned long long midr_el1, id_aa64pfr0_el1, id_aa64isar2_el1, dczid_el0;
	size_t l2_bytes, llc_bytes;          /* 0: as detected (arm64: defaults) */
};
int cp_freestanding_init(const struct cp_cpu_description *desc);
#endif

/*
 * Drop-in raw kernels: clear npages (>= 1) 4096-byte pages at a 4096-aligned
 * addr, no checks, no initialisation needed. The caller guarantees the CPU has
 * the kernel's feature (see the README's kernel table).
 */
#if defined(__x86_64__)
void cp_x86_64_avx512(void *addr, size_t npages);     /* AVX512F (7.0 EBX[16]), AVX and XCR0 bits 1,2,5,6,7 */
void cp_x86_64_avx2(void *addr, size_t npages);       /* CPUID 7.0 EBX[5], AVX and XCR0 SSE|AVX */
void cp_x86_64_rep_stosb(void *addr, size_t npages);
void cp_x86_64_rep_stosq(void *addr, size_t npages);
void cp_x86_64_sse2(void *addr, size_t npages);
void cp_x86_64_movq(void *addr, size_t npages);
void cp_x86_64_clzero(void *addr, size_t npages);     /* CPUID 0x80000008 EBX[0] */
void cp_x86_64_avx2_nt(void *addr, size_t npages);    /* CPUID 7.0 EBX[5], AVX and XCR0 SSE|AVX */
void cp_x86_64_avx512_nt(void *addr, size_t npages);  /* AVX512F (7.0 EBX[16]), AVX and XCR0 bits 1,2,5,6,7 */
void cp_x86_64_movnti(void *addr, size_t npages);
#endif
#if defined(__aarch64__)
void cp_arm64_mops(void *addr, size_t npages);        /* HWCAP2_MOPS / ID_AA64ISAR2_EL1.MOPS */
void cp_arm64_dc_zva(void *addr, size_t npages);      /* DC ZVA permitted: DCZID_EL0.DZP == 0 */
void cp_arm64_sve(void *addr, size_t npages);         /* HWCAP_SVE / ID_AA64PFR0_EL1.SVE */
void cp_arm64_stp_q(void *addr, size_t npages);
void cp_arm64_stp(void *addr, size_t npages);
void cp_arm64_mops_nt(void *addr, size_t npages);     /* HWCAP2_MOPS / ID_AA64ISAR2_EL1.MOPS */
void cp_arm64_stnp(void *addr, size_t npages);
void cp_arm64_stnp_x(void *addr, size_t npages);
#endif

/*
 * Drop-in raw copy kernels: copy npages (>= 1; 0 does nothing) 4096-byte
 * pages from src to dst, both 4096-aligned, not overlapping; no checks.
 */
#if defined(__x86_64__) /* copy */
void cp_x86_64_copy_avx512(void *dst, const void *src, size_t npages); /* AVX512F (7.0 EBX[16]), AVX and XCR0 bits 1,2,5,6,7 */
void cp_x86_64_copy_avx2(void *dst, const void *src, size_t npages); /* CPUID 7.0 EBX[5], AVX and XCR0 SSE|AVX */
void cp_x86_64_copy_rep_movsb(void *dst, const void *src, size_t npages);
void cp_x86_64_copy_rep_movsq(void *dst, const void *src, size_t npages);
void cp_x86_64_copy_sse2(void *dst, const void *src, size_t npages);
void cp_x86_64_copy_avx2_nt(void *dst, const void *src, size_t npages); /* CPUID 7.0 EBX[5], AVX and XCR0 SSE|AVX */
void cp_x86_64_copy_avx512_nt(void *dst, const void *src, size_t npages); /* AVX512F (7.0 EBX[16]), AVX and XCR0 bits 1,2,5,6,7 */
void cp_x86_64_copy_avx2_nt_pf(void *dst, const void *src, size_t npages); /* CPUID 7.0 EBX[5], AVX and XCR0 SSE|AVX */
void cp_x86_64_copy_avx512_nt_pf(void *dst, const void *src, size_t npages); /* AVX512F (7.0 EBX[16]), AVX and XCR0 bits 1,2,5,6,7 */
void cp_x86_64_copy_movnti(void *dst, const void *src, size_t npages);
void cp_x86_64_copy_movnti_pf(void *dst, const void *src, size_t npages);
#endif
#if defined(__aarch64__) /* copy */
void cp_arm64_copy_mops(void *dst, const void *src, size_t npages); /* HWCAP2_MOPS / ID_AA64ISAR2_EL1.MOPS */
void cp_arm64_copy_sve(void *dst, const void *src, size_t npages); /* HWCAP_SVE / ID_AA64PFR0_EL1.SVE */
void cp_arm64_copy_ldp_stp_q(void *dst, const void *src, size_t npages);
void cp_arm64_copy_ldp_stp(void *dst, const void *src, size_t npages);
void cp_arm64_copy_mops_nt(void *dst, const void *src, size_t npages); /* HWCAP2_MOPS / ID_AA64ISAR2_EL1.MOPS */
void cp_arm64_copy_ldnp_stnp(void *dst, const void *src, size_t npages);
void cp_arm64_copy_ldnp_stnp_x(void *dst, const void *src, size_t npages);
#endif

#ifdef __cplusplus
}
#endif

#endif /* CLEARPAGES_H */
