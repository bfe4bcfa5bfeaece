/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: cp_clear_huge_opts over any (npages, hot, radius, batch,
 * order, kernel) inside a guard-paged region, every byte verified; what the
 * contract rejects (hot >= npages, an unknown order, a kernel without clear)
 * must give -EINVAL and write nothing.
 *
 * Input, little-endian, missing bytes 0: npages (1 byte: 0-255, wrapped to the
 * region), hot (2), radius (8), batch (2), order (1), kernel (1: 0 = NULL,
 * 255 = one with a NULL clear, else cp_kernels()[k % count]), position (1).
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct cp_kernel no_clear = { "no_clear", "test", 0, NULL };
	struct input in = { data, size };
	const struct guarded *r = fuzz_region();
	const struct cp_kernel *const *list;
	size_t nk = cp_kernels(&list), region_pages = r->len / PG;
	size_t n = (size_t)take(&in, 1) % (region_pages + 1);
	size_t hot = (size_t)take(&in, 2);
	size_t radius = (size_t)take(&in, 8);
	size_t batch = (size_t)take(&in, 2);
	unsigned order = (unsigned)take(&in, 1), kernel = (unsigned)take(&in, 1);
	size_t first = (size_t)take(&in, 1) % (region_pages - n + 1);
	struct clear_op op = {
		.kind = OP_HUGE, .start = first * PG, .len = n * PG, .hot = hot,
		.radius = radius, .batch = batch, .order = (enum cp_order)order,
		.kernel = kernel == 0 ? NULL : kernel == 255 ? &no_clear : list[kernel % nk],
	};

	if (n && (hot >= n || order > CP_ORDER_HOT_RANGE_LAST || kernel == 255)) {
		struct cp_huge_opts o = { op.order, radius, batch, op.kernel, NULL, NULL };
		expect_einval(cp_clear_huge_opts(r->mem + op.start, n, hot, &o),
			      "cp_clear_huge_opts with a rejected argument");
		return 0;
	}
	expect_cleared(&op);
	return 0;
}
