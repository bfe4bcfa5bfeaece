# SPDX-License-Identifier: MIT
# A pinned host memory pool for GPU transfers as a real consumer (consumers/cuda-pinned/):
# mmap + cp_zero(CP_ZERO_RESIDENT | CP_ZERO_PARALLEL [| CP_ZERO_HUGE_PAGES]) + cuMemHostRegister,
# timed against cuMemHostAlloc. The CUDA driver is loaded at run time (dlopen): it builds
# anywhere, and runs where libcuda.so.1 and a device are (else it skips, exit 77).
#   make consumer-cuda-pinned        $(BUILD)/cuda-pinned/pinned-pool, linked with the tree's
#                                    libclearpages.a
#   make test-consumer-cuda-pinned   bad input exits 2 with one line; then 256 MiB pools with
#                                    their round trip, or SKIPPED, loudly, without a GPU
# consumers/cuda-pinned/device-check.sh: the 16 GiB runs on a GPU host, results under $OUT.
CUDA_PINNED_OUT := $(BUILD)/cuda-pinned
CUDA_PINNED_BIN := $(CUDA_PINNED_OUT)/pinned-pool
TEST_STEPS += test-consumer-cuda-pinned

$(CUDA_PINNED_OUT):
	mkdir -p $@

# Built as another project would (hardened as the examples are; warnings are errors).
$(CUDA_PINNED_BIN): consumers/cuda-pinned/pinned-pool.c include/clearpages.h $(LIB_A) | $(CUDA_PINNED_OUT)
	$(CC) -std=gnu11 -Wall -Wextra -Werror -Werror=deprecated-declarations -O2 $(ARCH_CFLAGS) \
	    -Iinclude -o $@ $< $(LIB_A) -ldl -pthread

.PHONY: consumer-cuda-pinned test-consumer-cuda-pinned
consumer-cuda-pinned: $(CUDA_PINNED_BIN)

# A cross build (ARCH=arm64 on x86_64) is built, not run: no GPU under qemu.
test-consumer-cuda-pinned: $(CUDA_PINNED_BIN)
ifeq ($(ARCH),$(HOST_ARCH))
	@consumers/cuda-pinned/test.sh $(CUDA_PINNED_BIN)
else
	@echo "test-consumer-cuda-pinned: SKIPPED -- ARCH=$(ARCH) on a $(HOST_ARCH) host: built, not run (no GPU under qemu)"
endif
