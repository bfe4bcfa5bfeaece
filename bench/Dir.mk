# SPDX-License-Identifier: MIT
# clearbench, the per-arch microbenchmark (the project's main job).
#   make bench [ARCH=...] [BENCH_ARGS=...]   sweep (hot, cold and use targets) into
#                                            $(BUILD)/bench/{sweep.csv,sweep.png,sweep-KIND.png}
#   make bench-report [REPORT_ARGS=--quick]  every scenario into $(BUILD)/bench/report/index.html
#   make bench-libc                          Debian 13's glibc into .deps/trixie-libc (the
#                                            sweep's second memset baseline; no system change)
BENCH_BIN  := $(BUILD)/clearbench
BENCH_SRCS := $(wildcard bench/*.c)
BENCH_DIR  := $(BUILD)/bench
DEPS_PKGS  += gnuplot-nox
# Only the tests need these (the browser test renders the report, test-man
# reads the pages); `make deps-test` also fetches the second memset baseline.
DEPS_TEST_PKGS += chromium man-db
DEPS_TEST_STEPS += bench-libc

# Cross-built arm64 binaries run under qemu: the benchmark says its figures
# mean nothing there, and make bench keeps the run short (a 256 MiB pool
# for the cold and use targets: no LLC to outgrow under emulation).
ifneq ($(ARCH),$(HOST_ARCH))
BENCH_CROSS_FLAGS := -DBENCH_CROSS_BUILT
BENCH_ARGS ?= --quick --sizes 4k,64k,2M,32M --pool 256M
else
BENCH_CROSS_FLAGS :=
BENCH_ARGS ?=
endif
REPORT_ARGS ?=

# One object per module (tests/check-graph.sh reads their symbols: bench's
# modules reference each other one way only); -MMD: each depends on the
# headers it includes.
# clearbench calls the settled names only: the header's deprecation
# attribute is back on (CP_CFLAGS turns it off for the library and the
# tests), and a deprecated name is an error, as in the examples.
BENCH_OBJ  := $(BENCH_DIR)/obj
BENCH_OBJS := $(patsubst bench/%.c,$(BENCH_OBJ)/%.o,$(BENCH_SRCS))
BENCH_DEPRECATED := -UCP_NO_DEPRECATED -Werror=deprecated-declarations
$(BENCH_OBJ)/%.o: bench/%.c | $(BENCH_OBJ)
	$(CC) $(CP_CFLAGS) $(BENCH_DEPRECATED) $(CPPFLAGS) $(CFLAGS) $(BENCH_CROSS_FLAGS) -Ibench -MMD -MP -c $< -o $@
-include $(wildcard $(BENCH_OBJ)/*.d)
$(BENCH_OBJ):
	mkdir -p $@

$(BENCH_BIN): $(BENCH_OBJS) $(LIB_A) | $(BENCH_DIR)
	$(CC) $(CP_CFLAGS) $(CPPFLAGS) $(CFLAGS) $(BENCH_CROSS_FLAGS) $(LDFLAGS) -o $@ $(BENCH_OBJS) \
	    $(LIB_A) -lpthread -lm

.PHONY: bench bench-bin bench-report bench-libc test-bench-smoke test-report
bench-bin: $(BENCH_BIN)

all: $(BENCH_BIN)

# Builds everything first, as the README says of the main job.
bench: lib $(BENCH_BIN)
	$(RUN) $(BENCH_BIN) sweep $(BENCH_ARGS) --csv $(BENCH_DIR)/sweep.csv \
	    --plot $(BENCH_DIR)/sweep.png
	@echo "bench: wrote $(BENCH_DIR)/sweep.csv, $(BENCH_DIR)/sweep.png (hot) and" \
	    "sweep-hot.png, sweep-cold.png, sweep-use.png"

bench-report: $(BENCH_BIN)
	$(RUN) $(BENCH_BIN) report $(REPORT_ARGS) --out $(BENCH_DIR)/report

bench-libc:
	@sh bench/trixie-libc.sh

# CI proof that every scenario runs: --help, then each scenario --quick on tiny
# sizes, and bad input answered by one line and exit 2. calloc's mimalloc
# builds are this build's ($(BUILD)/mimalloc, consumers/mimalloc/Dir.mk), which
# clearbench looks for under build/<arch>/ only unless told.
TEST_STEPS += test-bench-smoke
test-bench-smoke: $(BENCH_BIN)
	@BENCH="$(RUN) $(BENCH_BIN)" OUT=$(BENCH_DIR)/smoke \
	    CLEARBENCH_MIMALLOC=$(abspath $(BUILD)/mimalloc) sh bench/smoke.sh

# The report rendered by headless Chromium: every image loads, no table is
# empty; screenshot in $(BUILD)/bench/test-report/report/ (15 s here).
TEST_STEPS += test-report
test-report: $(BENCH_BIN)
	@BENCH="$(RUN) $(BENCH_BIN)" OUT=$(BENCH_DIR)/test-report sh bench/report-browser-test.sh
