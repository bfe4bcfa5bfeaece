#!/bin/sh
# SPDX-License-Identifier: MIT
# consumers/mimalloc/preload-bench.sh [OUTDIR] [RUNS]
# An unmodified Debian program zeroing large buffers through calloc -- python3's bytes(n)
# callocs n bytes -- timed with glibc, stock mimalloc and clearpages-patched mimalloc
# LD_PRELOADed (OUTDIR from build.sh, default build/<arch>/mimalloc). RUNS runs each
# (default 7), interleaved, under flock /tmp/clearpages-bench.lock; prints medians and
# min-max in seconds and the patched/stock ratio of the medians.
set -eu
# one benchmark at a time on this machine: the whole run holds the lock
if [ -z "${CP_BENCH_LOCKED:-}" ]; then
	CP_BENCH_LOCKED=1 exec flock /tmp/clearpages-bench.lock "$0" "$@"
fi
cd "$(dirname "$0")/../.."
out=${1:-build/$(uname -m | sed 's/aarch64/arm64/')/mimalloc}
runs=${2:-7}
prog=${CP_PRELOAD_PROG:-'for _ in range(8): b = bytes(1 << 30); b = None'}
for v in stock patched; do
	[ -e "$out/$v/libmimalloc.so" ] || { echo "preload-bench: no $out/$v/libmimalloc.so (make consumer-mimalloc)" >&2; exit 2; }
done
stock=$(realpath "$out/stock/libmimalloc.so") patched=$(realpath "$out/patched/libmimalloc.so")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

one() {  # NAME PRELOAD: append one run's wall seconds to $tmp/NAME
	t0=$(date +%s.%N)
	LD_PRELOAD=$2 python3 -c "$prog"
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }' >>"$tmp/$1"
}
echo "preload-bench: python3 -c '$prog', $runs runs each, interleaved (order reversed every other run)"
i=0
while [ $i -lt "$runs" ]; do
	if [ $((i % 2)) -eq 0 ]; then one glibc ""; one stock "$stock"; one patched "$patched"
	else one patched "$patched"; one stock "$stock"; one glibc ""; fi
	i=$((i + 1))
done
med() { sort -g "$tmp/$1" | awk '{v[NR]=$1} END {printf "%.3f", (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
rng() { sort -g "$tmp/$1" | awk 'NR==1{a=$1} {b=$1} END {printf "%.3f-%.3f", a, b}'; }
for v in glibc stock patched; do
	printf 'preload-bench: %-8s median %s s (min-max %s)\n' "$v" "$(med $v)" "$(rng $v)"
done
awk -v p="$(med patched)" -v s="$(med stock)" 'BEGIN { printf "preload-bench: patched/stock time %.3f\n", p / s }'
