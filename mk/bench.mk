# clearbench, the per-arch microbenchmark (the project's main job).
#   make bench [ARCH=...] [BENCH_ARGS=...]   sweep into $(BUILD)/bench/{sweep.csv,sweep.png}
BENCH_BIN  := $(BUILD)/clearbench
BENCH_SRCS := $(wildcard bench/*.c)
BENCH_DIR  := $(BUILD)/bench
DEPS_PKGS  += gnuplot-nox

# Cross-built arm64 binaries run under qemu: the benchmark says its figures
# mean nothing there, and make bench keeps the run short.
ifneq ($(ARCH),$(HOST_ARCH))
BENCH_CROSS_FLAGS := -DBENCH_CROSS_BUILT
BENCH_ARGS ?= --quick --sizes 4k,64k,2M,32M
else
BENCH_CROSS_FLAGS :=
BENCH_ARGS ?=
endif

$(BENCH_BIN): $(BENCH_SRCS) bench/clearbench.h bench/scenarios.def $(LIB_A) | $(BENCH_DIR)
	$(CC) $(CP_CFLAGS) $(CFLAGS) $(BENCH_CROSS_FLAGS) -Ibench -o $@ $(BENCH_SRCS) \
	    $(LIB_A) -lpthread -lm

.PHONY: bench bench-bin test-bench-smoke
bench-bin: $(BENCH_BIN)

all: $(BENCH_BIN)

# Builds everything first, as the README says of the main job.
bench: lib $(BENCH_BIN)
	$(RUN) $(BENCH_BIN) sweep $(BENCH_ARGS) --csv $(BENCH_DIR)/sweep.csv \
	    --plot $(BENCH_DIR)/sweep.png
	@echo "bench: wrote $(BENCH_DIR)/sweep.csv and $(BENCH_DIR)/sweep.png"

# CI proof that every scenario runs: --help, then each scenario --quick on tiny sizes.
TEST_STEPS += test-bench-smoke
test-bench-smoke: $(BENCH_BIN)
	@BENCH="$(RUN) $(BENCH_BIN)" OUT=$(BENCH_DIR)/smoke sh bench/smoke.sh
