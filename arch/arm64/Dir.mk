# SPDX-License-Identifier: MIT
# arm64: GNU as kernels (*.S through gcc), cross-built on an x86_64 host with
# aarch64-linux-gnu-gcc, or native on an arm64 host.
# Test tools for the cross case (scripts/arm64-deps.sh, `make deps`) live in
# .deps/arm64/ (ignored by git): qemu-user 10 and a private sysroot holding
# Criterion's arm64 libraries (link with -L/-rpath-link, run with QEMU_LD_PREFIX).
ARM64_COMMA   := ,
ARM64_DEPS    ?= .deps/arm64
ARM64_SYSROOT ?= $(ARM64_DEPS)/sysroot
ARM64_QEMU10  := $(ARM64_DEPS)/qemu/usr/bin/qemu-aarch64
# The newest qemu we have: 10 (FEAT_MOPS) from `make deps`, else Debian's.
QEMU_AARCH64  ?= $(if $(wildcard $(ARM64_QEMU10)),$(abspath $(ARM64_QEMU10)),qemu-aarch64)

ifeq ($(HOST_ARCH),arm64)
CROSS ?=
RUN :=
else
CROSS ?= aarch64-linux-gnu-
ARM64_LIBDIRS := $(ARM64_SYSROOT)/usr/lib/aarch64-linux-gnu $(ARM64_SYSROOT)/lib/aarch64-linux-gnu
CRIT_CFLAGS := -isystem $(ARM64_SYSROOT)/usr/include
CRIT_LIBS   := -L$(ARM64_SYSROOT)/usr/lib/aarch64-linux-gnu \
               $(patsubst %,-Wl$(ARM64_COMMA)-rpath-link$(ARM64_COMMA)%,$(ARM64_LIBDIRS)) -lcriterion
# Under qemu-user through binfmt_misc (Criterion's workers re-exec the binary):
# scripts/arm64-binfmt.sh registers the aarch64 entry when root and none exists.
# For the CPU-model matrix, see tests/Dir.mk.
RUN := env QEMU_LD_PREFIX=$(abspath $(ARM64_SYSROOT)) CP_TEST_QUICK=1 \
       QEMU_AARCH64=$(QEMU_AARCH64) scripts/arm64-binfmt.sh run
endif
CC   := $(CROSS)gcc
CXX  := $(CROSS)g++
AR   := $(CROSS)ar
LD   := $(CROSS)ld
# BTI landing pads and PAC in the C objects too, or the property note is lost;
# and atomics inline (LL/SC, every ARMv8.0 core): gcc's default calls libgcc's
# __aarch64_* helpers, whose objects carry no BTI property and strip the .so's.
ARCH_CFLAGS := -mbranch-protection=standard -mno-outline-atomics
KERNELS := $(shell sed -n 's/^CP_KERNEL.\([a-z0-9_]*\),.*/\1/p' arch/$(ARCH)/kernels.def)
# Copy kernels: arch/$(ARCH)/copy_NAME.* from copy_kernels.def.
KERNELS += $(shell sed -n 's/^CP_COPY_KERNEL.\([a-z0-9_]*\),.*/copy_\1/p' arch/$(ARCH)/copy_kernels.def)
DEPS_PKGS += gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu
DEPS_TEST_PKGS += qemu-user

$(BUILD)/kernels/%.o: arch/arm64/%.S arch/arm64/cp_arm64.h | $(BUILD)/kernels
	$(CC) $(ARCH_CFLAGS) -g -Wa,--fatal-warnings -c -o $@ $<
