#!/bin/sh
# SPDX-License-Identifier: MIT
# consumers/mimalloc/preload-bench.sh [OUTDIR] [RUNS]
# An unmodified Debian program zeroing large buffers through calloc -- python3's bytes(n)
# callocs n bytes -- timed with glibc, stock mimalloc and clearpages-patched mimalloc (and the
# variants, when built) LD_PRELOADed (OUTDIR from build.sh, default build/<arch>/mimalloc).
# RUNS runs each (default 7), interleaved, under flock /tmp/clearpages-bench.lock; prints medians and
# min-max in seconds and the patched/stock ratio of the medians.
set -eu
# one benchmark at a time on this machine: the whole run holds the lock
if [ -z "${CP_BENCH_LOCKED:-}" ]; then
	CP_BENCH_LOCKED=1 exec flock /tmp/clearpages-bench.lock "$0" "$@"
fi
out=${1:+$(realpath "$1")}
cd "$(dirname "$0")/../.."
out=${out:-build/$(uname -m | sed 's/aarch64/arm64/')/mimalloc}
runs=${2:-7}
# bytes(n) is calloc(n); find(1) (memchr) then reads every byte of it
prog=${CP_PRELOAD_PROG:-'for _ in range(4): assert bytes(1 << 30).find(1) == -1'}
for v in stock patched; do
	[ -e "$out/$v/libmimalloc.so" ] || { echo "preload-bench: no $out/$v/libmimalloc.so (make consumer-mimalloc)" >&2; exit 2; }
done
# glibc (nothing preloaded), then each build: stock, patched and the variants built
names="glibc"
for v in stock patched patched-cponly patched-nodiscard; do
	[ -e "$out/$v/libmimalloc.so" ] && names="$names $v"
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

one() {  # NAME: append one run's wall seconds to $tmp/NAME
	lib=; [ "$1" = glibc ] || lib=$(realpath "$out/$1/libmimalloc.so")
	t0=$(date +%s.%N)
	LD_PRELOAD=$lib python3 -c "$prog"
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }' >>"$tmp/$1"
}
reversed=$(echo "$names" | tr ' ' '\n' | tac | tr '\n' ' ')
echo "preload-bench: python3 -c '$prog', $runs runs each, interleaved (order reversed every other run)"
i=0
while [ $i -lt "$runs" ]; do
	if [ $((i % 2)) -eq 0 ]; then order=$names; else order=$reversed; fi
	for v in $order; do one "$v"; done
	i=$((i + 1))
done
med() { sort -g "$tmp/$1" | awk '{v[NR]=$1} END {printf "%.3f", (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
rng() { sort -g "$tmp/$1" | awk 'NR==1{a=$1} {b=$1} END {printf "%.3f-%.3f", a, b}'; }
for v in $names; do
	printf 'preload-bench: %-15s median %s s (min-max %s)\n' "$v" "$(med "$v")" "$(rng "$v")"
done
for v in $names; do
	case $v in glibc|stock) continue ;; esac
	awk -v p="$(med "$v")" -v s="$(med stock)" -v n="$v" \
	    'BEGIN { printf "preload-bench: %s/stock time %.3f\n", n, p / s }'
done
