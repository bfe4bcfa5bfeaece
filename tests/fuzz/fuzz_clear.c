/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: cp_clear at any offset and length, and the page calls,
 * inside a guard-paged region with every byte verified; inputs the contract
 * rejects must give -EINVAL and write nothing.
 *
 * Input: mode (1 byte), a (4 bytes), b (8 bytes), little-endian; missing bytes are 0.
 *   mode % 8 in 0-3: cp_clear(region + a % (len + 1), b % (what is left + 1))
 *   mode % 8 in 4-6: cp_clear_pages / _hot / _cold, page-granular the same way
 *   mode % 8 == 7:   a rejected call, chosen by mode / 8 (see bad_call)
 */
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc; (void)argv;
	/* a low crossover, so that cp_clear's body also takes the non-temporal kernel */
	setenv("CLEARPAGES_NT_THRESHOLD", "16k", 0);
	return 0;
}

static void bad_call(unsigned form, uint64_t a, uint64_t b)
{
	unsigned char *mem = fuzz_region()->mem;
	uintptr_t near_top = UINTPTR_MAX - a % (4 * PG);
	size_t wrap_len = (size_t)(UINTPTR_MAX - near_top) + 2 + b % PG;
	uintptr_t top_page = near_top & ~(uintptr_t)(PG - 1);

	switch (form % 6) {
	case 0: expect_einval(cp_clear(NULL, 1 + b % (1u << 20)), "cp_clear(NULL)"); break;
	case 1: expect_einval(cp_clear((void *)near_top, wrap_len), "cp_clear wrapping the top"); break;
	case 2: expect_einval(cp_clear(mem + a % PG, SIZE_MAX - b % PG), "cp_clear of SIZE_MAX - x"); break;
	case 3: expect_einval(cp_clear_pages(mem + 1 + a % (PG - 1), 1 + b % 8),
			      "cp_clear_pages misaligned"); break;
	case 4: expect_einval(cp_clear_pages_hot(mem, SIZE_MAX / PG + 1 + b % 1024),
			      "cp_clear_pages_hot overflowing"); break;
	case 5: expect_einval(cp_clear_pages_cold((void *)top_page, (0 - top_page) / PG + 1 + b % 16),
			      "cp_clear_pages_cold past the top"); break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	const struct guarded *r = fuzz_region();
	unsigned mode = (unsigned)take(&in, 1);
	uint64_t a = take(&in, 4), b = take(&in, 8);
	struct clear_op op = { .kind = OP_CLEAR };

	if (mode % 8 == 7) {
		bad_call(mode / 8, a, b);
		return 0;
	}
	if (mode % 8 < 4) {
		op.start = a % (r->len + 1);
		op.len = b % (r->len - op.start + 1);
	} else {
		size_t pages = r->len / PG, first = a % (pages + 1);
		op.kind = (enum clear_kind)(OP_PAGES + mode % 8 - 4);
		op.start = first * PG;
		op.len = b % (pages - first + 1) * PG;
	}
	expect_cleared(&op);
	return 0;
}
