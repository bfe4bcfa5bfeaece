# SPDX-License-Identifier: MIT
# mimalloc as a real consumer (consumers/mimalloc/): Debian 12's mimalloc 2.0.9, fetched into
# .deps/mimalloc/ with a scratch apt configuration, patched to zero blocks of 64 KiB or more
# through clearpages (the drop-in clearpages.o linked in; a reused block of 4 MiB or more that
# is mostly not resident by cp_zero's discard), built with its own CMake.
#   make consumer-mimalloc        stock, patched and fresh-zero-alone builds in
#                                 $(BUILD)/mimalloc/{stock,patched,patched-fresh}
#   make test-consumer-mimalloc   mimalloc's tests + calloc-check on the patched build and the
#                                 nm check; natively, then (x86_64 host) arm64 under qemu-aarch64
# clearbench calloc measures glibc (and jemalloc) against the builds (in $(BUILD)/mimalloc).
MIMALLOC_OUT := $(BUILD)/mimalloc
# libjemalloc2: clearbench calloc's loop rows add Debian's jemalloc where it is installed
DEPS_TEST_PKGS += cmake dpkg-dev patch libjemalloc2
TEST_STEPS += test-consumer-mimalloc

ifeq ($(ARCH),$(HOST_ARCH))
MIMALLOC_RUN :=
else
# the cross libc of gcc-aarch64-linux-gnu is a whole arm64 root for qemu
MIMALLOC_RUN := env QEMU_LD_PREFIX=/usr/aarch64-linux-gnu $(QEMU_AARCH64)
endif

.PHONY: consumer-mimalloc test-consumer-mimalloc
consumer-mimalloc: $(ALL_OBJ)
	@CC="$(CC)" consumers/mimalloc/build.sh $(ARCH) $(ALL_OBJ) $(MIMALLOC_OUT)

# Whole step, fetch and builds included: about 2 min on 2 cores (native + arm64).
test-consumer-mimalloc: $(ALL_OBJ)
	@start=$$(date +%s); \
	$(MAKE) --no-print-directory consumer-mimalloc && \
	consumers/mimalloc/test.sh $(ARCH) $(MIMALLOC_OUT) $(MIMALLOC_RUN); rc=$$?; \
	echo "test-consumer-mimalloc: $(ARCH) build + tests took $$(( $$(date +%s) - start )) s"; \
	exit $$rc
ifeq ($(HOST_ARCH)-$(ARCH),x86_64-x86_64)
	@$(MAKE) --no-print-directory ARCH=arm64 test-consumer-mimalloc
endif

# The bench smoke runs every scenario, calloc included: it needs both builds.
test-bench-smoke: consumer-mimalloc
