# SPDX-License-Identifier: MIT
# ThreadSanitizer over the plain concurrency drivers: tests/tsan/cp_tsan
# (first-use race, parallel callers, profile loads against clears, fork loop)
# and the stress program, with the library's C files built by clang with
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

test-tsan:
	@$(REL_TIMED) $@ $(MAKE) --no-print-directory rel-tsan
rel-tsan: $(TSAN_DIR)/cp_tsan $(TSAN_DIR)/cp_stress
	scripts/reliability-tsan.sh $(TSAN_DIR) $(TSAN_ROUNDS) $(TSAN_STRESS_SECONDS)
endif
