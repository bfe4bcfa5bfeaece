# SPDX-License-Identifier: MIT
# clearpages-freestanding.o: the kernels, detection, the built-in policy and the
# checked calls as one relocatable object for kernels, unikernels and
# hypervisors: no libc, no threads, no TLS, no environment, no files, no output.
# Its undefined symbols are at most memset/memcpy/memmove.
#
#   make test-freestanding [ARCH=...]   ELF checks, then the -nostdlib program
#                                        natively / on every emulated model
.PHONY: test-freestanding test-freestanding-arm64

FS_OBJ    := $(BUILD)/clearpages-freestanding.o
FS_OBJDIR := $(BUILD)/obj-freestanding
# The libc-free part of common/ (init.c, parallel.c and the profile files stay
# out), with common/freestanding/init.c in place of common/init.c.
FS_SRCS   := common/registry.c common/select.c common/builtin.c common/decide.c common/api.c \
             common/huge.c common/copy.c common/copy_bands.c common/residency.c common/history.c arch/$(ARCH)/cpu.c \
             common/freestanding/init.c
FS_OBJS   := $(patsubst %.c,$(FS_OBJDIR)/%.o,$(FS_SRCS))
# -ffreestanding: no libc assumed (and -fno-builtin: a memset call stays a call
# to the consumer's memset); -mgeneral-regs-only: the C parts never touch
# vector registers (a kernel's C code may not), only a kernel that needs them
# does; -fPIC with hidden internals (the prelude): PC-relative, no GOT, so it
# links at any address, into a static image, a PIE or a shared object.
# ARCH_CFLAGS: the IBT/SHSTK or BTI/PAC property, as every other object.
FS_CFLAGS := -std=gnu11 -Wall -Wextra -ffreestanding -fno-stack-protector \
             -mgeneral-regs-only -fPIC -fvisibility=hidden -ftls-model=local-exec \
             -DCLEARPAGES_FREESTANDING -DCP_NO_DEPRECATED -include common/freestanding/prelude.h \
             -Iinclude -Icommon -Iarch/$(ARCH) $(ARCH_CFLAGS)
# gcc's arm64 default calls libgcc's __aarch64_cas4_* for atomics (picked by
# HWCAP at run time); inline LL/SC instead, which every ARMv8.0 core runs.
ifeq ($(ARCH),arm64)
FS_CFLAGS += -mno-outline-atomics
endif

lib: $(FS_OBJ)

# CFLAGS may carry a stack protector (dpkg-buildflags' -fstack-protector-strong):
# it would call libc's __stack_chk_fail, so it is turned off again after them.
# CPPFLAGS (-D_FORTIFY_SOURCE: __memset_chk & co) are not passed at all.
$(FS_OBJDIR)/%.o: %.c common/freestanding/prelude.h
	@mkdir -p $(@D)
	$(CC) $(FS_CFLAGS) $(CFLAGS) -fno-stack-protector -MMD -MP -c $< -o $@
-include $(patsubst %.o,%.d,$(FS_OBJS))

$(FS_OBJ): $(FS_OBJS) $(KERNEL_OBJS)
	$(LD) -r -o $@ $^

# --- the test: tests/freestanding/run.sh checks the object and runs the
# program natively (or under qemu for a cross build) and on every model.
FS_TEST_DIR := $(BUILD)/freestanding
FS_PROG     := $(FS_TEST_DIR)/fs_check
FS_HOSTED   := $(FS_TEST_DIR)/hosted_report
# The program's own code: -fno-tree-loop-distribute-patterns, or its memset
# loop would become a call to memset itself.
FS_PROG_CFLAGS := -std=gnu11 -O2 -Wall -Wextra -Werror -ffreestanding -fno-builtin \
                  -fno-tree-loop-distribute-patterns -fno-stack-protector -fno-pie \
                  -DCLEARPAGES_FREESTANDING -Iinclude $(ARCH_CFLAGS)
FS_PROG_SRCS := tests/freestanding/fs_check.c

$(FS_PROG): $(FS_PROG_SRCS) tests/freestanding/sys.h tests/freestanding/report.h $(FS_OBJ)
	@mkdir -p $(@D)
	$(CC) $(FS_PROG_CFLAGS) -nostdlib -static -no-pie -o $@ $(FS_PROG_SRCS) $(FS_OBJ)

# The hosted library's view of the same CPU, printed the same way (report.h);
# static, so it runs under qemu without a sysroot.
$(FS_HOSTED): tests/freestanding/hosted_report.c tests/freestanding/report.h $(LIB_A)
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -Iinclude $(ARCH_CFLAGS) -static \
	    -o $@ $< $(LIB_A) -pthread

# The first use raced (tests/freestanding/fs_race.c): a hosted program, static
# like the one above, linking only the freestanding object.
FS_RACE := $(FS_TEST_DIR)/fs_race
FS_RACE_PROCESSES ?= $(if $(filter $(ARCH),$(HOST_ARCH)),150,40)
$(FS_RACE): tests/freestanding/fs_race.c tests/freestanding/report.h $(FS_OBJ)
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -Iinclude -DCLEARPAGES_FREESTANDING $(ARCH_CFLAGS) \
	    -static -pthread -o $@ $< $(FS_OBJ)

test-freestanding: $(FS_OBJ) $(FS_PROG) $(FS_HOSTED) $(FS_RACE)
	QEMU_AARCH64="$(QEMU_AARCH64)" tests/freestanding/run.sh $(ARCH) $(FS_OBJ) $(FS_PROG) $(FS_HOSTED) $(FS_TEST_DIR)/logs
	$(if $(filter $(ARCH),$(HOST_ARCH)),,$(QEMU_AARCH64) )$(FS_RACE) $(FS_RACE_PROCESSES)

TEST_STEPS += test-freestanding
ifeq ($(HOST_ARCH)$(ARCH),x86_64x86_64)
TEST_STEPS += test-freestanding-arm64
endif
# The cross build's object, program and models (qemu-user, no binfmt needed:
# both programs are static and re-exec nothing).
test-freestanding-arm64:
	@if ! command -v aarch64-linux-gnu-gcc >/dev/null; then \
	    echo "SKIPPED: $@: aarch64-linux-gnu-gcc missing (make deps)"; \
	else \
	    $(MAKE) --no-print-directory ARCH=arm64 test-freestanding; \
	fi
