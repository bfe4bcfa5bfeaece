# clearpages — one Makefile; per-arch settings in mk/arch-<arch>.mk, and each
# area (tests, bench, packaging, ...) adds its rules in mk/<area>.mk.
#
#   make [ARCH=x86_64|arm64]   build everything into build/<arch>/
#   make test                  native suite, then every registered test step
#   make bench                 the main job: clearbench sweep (build/<arch>/bench/)
#   make deps                  install what is missing (apt-get as root)
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
# Debian packages `make deps` installs; fragments append theirs.
DEPS_PKGS := make gcc libc6-dev pkg-config libcriterion-dev
DEPS_STEPS :=

include mk/arch-$(ARCH).mk

CFLAGS   ?= -O2 -g
SYSCONFDIR ?= /etc
CP_CFLAGS := -std=gnu11 -Wall -Wextra -fPIC -fvisibility=hidden \
             -Iinclude -Icommon -Iarch/$(ARCH) $(ARCH_CFLAGS) \
             -DCP_SYSCONFDIR='"$(SYSCONFDIR)"'
ALL_CFLAGS = $(CP_CFLAGS) $(CFLAGS)

COMMON_SRCS := $(wildcard common/*.c) arch/$(ARCH)/cpu.c
COMMON_OBJS := $(patsubst %.c,$(OBJ)/%.o,$(COMMON_SRCS))
KERNEL_OBJS := $(patsubst %,$(BUILD)/kernels/%.o,$(KERNELS))

LIB_A  := $(BUILD)/libclearpages.a
ALL_OBJ := $(BUILD)/clearpages.o

.PHONY: all lib test bench deps clean
all: lib

lib: $(LIB_A) $(ALL_OBJ) $(KERNEL_OBJS)

$(OBJ)/%.o: %.c $(wildcard include/*.h common/*.h common/*.def) arch/$(ARCH)/kernels.def | $(OBJ)/common $(OBJ)/arch/$(ARCH)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(OBJ)/common $(OBJ)/arch/$(ARCH) $(BUILD)/kernels $(BUILD)/tests $(BUILD)/bench:
	mkdir -p $@

$(LIB_A): $(COMMON_OBJS) $(KERNEL_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

# One relocatable object holding everything: the drop-in.
$(ALL_OBJ): $(COMMON_OBJS) $(KERNEL_OBJS)
	$(LD) -r -o $@ $^

# Fragments (sorted, so the order of test steps is stable).
include $(sort $(filter-out mk/arch-%,$(wildcard mk/*.mk)))

test:
	@status=0; for step in $(TEST_STEPS); do \
	    echo "=== make $$step"; \
	    timeout -k 10 $(STEP_TIMEOUT) $(MAKE) --no-print-directory ARCH=$(ARCH) $$step || status=1; \
	done; \
	if [ $$status -ne 0 ]; then echo "make test: FAILED"; else echo "make test: all steps passed"; fi; \
	exit $$status

deps:
	@scripts/deps.sh $(sort $(DEPS_PKGS))
	@for step in $(DEPS_STEPS); do $(MAKE) --no-print-directory $$step || exit 1; done

clean:
	rm -rf build
