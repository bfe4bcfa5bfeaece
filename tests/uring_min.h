/* SPDX-License-Identifier: MIT */
/* The least of io_uring a test needs, by raw system calls (no liburing): a
 * ring of one entry, one registered buffer, one READ_FIXED waited for.
 * tests/test_zero_safety.c shows with it what pinned memory does. */
#ifndef CP_URING_MIN_H
#define CP_URING_MIN_H

#include <errno.h>
#include <linux/io_uring.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

struct uring {
	int fd;
	struct io_uring_params p;
	void *sq, *cq;
	size_t sq_len, cq_len;
	struct io_uring_sqe *sqes;
	size_t sqes_len;
};

/* 0, or the errno of the step that failed (nothing left open). */
static inline int uring_open(struct uring *u, void *buf, size_t len)
{
	memset(u, 0, sizeof(*u));
	u->fd = (int)syscall(__NR_io_uring_setup, 1, &u->p);
	if (u->fd < 0)
		return errno;
	u->sq_len = u->p.sq_off.array + u->p.sq_entries * sizeof(unsigned);
	u->cq_len = u->p.cq_off.cqes + u->p.cq_entries * sizeof(struct io_uring_cqe);
	u->sqes_len = u->p.sq_entries * sizeof(struct io_uring_sqe);
	u->sq = mmap(NULL, u->sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, u->fd,
		     IORING_OFF_SQ_RING);
	u->cq = mmap(NULL, u->cq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, u->fd,
		     IORING_OFF_CQ_RING);
	u->sqes = mmap(NULL, u->sqes_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, u->fd,
		       IORING_OFF_SQES);
	struct iovec iov = { buf, len };
	int e = 0;
	if (u->sq == MAP_FAILED || u->cq == MAP_FAILED || u->sqes == MAP_FAILED)
		e = errno ? errno : ENOMEM;
	else if (syscall(__NR_io_uring_register, u->fd, IORING_REGISTER_BUFFERS, &iov, 1))
		e = errno;
	if (e) {
		if (u->sq != MAP_FAILED)
			munmap(u->sq, u->sq_len);
		if (u->cq != MAP_FAILED)
			munmap(u->cq, u->cq_len);
		if (u->sqes != MAP_FAILED)
			munmap(u->sqes, u->sqes_len);
		close(u->fd);
	}
	return e;
}

/* READ_FIXED of len bytes of fd (offset 0) into dst, inside the registered
 * buffer: the completion's result (bytes, or -errno). */
static inline long uring_read_fixed(struct uring *u, int fd, void *dst, unsigned len)
{
	char *sq = u->sq, *cq = u->cq;
	unsigned *tail = (unsigned *)(sq + u->p.sq_off.tail);
	unsigned mask = *(unsigned *)(sq + u->p.sq_off.ring_mask);
	unsigned t = *tail, i = t & mask;
	struct io_uring_sqe *e = &u->sqes[i];
	memset(e, 0, sizeof(*e));
	e->opcode = IORING_OP_READ_FIXED;
	e->fd = fd;
	e->addr = (uintptr_t)dst;
	e->len = len;
	e->buf_index = 0;
	((unsigned *)(sq + u->p.sq_off.array))[i] = i;
	__atomic_store_n(tail, t + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, u->fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0)
		return -errno;
	unsigned *head = (unsigned *)(cq + u->p.cq_off.head);
	unsigned h = *head;
	if (h == __atomic_load_n((unsigned *)(cq + u->p.cq_off.tail), __ATOMIC_ACQUIRE))
		return -EAGAIN;
	unsigned cmask = *(unsigned *)(cq + u->p.cq_off.ring_mask);
	struct io_uring_cqe *c = (struct io_uring_cqe *)(cq + u->p.cq_off.cqes) + (h & cmask);
	long res = c->res;
	__atomic_store_n(head, h + 1, __ATOMIC_RELEASE);
	return res;
}

static inline void uring_close(struct uring *u)
{
	munmap(u->sq, u->sq_len);
	munmap(u->cq, u->cq_len);
	munmap(u->sqes, u->sqes_len);
	close(u->fd);
}
#endif
