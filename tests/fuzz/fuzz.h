/* SPDX-License-Identifier: MIT */
/*
 * Shared by the libFuzzer targets: one guard-paged region per process (see
 * ../models/plain.h), reading fields from the fuzzer's bytes, and failing
 * loudly (abort: libFuzzer saves the input that did it).
 */
#ifndef CP_FUZZ_H
#define CP_FUZZ_H

#include "../models/plain.h"
#include <stdlib.h>

#define PG ((size_t)CP_PAGE_SIZE)
#define FUZZ_REGION_PAGES 48

/* The fuzzer's bytes, read front to back; past the end every field is 0. */
struct input {
	const uint8_t *data;
	size_t left;
};

static inline uint64_t take(struct input *in, size_t bytes)
{
	uint64_t v = 0;
	for (size_t i = 0; i < bytes && in->left; i++, in->left--)
		v |= (uint64_t)*in->data++ << (8 * i);
	return v;
}

static inline struct guarded *fuzz_region(void)
{
	static struct guarded r;
	if (!r.map && region_map(&r, FUZZ_REGION_PAGES)) {
		perror("fuzz: mmap");
		abort();
	}
	return &r;
}

static inline void fuzz_fail(const char *what, const char *why)
{
	fprintf(stderr, "FAIL %s: %s\n", what, why);
	abort();
}

/* A call the contract rejects: -EINVAL and not one byte of the region written. */
static inline void expect_einval(int rc, const char *what)
{
	char why[256];
	if (rc != -EINVAL) {
		snprintf(why, sizeof(why), "returned %d, not -EINVAL", rc);
		fuzz_fail(what, why);
	}
	if (region_verify(fuzz_region(), 0, 0, why, sizeof(why)))
		fuzz_fail(what, why);
}

static inline void expect_cleared(const struct clear_op *op)
{
	char what[256], why[256];
	if (check_clear_op(fuzz_region(), op, why, sizeof(why))) {
		describe_op(op, what, sizeof(what));
		fuzz_fail(what, why);
	}
}

#endif
