# SPDX-License-Identifier: MIT
# ABI check: the built libclearpages.so against abi/<arch>.abi, the abidw
# baseline of the last release (1.0.0; how it was made: abi/README.md).
#   make test-abi [ARCH=...]   abidiff: removed or changed symbols or types fail
#   make abi-baseline          rewrite abi/$(ARCH).abi from the current build (at a release)
ABI_BASELINE := abi/$(ARCH).abi
ABIDW_FLAGS  := --no-corpus-path --no-comp-dir-path --short-locs --headers-dir include \
                --drop-private-types
DEPS_TEST_PKGS += abigail-tools

.PHONY: test-abi test-abi-arm64 abi-baseline
TEST_STEPS += test-abi
ifeq ($(HOST_ARCH)$(ARCH),x86_64x86_64)
TEST_STEPS += test-abi-arm64
endif
test-abi: $(LIB_SO) $(BUILD)/$(SONAME)
	@tests/check-abi.sh $(ABI_BASELINE) $(LIB_SO) $(CROSS)readelf

# The cross build's library against abi/arm64.abi (abidw reads aarch64 ELF).
test-abi-arm64:
	@if ! command -v aarch64-linux-gnu-gcc >/dev/null; then \
	    echo "SKIPPED: $@: aarch64-linux-gnu-gcc missing (make deps-test)"; \
	    [ -z "$$CI" ] || { echo "$@: FAILED (CI must check the arm64 ABI)"; exit 1; }; \
	else \
	    $(MAKE) --no-print-directory ARCH=arm64 test-abi; \
	fi

abi-baseline: $(LIB_SO) $(BUILD)/$(SONAME)
	abidw $(ABIDW_FLAGS) --out-file $(ABI_BASELINE) $(LIB_SO)
