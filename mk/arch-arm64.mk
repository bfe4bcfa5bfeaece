# arm64: GNU as kernels (*.S through gcc), cross-built on an x86_64 host.
ifeq ($(HOST_ARCH),arm64)
CROSS ?=
RUN :=
else
CROSS ?= aarch64-linux-gnu-
# Binaries run under qemu-aarch64 (see mk/arm64-matrix.mk for the CPU models).
RUN := $(QEMU_AARCH64) -L /usr/aarch64-linux-gnu
endif
QEMU_AARCH64 ?= qemu-aarch64
CC   := $(CROSS)gcc
CXX  := $(CROSS)g++
AR   := $(CROSS)ar
LD   := $(CROSS)ld
# BTI landing pads and PAC in the C objects too, or the property note is lost.
ARCH_CFLAGS := -mbranch-protection=standard
KERNELS := stp stp_q stnp dc_zva sve mops mops_nt
DEPS_PKGS += gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu qemu-user

$(BUILD)/kernels/%.o: arch/arm64/%.S arch/arm64/cp_arm64.h | $(BUILD)/kernels
	$(CC) $(ARCH_CFLAGS) -c -o $@ $<
