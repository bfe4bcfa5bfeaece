/* SPDX-License-Identifier: MIT */
/*
 * The kind of each mapping over a range, from /proc/self/maps (maps.h).
 *
 * PROCMAP_QUERY (Linux 6.11+) answers one mapping per ioctl: the one covering
 * an address or the next after it, with its flags, device and inode. Debian
 * 12's headers predate it, so the request and its structure are spelled out
 * here from the UAPI (include/uapi/linux/fs.h). Where the ioctl fails on the
 * first ask (an older kernel: ENOTTY; a seccomp filter: EPERM or ENOSYS) the
 * same file is read as text, a line at a time through a fixed buffer, and
 * only the lines that overlap the range are used. Either way the file is
 * this process's own, reached from procfs's root without crossing a mount
 * (files.c): a file mounted over /proc/self/maps, even another process's
 * maps on procfs, or a tmpfs over /proc, is not read at all and the caller
 * stores. The answer is collected into the caller's array and the file
 * closed before the caller acts on it, all with signals blocked and no
 * cancellation point (files.h): a handler's longjmp or a cancellation finds
 * nothing open.
 *
 * "Private anonymous" here is what MADV_DONTNEED zeroes: not shared, no
 * backing file (device 00:00, inode 0), and writable (a clear of a read-only
 * mapping faults with stores; discarding it must not quietly succeed).
 * Shared anonymous memory and memfd are shmem files with an inode, hugetlb
 * mappings are hugetlbfs files: all of them are "something else".
 */
#include <errno.h>
#include <sys/ioctl.h>
#include "files.h"
#include "maps.h"

struct procmap_query_uapi {
	uint64_t size;            /* in: sizeof this structure */
	uint64_t query_flags;     /* in */
	uint64_t query_addr;      /* in */
	uint64_t vma_start, vma_end, vma_flags, vma_page_size, vma_offset, inode;  /* out */
	uint32_t dev_major, dev_minor;                                             /* out */
	uint32_t vma_name_size, build_id_size;   /* in/out: 0, no name or build id wanted */
	uint64_t vma_name_addr, build_id_addr;   /* in */
};
_Static_assert(sizeof(struct procmap_query_uapi) == 104, "the UAPI's struct procmap_query");

#define PROCFS_IOCTL_MAGIC  'f'
#define PROCMAP_QUERY_REQ   _IOWR(PROCFS_IOCTL_MAGIC, 17, struct procmap_query_uapi)
#define PMQ_VMA_WRITABLE    0x02
#define PMQ_VMA_SHARED      0x08
#define PMQ_COVERING_OR_NEXT 0x10
#define READ_BYTES 1024

int cp__maps_text_only;

void cp__proc_lines(int fd, char *line, size_t keep, cp__line_fn fn, void *ctx)
{
	char buf[READ_BYTES];
	size_t kept = 0;
	for (;;) {
		ssize_t got = cp__file_read(fd, buf, sizeof(buf));
		if (got <= 0)
			return;
		for (ssize_t i = 0; i < got; i++) {
			if (buf[i] != '\n') {
				if (kept < keep)
					line[kept++] = buf[i];
				continue;
			}
			size_t n = kept;
			kept = 0;
			if (fn(line, n, ctx))
				return;
		}
	}
}

static uintptr_t min_addr(uintptr_t a, uintptr_t b)
{
	return a < b ? a : b;
}

/* The walk's cursor: what has been reported so far, into parts[]. */
struct walk {
	uintptr_t at, end;
	struct cp__maps_part *parts;
	size_t n, max;
};

/* A mapping's kind as the part records it. */
struct kind {
	int private_anon, mapped, writable;
	size_t page_size;
};

static void add(struct walk *w, uintptr_t s, uintptr_t e, struct kind k)
{
	w->parts[w->n++] = (struct cp__maps_part){ s, e, k.private_anon, k.mapped, k.writable, k.page_size };
	w->at = e;
}

static const struct kind HOLE = { 0, 0, 0, 0 };

/* Room for a mapping's two parts (the gap before it and its overlap). */
static int full(const struct walk *w)
{
	return w->n + 2 > w->max;
}

/* A mapping [s, e) of its kind: the gap before it (unmapped, or unknown) and
 * its overlap with the range. */
static void walk_mapping(struct walk *w, uintptr_t s, uintptr_t e, struct kind k)
{
	if (e <= w->at || s >= w->end)
		return;
	if (s > w->at)
		add(w, w->at, s, HOLE);
	add(w, w->at, min_addr(e, w->end), k);
}

/* The rest of the range, unmapped: when the walk was not cut short. */
static void walk_finish(struct walk *w)
{
	if (w->at < w->end && w->n < w->max)
		add(w, w->at, w->end, HOLE);
}

/* 0, or -1 when the very first ask fails (the caller reads the text). */
static int walk_query(int fd, struct walk *w)
{
	uintptr_t first = w->at;
	while (w->at < w->end && !full(w)) {
		struct procmap_query_uapi q = { .size = sizeof(q), .query_flags = PMQ_COVERING_OR_NEXT,
						.query_addr = w->at };
		if (ioctl(fd, PROCMAP_QUERY_REQ, &q) != 0) {
			if (w->at == first && errno != ENOENT)
				return -1;
			break;          /* ENOENT: nothing mapped from here on */
		}
		if (q.vma_start >= w->end || q.vma_end <= w->at)
			break;
		int writable = (q.vma_flags & PMQ_VMA_WRITABLE) != 0;
		int anon = writable && !(q.vma_flags & PMQ_VMA_SHARED) &&
			   q.inode == 0 && q.dev_major == 0 && q.dev_minor == 0;
		walk_mapping(w, (uintptr_t)q.vma_start, (uintptr_t)q.vma_end,
			     (struct kind){ anon, 1, writable, (size_t)q.vma_page_size });
	}
	if (!full(w))
		walk_finish(w);
	return 0;
}

/* Digits of `base` from *p (at most 20); -1 when there are none. */
static int number(const char **p, const char *lim, unsigned base, uint64_t *out)
{
	uint64_t v = 0;
	int n = 0;
	for (; *p < lim && n < 20; (*p)++, n++) {
		char c = **p;
		unsigned d;
		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else
			break;
		v = v * base + d;
	}
	*out = v;
	return n ? 0 : -1;
}

static int expect(const char **p, const char *lim, char c)
{
	if (*p >= lim || **p != c)
		return -1;
	(*p)++;
	return 0;
}

/* "START-END PERM OFFSET MAJ:MIN INODE [PATH]" */
int cp__maps_parse_line(const char *line, size_t len, uintptr_t *start, uintptr_t *end,
			int *private_anon)
{
	const char *p = line, *lim = line + len;
	uint64_t s, e, off, maj, min, ino;
	if (number(&p, lim, 16, &s) || expect(&p, lim, '-') || number(&p, lim, 16, &e) ||
	    expect(&p, lim, ' ') || lim - p < 5)
		return -1;
	const char *perm = p;
	p += 4;
	if (expect(&p, lim, ' ') || number(&p, lim, 16, &off) || expect(&p, lim, ' ') ||
	    number(&p, lim, 16, &maj) || expect(&p, lim, ':') || number(&p, lim, 16, &min) ||
	    expect(&p, lim, ' ') || number(&p, lim, 10, &ino) || s >= e)
		return -1;
	if (p < lim && *p != ' ')
		return -1;
	*start = (uintptr_t)s;
	*end = (uintptr_t)e;
	*private_anon = perm[1] == 'w' && perm[3] == 'p' && maj == 0 && min == 0 && ino == 0;
	return 0;
}

/* The text, line by line: the first LINE_KEEP bytes of each line are enough
 * for every field before the path. Stops at the first line past the range,
 * or when parts[] is full. */
#define LINE_KEEP  128
static int text_line(const char *line, size_t len, void *ctx)
{
	struct walk *w = ctx;
	uintptr_t s, e;
	int anon;
	if (cp__maps_parse_line(line, len, &s, &e, &anon))
		return 0;       /* unreadable: its bytes stay "unknown" */
	if (s >= w->end || full(w))
		return 1;
	/* the permissions follow the first space ("START-END rw-p"), checked by the parse */
	size_t perm = 0;
	while (line[perm] != ' ')
		perm++;
	walk_mapping(w, s, e, (struct kind){ anon, 1, line[perm + 2] == 'w', 0 });
	return 0;
}

static void walk_text(int fd, struct walk *w)
{
	char line[LINE_KEEP];
	cp__proc_lines(fd, line, sizeof(line), text_line, w);
	if (!full(w))
		walk_finish(w);
}

int cp__maps_parts(uintptr_t start, uintptr_t end, struct cp__maps_part *parts, size_t max,
		   size_t *n)
{
	struct cp__file f;
	if (cp__file_open_self(&f, "maps"))
		return -1;
	struct walk w = { start, end, parts, 0, max };
	if (cp__maps_text_only || walk_query(f.fd, &w))
		walk_text(f.fd, &w);
	cp__file_close(&f);
	if (w.n == 0)      /* (max < 2) */
		add(&w, start, end, HOLE);
	*n = w.n;
	return 0;
}
