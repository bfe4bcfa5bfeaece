#!/bin/sh
# SPDX-License-Identifier: MIT
# consumers/cuda-pinned/device-check.sh: the one prepared run on a GPU host (README.md there).
# From the repository root, with OUT naming an output folder:
#   OUT=/some/folder consumers/cuda-pinned/device-check.sh
# 1. the host (CPU, memory, THP mode, kernel, GPU) into $OUT/host.txt;
# 2. the build: gcc, make and nasm checked (a missing one is said in $OUT/summary.txt and
#    stops it), `make -j16` (if that fails, `make -j16 lib`: the consumer needs the archive
#    only), then `make consumer-cuda-pinned`; logs in $OUT/build.log;
# 3. a 1 GiB smoke run (stops here, saying why, if it fails or skips), then
#    `make test-consumer-cuda-pinned` with CP_CUDA_REQUIRED=1;
# 4. pinned-pool at 16 GiB, three times with CP_ZERO_HUGE_PAGES and three times without,
#    interleaved; each run's output in $OUT/run-<mode>-<n>.txt, the result lines and
#    the medians in $OUT/summary.txt.
# Every command runs under `timeout`; the whole stays under about 8 minutes (a run is
# about 20-30 s at 16 GiB: cuMemHostAlloc alone took 11.3 s on this host, its free 2.9 s),
# and no run starts after 5.5 minutes (those left out are named). Exit 0 when every step ran
# and passed, 1 otherwise; the summary says which.
set -u
: "${OUT:?set OUT to an output folder}"
mkdir -p "$OUT" || exit 1
cd "$(dirname "$0")/../.." || exit 1
start=$(date +%s)
budget=330                    # no 16 GiB run starts past this (each may take 120 s + 10)
size=${CP_DEVICE_CHECK_SIZE:-16G}
runs=${CP_DEVICE_CHECK_RUNS:-3}
bin=build/$(uname -m | sed -e 's/aarch64/arm64/')/cuda-pinned/pinned-pool
summary=$OUT/summary.txt
status=0
elapsed() { echo $(( $(date +%s) - start )); }
say() { echo "$*" | tee -a "$summary"; }
: >"$summary"
tree=$(git rev-parse --short HEAD 2>/dev/null) && { git diff --quiet HEAD 2>/dev/null || tree="$tree (modified)"; } || tree="? (no git)"
say "device-check (consumers/cuda-pinned): $(date -u '+%Y-%m-%d %H:%M:%S UTC'), tree $tree"

# 1. the host
{
	echo "== uname -a"; uname -a
	echo "== nproc"; nproc
	echo "== lscpu"; timeout 10 lscpu 2>&1 | grep -E '^(Model name|Thread|Core|Socket|L3|NUMA)'
	echo "== /proc/meminfo"; grep -E '^(MemTotal|MemAvailable|Hugepagesize|AnonHugePages)' /proc/meminfo
	echo "== THP enabled / defrag"
	cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag 2>&1
	echo "== nvidia-smi"
	timeout 30 nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 ||
		echo "(nvidia-smi failed or missing)"
	echo "== libcuda.so.1"; (ldconfig -p 2>/dev/null | grep 'libcuda\.so\.1') || echo "(not in ldconfig's cache)"
	echo "== tools"; for t in gcc make nasm; do printf '%s: ' $t; ($t --version 2>/dev/null || $t -v 2>/dev/null) | head -1; done
} >"$OUT/host.txt" 2>&1
say "host: $(nproc) CPUs, $(awk '/^MemAvailable/ { printf "%.0f GiB available", $2 / 1048576 }' /proc/meminfo)," \
    "THP $(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)," \
    "GPU: $(timeout 30 nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1 | grep . || echo 'none that nvidia-smi shows')"

# 2. the build
missing=
for t in gcc make nasm; do command -v $t >/dev/null 2>&1 || missing="$missing $t"; done
if [ -n "$missing" ]; then
	case $missing in *nasm*) say "BUILD: nasm is MISSING on this host: the x86_64 kernels (arch/x86_64/*.asm) cannot be assembled, so neither the library nor the consumer builds. Nothing was run." ;; esac
	say "BUILD: missing tools:$missing -- stopped after $(elapsed) s"
	exit 1
fi
{
	echo "== make -j16"
	timeout -k 10 180 make -j16 2>&1
} >"$OUT/build.log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
	say "BUILD: make -j16 exited $rc (tail of build.log below); trying make -j16 lib, all the consumer needs"
	tail -15 "$OUT/build.log" | sed 's/^/  /' | tee -a "$summary"
	status=1
	{ echo "== make -j16 lib"; timeout -k 10 120 make -j16 lib 2>&1; } >>"$OUT/build.log" 2>&1 ||
		{ say "BUILD: make -j16 lib failed too -- stopped after $(elapsed) s"; exit 1; }
fi
{ echo "== make consumer-cuda-pinned"; timeout -k 10 60 make consumer-cuda-pinned 2>&1; } >>"$OUT/build.log" 2>&1 ||
	{ say "BUILD: make consumer-cuda-pinned failed (build.log) -- stopped after $(elapsed) s"; tail -15 "$OUT/build.log" >>"$summary"; exit 1; }
say "build: library and $bin built in $(elapsed) s"

# 3. smoke run and the test step
timeout -k 10 90 "$bin" --size 1G >"$OUT/smoke-1G.txt" 2>&1
rc=$?
if [ $rc -eq 77 ]; then
	say "SKIPPED: no GPU run: $(sed -n 's/^pinned-pool: SKIP: //p' "$OUT/smoke-1G.txt" | head -1) -- stopped after $(elapsed) s"
	exit 1
elif [ $rc -ne 0 ]; then
	say "smoke run --size 1G FAILED (exit $rc; $( [ $rc -eq 124 ] || [ $rc -eq 137 ] && echo 'timed out after 90 s; ')smoke-1G.txt):"
	sed 's/^/  /' "$OUT/smoke-1G.txt" | tee -a "$summary"
	grep -q 'CP_ZERO_RESIDENT yet' "$OUT/smoke-1G.txt" &&
		say "  (this tree's cp_zero has no CP_ZERO_RESIDENT: run from a tree with main's implementation merged)"
	say "stopped after $(elapsed) s"
	exit 1
fi
say "smoke: $(grep '^result: ' "$OUT/smoke-1G.txt")"
CP_CUDA_REQUIRED=1 timeout -k 10 90 make --no-print-directory test-consumer-cuda-pinned >"$OUT/test-consumer-cuda-pinned.txt" 2>&1
rc=$?
say "make test-consumer-cuda-pinned (CP_CUDA_REQUIRED=1): exit $rc, $(tail -1 "$OUT/test-consumer-cuda-pinned.txt")"
[ $rc -eq 0 ] || status=1

# 4. the runs: huge pages and 4 KiB pages interleaved
n=1
while [ "$n" -le "$runs" ]; do
	for mode in huge nohuge; do
		if [ "$(elapsed)" -ge $budget ]; then
			say "run $mode $n: LEFT OUT, $(elapsed) s gone (budget $budget s)"
			status=1
			continue
		fi
		opt=; [ $mode = nohuge ] && opt=--no-huge-pages
		f=$OUT/run-$mode-$n.txt
		# shellcheck disable=SC2086
		timeout -k 10 120 "$bin" --size "$size" $opt >"$f" 2>&1
		rc=$?
		if [ $rc -eq 0 ] && grep -q '^result: ' "$f"; then
			say "run $mode $n: $(grep '^result: ' "$f")"
		else
			say "run $mode $n: FAILED, exit $rc$( [ $rc -eq 124 ] || [ $rc -eq 137 ] && echo ' (timed out after 120 s)'): $(tail -1 "$f")"
			status=1
		fi
	done
	n=$((n + 1))
done

# medians per mode: hostalloc_s, pool_s (mmap + cp_zero + register), zero_s, register_s, ratio
say ""
say "medians of $runs runs at $size (seconds; ratio = pool / cuMemHostAlloc):"
for mode in huge nohuge; do
	line="  $mode:"
	for key in hostalloc_s pool_s zero_s register_s ratio anon_huge_gib h2d_gbs d2h_gbs; do
		med=$(cat "$OUT"/run-$mode-*.txt 2>/dev/null | sed -n "s/^result: .* $key=\([0-9.]*\).*/\1/p" |
		      sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }')
		line="$line $key=$med"
	done
	say "$line"
done
say "reference (gpu-host-h200 probe, 16 GiB, one run): cuMemHostAlloc 11.31 s; THP + populate on 4 threads + register 1.37 s; 4 KiB populate 4 threads + register 2.84 s"
say "device-check: $( [ $status -eq 0 ] && echo 'every step ran and passed' || echo 'SOMETHING FAILED OR WAS LEFT OUT (above)') in $(elapsed) s"
exit $status
