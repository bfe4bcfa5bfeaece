# SPDX-License-Identifier: MIT
# The Criterion suite: every tests/test_*.c plus tests/<arch>_*.c, one binary.
# Arch fragments may override CRIT_CFLAGS / CRIT_LIBS (arm64 links a private sysroot).
CRIT_CFLAGS ?=
CRIT_LIBS   ?= -lcriterion
TEST_SRCS := $(wildcard tests/test_*.c) $(wildcard tests/$(ARCH)_*.c)
TEST_BIN  := $(BUILD)/tests/cp_tests

$(TEST_BIN): $(TEST_SRCS) tests/testutil.h tests/guard.h tests/profile_files.h bench/derive.c bench/derive.h \
            $(LIB_A) | $(BUILD)/tests
	$(CC) $(CP_CFLAGS) $(CFLAGS) -fvisibility=default $(CRIT_CFLAGS) -Itests \
	    -o $@ $(TEST_SRCS) $(LIB_A) $(CRIT_LIBS) -lpthread

# Seconds one Criterion test may run before it counts as failed (a hang).
TEST_TIMEOUT ?= 120

# `make` builds the suite too; cross-built only once `make deps-test` has
# fetched the arm64 Criterion sysroot.
ifeq ($(CROSS)$(filter arm64,$(ARCH)),)
all: $(TEST_BIN)
else ifneq ($(wildcard $(ARM64_SYSROOT)/usr/include/criterion),)
all: $(TEST_BIN)
endif

.PHONY: test-native
# The suite on this machine, natively (ARCH matching the host).
test-native: $(TEST_BIN)
	$(RUN) $(TEST_BIN) --jobs=2 --timeout=$(TEST_TIMEOUT)

# The C objects reference each other one way only (tests/check-graph.sh).
TEST_STEPS += test-graph
.PHONY: test-graph
test-graph: $(COMMON_OBJS)
	tests/check-graph.sh $(CROSS)nm $(COMMON_OBJS)

# README tables and header prototypes derived from arch/*/kernels.def.
TEST_STEPS += test-docs
.PHONY: test-docs
test-docs:
	@tests/check-docs.sh
