#!/bin/sh
# SPDX-License-Identifier: MIT
# What is derived from the kernel lists stays in step with them: the README's
# kernel tables, and the raw-kernel prototypes of the public header.
set -eu
status=0
for arch in x86_64 arm64; do
	scripts/kernel-table.sh "$arch" --check README.md || status=1
	for k in $(sed -n 's/^CP_KERNEL(\([a-z0-9_]*\),.*/\1/p' "arch/$arch/kernels.def"); do
		grep -q "^void cp_${arch}_${k}(void \*addr, size_t npages);" include/clearpages.h ||
			{ echo "check-docs: include/clearpages.h lacks cp_${arch}_${k}"; status=1; }
	done
done
[ $status -eq 0 ] && echo "check-docs: kernel tables and prototypes match arch/*/kernels.def"
exit $status
