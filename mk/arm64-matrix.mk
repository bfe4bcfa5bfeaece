# SPDX-License-Identifier: MIT
# The arm64 CPU-model matrix under qemu-aarch64 (tests/models/arm64.sh), run by
# `make test` on an x86_64 host after the native suite, and the deps it needs:
# the cross toolchain (Debian packages) and, in .deps/arm64/ (ignored by git),
# qemu-user 10 from bookworm-backports plus a private arm64 Criterion sysroot
# (scripts/arm64-deps.sh: scratch apt configuration, apt-get download,
# dpkg-deb -x; the system's apt sources and its qemu are left alone).
.PHONY: test-arm64-matrix deps-arm64

ifeq ($(HOST_ARCH),x86_64)
ifeq ($(ARCH),x86_64)
TEST_STEPS += test-arm64-matrix
DEPS_TEST_PKGS += gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu
endif
DEPS_TEST_STEPS += deps-arm64
endif

# Builds build/arm64/tests/cp_tests itself (ARCH=arm64), so it runs from any ARCH.
test-arm64-matrix:
	@MAKE="$(MAKE)" tests/models/arm64.sh

deps-arm64:
	@scripts/arm64-deps.sh qemu sysroot
