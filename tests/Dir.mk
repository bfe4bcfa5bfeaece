# SPDX-License-Identifier: MIT
# The Criterion suite: every tests/test_*.c plus tests/<arch>_*.c, one binary.
# Arch fragments may override CRIT_CFLAGS / CRIT_LIBS (arm64 links a private sysroot).
CRIT_CFLAGS ?=
CRIT_LIBS   ?= -lcriterion
TEST_SRCS := $(wildcard tests/test_*.c) $(wildcard tests/$(ARCH)_*.c)
TEST_BIN  := $(BUILD)/tests/cp_tests

$(TEST_BIN): $(TEST_SRCS) tests/testutil.h tests/every_kernel.h tests/copy_pattern.h tests/zero_mem.h tests/guard.h tests/nosimd.h tests/profile_files.h tests/select_util.h tests/recorded_table.h tests/uring_min.h bench/derive.c bench/derive.h bench/stats.c bench/stats.h \
            $(LIB_A) | $(BUILD)/tests
	$(CC) $(CP_CFLAGS) $(CFLAGS) -fvisibility=default $(CRIT_CFLAGS) -Itests \
	    -o $@ $(TEST_SRCS) $(LIB_A) $(CRIT_LIBS) -lpthread -lm

# Seconds one Criterion test may run before it counts as failed (a hang).
TEST_TIMEOUT ?= 120

# Not part of `make` (all): the test steps build what they run, so a build
# needs no test tool. Criterion is a test dependency only.
DEPS_TEST_PKGS += libcriterion-dev
.PHONY: test-native test-bins
test-bins: $(TEST_BIN)
# The suite on this machine, natively (ARCH matching the host). Criterion's
# last line counts no skipped test: tests/skip-summary.sh, from the run's TAP
# report, prints how many were skipped and each one's reason (and fails a
# skip that gives none).
NATIVE_TAP := $(BUILD)/tests/native.tap
test-native: $(TEST_BIN) | $(LIB_SO)     # the suite dlopens the shared library too
	@rm -f $(NATIVE_TAP)
	$(RUN) $(TEST_BIN) --jobs=2 --timeout=$(TEST_TIMEOUT) --tap=$(NATIVE_TAP); rc=$$?; \
	    tests/skip-summary.sh test-native $(NATIVE_TAP) || rc=1; exit $$rc

# `make` with gcc, make and nasm alone: a scratch PATH holding only those (and
# binutils, sed, coreutils), Criterion's headers and libraries hidden in a
# private mount namespace; the Criterion suite must then fail to build there
# (the control). Natively only (the tools checked are this host's). About 4 s.
ifeq ($(ARCH),$(HOST_ARCH))
TEST_STEPS += test-deps-missing
endif
.PHONY: test-deps-missing
test-deps-missing:
	@tests/check-deps-missing.sh $(abspath $(BUILD)/deps-missing) $(ARCH)

# The C objects reference each other one way only (tests/check-graph.sh).
TEST_STEPS += test-graph
.PHONY: test-graph
test-graph: $(COMMON_OBJS) $(BENCH_OBJS)
	tests/check-graph.sh $(CROSS)nm $(COMMON_OBJS)
	tests/check-graph.sh -n clearbench $(CROSS)nm $(BENCH_OBJS)

# README tables and header prototypes derived from arch/*/kernels.def; every
# relative Markdown link resolves.
TEST_STEPS += test-docs
.PHONY: test-docs
test-docs:
	@tests/check-docs.sh
	@tests/check-links.sh

# The hosted library's first use, each check in a fresh process (a plain
# program: it interposes malloc and secure_getenv): no heap at first use, and
# a fork during first use followed by a fork in the child. Native only (the
# interposition needs the dynamic libc).
FIRST_USE_BIN := $(BUILD)/first_use/first_use
$(FIRST_USE_BIN): tests/first_use/first_use.c include/clearpages.h $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(CP_CFLAGS) $(CFLAGS) -fvisibility=default -o $@ $< $(LIB_A) -lpthread
ifeq ($(ARCH),$(HOST_ARCH))
TEST_STEPS += test-first-use
endif
.PHONY: test-first-use
test-first-use: $(FIRST_USE_BIN)
	$(FIRST_USE_BIN) 5

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

# Reliability: the x86 CPU-model matrix under qemu-x86_64, libFuzzer
# targets, the Criterion suite under ASan+UBSan and under valgrind, and a
# multi-threaded stress run. Each step prints how long it took; see
# tests/README.md. The hostile-environment and signal tests are Criterion
# files (tests/test_hostile_env.c, tests/test_signal.c) run by test-native.
.PHONY: test-x86-models test-fuzz test-asan test-valgrind test-stress \
        rel-x86-models rel-fuzz rel-asan rel-valgrind rel-stress FORCE

REL_TIMED      := scripts/reliability-timed.sh
FUZZ_SECONDS   ?= 30
STRESS_SECONDS ?= $(if $(RUN),10,20)

PLAIN_HDRS := tests/models/plain.h tests/guard.h tests/copy_pattern.h include/clearpages.h
MODELS_BIN := $(BUILD)/models/cp_check
STRESS_BIN := $(BUILD)/stress/cp_stress

$(MODELS_BIN) $(STRESS_BIN): $(BUILD)/%: tests/%.c $(PLAIN_HDRS) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB_A) -lpthread

TEST_STEPS += test-stress
test-stress:
	@$(REL_TIMED) $@ $(MAKE) --no-print-directory rel-stress
rel-stress: $(STRESS_BIN)
	$(RUN) $(STRESS_BIN) $(STRESS_SECONDS)

ifeq ($(ARCH),x86_64)
TEST_STEPS += test-x86-models test-fuzz test-asan test-valgrind
DEPS_TEST_PKGS += qemu-user clang libclang-rt-14-dev valgrind

test-x86-models test-fuzz test-asan test-valgrind:
	@$(REL_TIMED) $@ $(MAKE) --no-print-directory $(@:test-%=rel-%)

# The x86 matrix (tests/models/x86_64.sh, beside its arm64 twin arm64.sh):
# expectations derived from kernels.def by tests/models/expect.awk.
$(MODELS_BIN): tests/models/cpu_identity.h tests/models/copy_checks.h tests/nosimd.h
rel-x86-models: $(MODELS_BIN)
	tests/models/x86_64.sh $(MODELS_BIN) $(BUILD)/models/logs

# The library's C files through clang with the sanitizers (the NASM kernels as
# they are) in their own build folder, by the Makefile's own rules.
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_TARGETS := clear huge profile
$(FUZZ_DIR)/libclearpages.a: FORCE
	@$(MAKE) --no-print-directory BUILD=$(FUZZ_DIR) CC=clang \
	    CFLAGS="-O1 -g $(FUZZ_SAN) -fsanitize=fuzzer-no-link" $@
$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(PLAIN_HDRS) $(FUZZ_DIR)/libclearpages.a
	clang -std=gnu11 -Wall -Wextra -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer -Iinclude -Icommon -Iarch/$(ARCH) \
	    -o $@ $< $(FUZZ_DIR)/libclearpages.a -lpthread
rel-fuzz: $(FUZZ_TARGETS:%=$(FUZZ_DIR)/fuzz_%)
	scripts/reliability-fuzz.sh $(FUZZ_SECONDS) $(FUZZ_DIR) $(FUZZ_TARGETS)

# The Criterion suite built by the rule above, into build/x86_64/asan/.
ASAN_DIR := $(BUILD)/asan
rel-asan:
	@$(MAKE) --no-print-directory BUILD=$(ASAN_DIR) \
	    CFLAGS="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all" \
	    $(ASAN_DIR)/tests/cp_tests
	scripts/reliability-sanitized-suite.sh asan $(ASAN_DIR)/tests/cp_tests $(ASAN_DIR)/logs

# cp_check first: every usable kernel under valgrind's decoder, then the suite.
# valgrind 3.19 decodes neither clzero nor AVX-512: both masked.
rel-valgrind: $(MODELS_BIN)
	CLEARPAGES_DISABLE=clzero,avx512 valgrind -q --error-exitcode=97 $(MODELS_BIN) --quick >$(BUILD)/models/valgrind.log 2>&1 && tail -n 1 $(BUILD)/models/valgrind.log || { cat $(BUILD)/models/valgrind.log; exit 1; }
	@$(MAKE) --no-print-directory $(TEST_BIN)
	scripts/reliability-sanitized-suite.sh valgrind $(TEST_BIN) $(BUILD)/valgrind
endif

# ThreadSanitizer over the plain concurrency drivers: tests/tsan/cp_tsan
# (first-use race, parallel callers, profile loads against clears, fork loop),
# the stress program and the freestanding first-use race (fs_race), with the library's C files built by clang with
# -fsanitize=thread in their own folder. Criterion's runner does not start
# under TSan, hence plain programs. Any TSan report fails the step.
.PHONY: test-tsan rel-tsan

ifeq ($(ARCH),$(HOST_ARCH))
TEST_STEPS += test-tsan
DEPS_TEST_PKGS += clang libclang-rt-14-dev

TSAN_DIR     := $(BUILD)/tsan
TSAN_FLAGS   := -O1 -g -fsanitize=thread
TSAN_ROUNDS  ?= 200
TSAN_STRESS_SECONDS ?= 5

$(TSAN_DIR)/libclearpages.a: FORCE
	@$(MAKE) --no-print-directory BUILD=$(TSAN_DIR) CC=clang CFLAGS="$(TSAN_FLAGS)" $@
$(TSAN_DIR)/cp_tsan: tests/tsan/cp_tsan.c
$(TSAN_DIR)/cp_stress: tests/stress/cp_stress.c
$(TSAN_DIR)/cp_tsan $(TSAN_DIR)/cp_stress: $(PLAIN_HDRS) common/parallel.h $(TSAN_DIR)/libclearpages.a
	clang $(CP_CFLAGS) $(TSAN_FLAGS) -o $@ $(filter %.c,$^) $(TSAN_DIR)/libclearpages.a -lpthread

# The freestanding object's first-use race (tests/freestanding/fs_race.c), its
# C files instrumented by the object's own rule in the TSan folder.
$(TSAN_DIR)/clearpages-freestanding.o: FORCE
	@$(MAKE) --no-print-directory BUILD=$(TSAN_DIR) CC=clang CFLAGS="$(TSAN_FLAGS)" $@
$(TSAN_DIR)/fs_race: tests/freestanding/fs_race.c tests/freestanding/report.h $(TSAN_DIR)/clearpages-freestanding.o
	clang -std=gnu11 -Wall -Wextra -Iinclude -DCLEARPAGES_FREESTANDING $(TSAN_FLAGS) \
	    -o $@ $< $(TSAN_DIR)/clearpages-freestanding.o -lpthread

test-tsan:
	@$(REL_TIMED) $@ $(MAKE) --no-print-directory rel-tsan
rel-tsan: $(TSAN_DIR)/cp_tsan $(TSAN_DIR)/cp_stress $(TSAN_DIR)/fs_race
	scripts/reliability-tsan.sh $(TSAN_DIR) $(TSAN_ROUNDS) $(TSAN_STRESS_SECONDS)
endif
