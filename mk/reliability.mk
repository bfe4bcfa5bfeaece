# SPDX-License-Identifier: MIT
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

PLAIN_HDRS := tests/models/plain.h tests/guard.h include/clearpages.h
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
$(MODELS_BIN): tests/models/cpu_identity.h
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

# The Criterion suite built by mk/test.mk's rule, into build/x86_64/asan/.
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
