/* SPDX-License-Identifier: MIT */
/*
 * Zero by discard (discard.h): madvise(MADV_DONTNEED) of the private
 * anonymous parts of a range, stores for the rest.
 *
 * Only whole aligned units are discarded. Where transparent huge pages are
 * enabled the unit is the PMD size: MADV_DONTNEED of part of a huge page
 * splits it (AnonHugePages of /proc/self/smaps_rollup shows it; the figures:
 * bench/results/intel-family6-model167/README.md). The unaligned edges are stored instead, at most a unit less a page at each
 * end. Whether huge pages back a part would need /proc/self/smaps (a page
 * table walk of every mapping) or PAGEMAP_SCAN: the alignment costs less,
 * and on 4 KiB-backed memory the stores it adds are at most two units.
 *
 * A part shorter than from_pages is stored: below it the syscall, the query
 * and the fault of fresh pages later cost more than the stores (select.c).
 * That threshold is measured on resident memory. A range none of whose
 * sampled pages is resident (cp__untouched: never written, or handed back
 * already, as an allocator's reused huge block often is) is discarded from
 * one unit whatever it says: stores would fault each page in, while discard
 * only walks page tables with nothing to free, even on a host whose
 * discard_from is none (bench/results/amd-zen4/README.md: mimalloc's calloc
 * of an untouched reused block).
 * A madvise that fails (mlocked pages: EINVAL; a seccomp filter: EPERM or
 * ENOSYS) leaves the part to the stores.
 *
 * Private anonymous by the maps is necessary, not enough: a discarded
 * userfaultfd range reads back what its handler supplies, and a discarded
 * guard region faults at the caller's next touch. So the parts that would be
 * discarded are vetted against smaps' VmFlags and the guard regions (vma.c,
 * every case) before any is. The maps, smaps and pagemap are this
 * process's own, opened from a procfs it can trust (files.h): another
 * process's files mounted over them (a mount namespace suffices) would call
 * a shared memfd private anonymous, and its discard would keep every byte.
 * Where they cannot be trusted everything is stored. Each is closed before
 * the first madvise or store, and while one is open every signal is blocked
 * and no cancellation point runs: neither a handler's longjmp (the contract
 * allows it on the caller's thread) nor pthread_cancel can leave a
 * descriptor behind.
 */
#include <errno.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include "discard.h"
#include "files.h"
#include "maps.h"
#include "vma.h"

/* Parts asked of the maps at a time (as many as one vetting takes): a range
 * over more mappings takes more rounds, each opening the maps again. */
#define CP__DISCARD_PARTS CP__VMA_RANGES

#define THP_DEFAULT ((size_t)2 << 20)

static size_t unit_cached;

/* A small sysfs file into buf (NUL-terminated); bytes read, or 0. */
static size_t read_small(const char *path, char *buf, size_t size)
{
	ssize_t got = cp__file_read_small(path, buf, size);
	return got > 0 ? (size_t)got : 0;
}

static int has(const char *s, const char *word)
{
	for (; *s; s++) {
		size_t i = 0;
		while (word[i] && s[i] == word[i])
			i++;
		if (!word[i])
			return 1;
	}
	return 0;
}

/* THP "[never]": the page size; else hpage_pmd_size, or 2 MiB where it
 * cannot be read (aligning too far only stores more). */
static size_t unit_decide(void)
{
	char buf[96];
	size_t page = (size_t)getauxval(AT_PAGESZ);
	if (page < 4096)
		page = 4096;
	if (read_small("/sys/kernel/mm/transparent_hugepage/enabled", buf, sizeof(buf)) &&
	    has(buf, "[never]"))
		return page;
	size_t pmd = 0;
	if (read_small("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", buf, sizeof(buf)))
		for (const char *p = buf; *p >= '0' && *p <= '9'; p++)
			pmd = pmd * 10 + (size_t)(*p - '0');
	if (pmd < page || (pmd & (pmd - 1)))
		pmd = THP_DEFAULT > page ? THP_DEFAULT : page;
	return pmd;
}

/* Decided on the first discard; racers decide the same. */
size_t cp__discard_unit(void)
{
	size_t u = __atomic_load_n(&unit_cached, __ATOMIC_RELAXED);
	if (!u) {
		u = unit_decide();
		__atomic_store_n(&unit_cached, u, __ATOMIC_RELAXED);
	}
	return u;
}

struct discard {
	size_t unit, from_bytes, discarded;
	cp__store_fn store;
	void *ctx;
};

static void store_range(const struct discard *d, uintptr_t s, uintptr_t e)
{
	if (s < e)
		d->store((void *)s, (e - s) / 4096, d->ctx);
}

/* The whole aligned units of a private anonymous part, if at least
 * from_bytes of them: a candidate (ok 1) to be vetted (vma.h). */
static struct cp__range candidate(const struct discard *d, const struct cp__maps_part *p)
{
	uintptr_t mask = d->unit - 1;
	struct cp__range c = { p->start, p->start, 0 };
	if (p->private_anon && p->start <= UINTPTR_MAX - mask) {
		uintptr_t a = (p->start + mask) & ~mask, b = p->end & ~mask;
		if (a < b && b - a >= d->from_bytes)
			c = (struct cp__range){ a, b, 1 };
	}
	return c;
}

/* One batch of parts: candidates vetted (every file closed again), then
 * discarded or stored. */
static void discard_parts(struct discard *d, const struct cp__maps_part *p, size_t n)
{
	struct cp__range c[CP__DISCARD_PARTS];
	size_t ok = 0;
	for (size_t i = 0; i < n; i++) {
		c[i] = candidate(d, &p[i]);
		ok += c[i].ok;
	}
	if (ok) {
		cp__vma_vet_flags(c, n);
		cp__vma_vet_guards(c, n);
	}
	for (size_t i = 0; i < n; i++) {
		if (c[i].ok && madvise((void *)c[i].start, c[i].end - c[i].start, MADV_DONTNEED) == 0) {
			store_range(d, p[i].start, c[i].start);
			store_range(d, c[i].end, p[i].end);
			d->discarded += c[i].end - c[i].start;
		} else {
			store_range(d, p[i].start, p[i].end);
		}
	}
}

int cp__untouched(void *addr, size_t npages)
{
	int saved = errno, untouched = 1;
	size_t step = npages / CP__UNTOUCHED_SAMPLES;
	/* mincore wants the system page (64 KiB on some arm64 kernels) */
	uintptr_t sys = (uintptr_t)getauxval(AT_PAGESZ);
	if (sys < 4096 || (sys & (sys - 1)))
		sys = 4096;
	for (size_t i = 0; i < CP__UNTOUCHED_SAMPLES && untouched; i++) {
		unsigned char resident = 0;
		uintptr_t page = ((uintptr_t)addr + (i * step + step / 2) * 4096) & ~(sys - 1);
		if (mincore((void *)page, 4096, &resident) || (resident & 1))
			untouched = 0;
	}
	errno = saved;
	return untouched;
}

size_t cp__discard(void *addr, size_t npages, size_t from_pages, cp__store_fn store, void *ctx)
{
	int saved = errno;
	struct discard d = { cp__discard_unit(), from_pages * 4096, 0, store, ctx };
	uintptr_t at = (uintptr_t)addr, e = at + npages * 4096;
	if (e < at) {
		store(addr, npages, ctx);    /* the top page */
		at = e;
	}
	while (at < e) {
		struct cp__maps_part parts[CP__DISCARD_PARTS];
		size_t n;
		if (cp__maps_parts(at, e, parts, CP__DISCARD_PARTS, &n)) {
			store_range(&d, at, e);  /* no /proc, or not to be trusted: all stored */
			break;
		}
		discard_parts(&d, parts, n);
		at = parts[n - 1].end;
	}
	errno = saved;
	return d.discarded;
}
