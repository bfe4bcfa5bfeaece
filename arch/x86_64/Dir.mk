# SPDX-License-Identifier: MIT
# x86_64: NASM kernels, gcc for C. Native on an x86_64 host.
CROSS ?=
CC   := $(CROSS)gcc
CXX  := $(CROSS)g++
AR   := $(CROSS)ar
LD   := $(CROSS)ld
NASM ?= nasm
# Without -fcf-protection=full Debian's gcc 12 emits no IBT/SHSTK property, and one
# object without it strips the property from the whole clearpages.o.
ARCH_CFLAGS := -fcf-protection=full
KERNELS := $(shell sed -n 's/^CP_KERNEL.\([a-z0-9_]*\),.*/\1/p' arch/$(ARCH)/kernels.def)
# Copy kernels: arch/$(ARCH)/copy_NAME.* from copy_kernels.def.
KERNELS += $(shell sed -n 's/^CP_COPY_KERNEL.\([a-z0-9_]*\),.*/copy_\1/p' arch/$(ARCH)/copy_kernels.def)
RUN :=
DEPS_PKGS += nasm

$(BUILD)/kernels/%.o: arch/x86_64/%.asm arch/x86_64/cp_x86_64.inc | $(BUILD)/kernels
	$(NASM) -f elf64 -Werror -I arch/x86_64/ -o $@ $<
