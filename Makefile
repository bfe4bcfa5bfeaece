# SPDX-License-Identifier: MIT
# clearpages — one Makefile for the library itself; per-arch settings in
# arch/<arch>/Dir.mk, and each directory with targets of its own (bench/,
# common/, examples/, tests/, ...) adds them in its Dir.mk. `make help` lists them.
#
#   make [ARCH=x86_64|arm64]   build everything into build/<arch>/
#   make test                  native suite, then every registered test step
#   make bench                 the main job: clearbench sweep (build/<arch>/bench/)
#   make deps / deps-test      install what the main job / the tests need (apt-get as root)
#   make clean

HOST_ARCH := $(shell uname -m | sed -e 's/aarch64/arm64/')
ARCH ?= $(HOST_ARCH)
ifeq ($(filter $(ARCH),x86_64 arm64),)
$(error ARCH must be x86_64 or arm64, not '$(ARCH)')
endif

BUILD := build/$(ARCH)
OBJ   := $(BUILD)/obj

# Steps of `make test`, run in this order; fragments append theirs. A step
# still running after STEP_TIMEOUT seconds is killed and fails: a hang must
# not eat CI's 90 minutes (the slowest step takes about 70 s here).
STEP_TIMEOUT ?= 900
TEST_STEPS := test-native
# Debian packages: `make deps` installs what the main job (build, bench)
# needs, `make deps-test` that plus the test tools (cross toolchains, qemu,
# sanitizers, ...). Fragments append theirs; DEPS_TEST_STEPS run after.
DEPS_PKGS := make gcc libc6-dev binutils
DEPS_TEST_PKGS :=
DEPS_TEST_STEPS :=

include arch/$(ARCH)/Dir.mk

# CFLAGS, CPPFLAGS and LDFLAGS from the environment or the command line are
# honoured (debian/rules passes dpkg-buildflags' hardening flags through them).
CFLAGS   ?= -O2 -g
SYSCONFDIR ?= /etc
# CP_NO_DEPRECATED: the library and its tests call the deprecated aliases on
# purpose (include/clearpages.h); consumers get the warnings, and clearbench
# turns them back on (bench/Dir.mk).
CP_CFLAGS := -std=gnu11 -Wall -Wextra -fPIC -fvisibility=hidden -DCP_NO_DEPRECATED \
             -Iinclude -Icommon -Iarch/$(ARCH) $(ARCH_CFLAGS) \
             -DCP_SYSCONFDIR='"$(SYSCONFDIR)"'
ALL_CFLAGS = $(CP_CFLAGS) $(CPPFLAGS) $(CFLAGS)

# common/so-glue.c goes into the shared library only (common/Dir.mk).
COMMON_SRCS := $(filter-out common/so-glue.c,$(wildcard common/*.c)) arch/$(ARCH)/cpu.c
COMMON_OBJS := $(patsubst %.c,$(OBJ)/%.o,$(COMMON_SRCS))
KERNEL_OBJS := $(patsubst %,$(BUILD)/kernels/%.o,$(KERNELS))

LIB_A  := $(BUILD)/libclearpages.a
ALL_OBJ := $(BUILD)/clearpages.o

.PHONY: all lib test bench deps deps-test help clean
all: lib

lib: $(LIB_A) $(ALL_OBJ) $(KERNEL_OBJS)

# -MMD -MP: each object depends on the headers it includes, no more.
$(OBJ)/%.o: %.c | $(OBJ)/common $(OBJ)/arch/$(ARCH)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@
-include $(wildcard $(OBJ)/common/*.d $(OBJ)/arch/$(ARCH)/*.d)

$(OBJ)/common $(OBJ)/arch/$(ARCH) $(BUILD)/kernels $(BUILD)/tests $(BUILD)/bench:
	mkdir -p $@

$(LIB_A): $(COMMON_OBJS) $(KERNEL_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

# One relocatable object holding everything: the drop-in.
$(ALL_OBJ): $(COMMON_OBJS) $(KERNEL_OBJS)
	$(LD) -r -o $@ $^

# Fragments (sorted, so the order of test steps is stable).
# One fragment per directory, each adding its own targets to the same lists:
# `all`, TEST_STEPS (run by `make test` in the order they are added), DEPS_PKGS
# (main job) and DEPS_TEST_PKGS / DEPS_TEST_STEPS (`make deps-test`),
# INSTALL_FILES / INSTALL_DIRS. The order matters where a fragment's rules
# name another's variables: bench's and the freestanding object's before the
# packaging that installs them, tests/ last.
DIR_FRAGMENTS := bench/Dir.mk consumers/mimalloc/Dir.mk consumers/cuda-pinned/Dir.mk man/Dir.mk \
                 common/freestanding/Dir.mk common/Dir.mk abi/Dir.mk examples/Dir.mk \
                 packaging/Dir.mk tests/Dir.mk
include $(DIR_FRAGMENTS)

# Each step runs with CP_TEST_RUN=<id> in its environment; after it, no
# process carrying that id may remain (tests/check-leftovers.sh). Every
# Criterion run lists its skipped tests with their reasons
# (tests/skip-summary.sh) and counts them into CP_TEST_SKIPS: the last line
# but one totals them.
test:
	@skips=$(abspath $(BUILD))/test-skips; mkdir -p $(BUILD); rm -f $$skips; \
	export CP_TEST_SKIPS=$$skips; \
	status=0; for step in $(TEST_STEPS); do \
	    echo "=== make $$step"; t0=$$(date +%s); \
	    export CP_TEST_RUN="$$step-$$$$-$$t0"; \
	    timeout -k 10 $(STEP_TIMEOUT) $(MAKE) --no-print-directory ARCH=$(ARCH) $$step || \
	        { status=1; echo "=== $$step FAILED"; }; \
	    tests/check-leftovers.sh $$step || \
	        { status=1; echo "=== $$step FAILED: it left processes behind"; }; \
	    echo "=== $$step: $$(( $$(date +%s) - t0 )) s"; \
	done; \
	if [ -s $$skips ]; then echo "make test: skipped tests (each run lists them with their reasons): $$(awk '{ n = $$NF; $$NF = ""; printf "%s%s%d", s, $$0, n; s = ", " }' $$skips)"; \
	else echo "make test: no Criterion run reported its skips"; fi; \
	if [ $$status -ne 0 ]; then echo "make test: FAILED"; else echo "make test: all steps passed"; fi; \
	exit $$status

deps:
	@scripts/deps.sh $(sort $(DEPS_PKGS))

deps-test:
	@scripts/deps.sh $(sort $(DEPS_PKGS) $(DEPS_TEST_PKGS))
	@for step in $(DEPS_TEST_STEPS); do $(MAKE) --no-print-directory $$step || exit 1; done

help:
	@echo "clearpages: make [ARCH=x86_64|arm64] [TARGET]"
	@echo "  all (default)  the library, its objects, .pc and CMake files, clearbench (no test tool needed)"
	@echo "  test-bins      the Criterion test binary (test-native builds it too)"
	@echo "  bench          the main job: clearbench sweep into $(BUILD)/bench/"
	@echo "  test           every test step, in order: $(TEST_STEPS)"
	@echo "  deps           install what the main job needs (apt-get, as root)"
	@echo "  deps-test      that, plus the test tools (cross toolchain, qemu, sanitizers)"
	@echo "  examples       the C and C++ consumers, each linked three ways"
	@echo "  install / uninstall   PREFIX=$(PREFIX) DESTDIR= SYSCONFDIR=$(SYSCONFDIR)"
	@echo "  deb            Debian packages (dpkg-buildpackage -us -uc -b) into ../"
	@echo "  test-abi       abidiff of libclearpages.so against the last release (abi/$(ARCH).abi)"
	@echo "  clean          remove build/"

clean:
	rm -rf build
