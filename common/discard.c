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
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>
#include "discard.h"
#include "maps.h"

#define THP_DEFAULT ((size_t)2 << 20)

static size_t unit_cached;

/* A small sysfs file into buf (NUL-terminated); bytes read, or 0. */
static size_t read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t got = read(fd, buf, size - 1);
	close(fd);
	if (got <= 0)
		return 0;
	buf[got] = 0;
	return (size_t)got;
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

static void discard_part(uintptr_t s, uintptr_t e, int private_anon, void *ctx)
{
	struct discard *d = ctx;
	uintptr_t mask = d->unit - 1;
	if (private_anon && s <= UINTPTR_MAX - mask) {
		uintptr_t a = (s + mask) & ~mask, b = e & ~mask;
		if (a < b && b - a >= d->from_bytes &&
		    madvise((void *)a, b - a, MADV_DONTNEED) == 0) {
			store_range(d, s, a);
			store_range(d, b, e);
			d->discarded += b - a;
			return;
		}
	}
	store_range(d, s, e);
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
	uintptr_t s = (uintptr_t)addr, e = s + npages * 4096;
	if (e < s || cp__maps_walk(s, e, discard_part, &d))
		store(addr, npages, ctx);    /* the top page, or no /proc: all stored */
	errno = saved;
	return d.discarded;
}
