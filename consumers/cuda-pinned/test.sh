#!/bin/sh
# SPDX-License-Identifier: MIT
# consumers/cuda-pinned/test.sh BIN
# 1. Bad input: each case exits 2 with exactly one line (stderr) and nothing on stdout.
#    These need no GPU and always run.
# 2. 256 MiB pools through BIN (with CP_ZERO_HUGE_PAGES, without, and registered
#    PORTABLE): each must exit 0, print its result line and bring every byte back.
#    No libcuda.so.1 or no device (BIN exits 77): SKIPPED with BIN's reason, and the
#    step's last line says SKIPPED, never passed; exit 0 -- unless CP_CUDA_REQUIRED=1
#    (a GPU host that must run it), where a skip fails. Anything else fails.
set -u
[ $# -eq 1 ] || { echo "usage: $0 BIN" >&2; exit 2; }
bin=$1
me=test-consumer-cuda-pinned
start=$(date +%s)
fail=0
die() { echo "$me: FAIL: $*"; fail=1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# 1. bad input
nbad=0
for args in "--size 3M" "--size 0" "--size 12X" "--size 4096G" "--size" "--bogus" \
	    "--device -1" "--device x" "extra-argument"; do
	# shellcheck disable=SC2086
	timeout 30 "$bin" $args >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -ne 2 ]; then
		die "'$args' exited $rc, not 2"
	elif [ -s "$tmp/out" ] || [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
		die "'$args': not one line on stderr alone"; cat "$tmp/out" "$tmp/err"
	fi
	nbad=$((nbad + 1))
done
[ $fail -eq 0 ] && echo "$me: bad input: $nbad cases exit 2 with one line ($(head -c 70 "$tmp/err")...)"

# 2. the pool on the GPU, or a loud skip
skipped=
for args in "" "--no-huge-pages" "--portable --no-hostalloc"; do
	# shellcheck disable=SC2086
	timeout 300 "$bin" --size 256M $args >"$tmp/out" 2>&1
	rc=$?
	if [ $rc -eq 77 ]; then
		skipped=$(sed -n 's/^pinned-pool: SKIP: //p' "$tmp/out" | head -1)
		[ -n "$skipped" ] || skipped="exit 77 without its SKIP line: $(head -1 "$tmp/out")"
		break
	elif [ $rc -ne 0 ]; then
		die "--size 256M $args exited $rc:"; sed 's/^/  /' "$tmp/out"
	elif ! grep -q '^result: ' "$tmp/out" || ! grep -q 'every byte came back' "$tmp/out"; then
		die "--size 256M $args: no result line or no round trip:"; sed 's/^/  /' "$tmp/out"
	else
		echo "$me: --size 256M $args:"; sed 's/^/  /' "$tmp/out"
	fi
done

if [ -n "$skipped" ]; then
	echo "$me: SKIPPED -- $skipped"
	echo "$me: SKIPPED -- no GPU run here (bad input checked: $( [ $fail -eq 0 ] && echo passed || echo FAILED ))"
	if [ "${CP_CUDA_REQUIRED:-0}" = 1 ]; then
		echo "$me: FAILED (CP_CUDA_REQUIRED=1: this host must run the pool on its GPU)"
		exit 1
	fi
	exit $fail
fi
echo "$me: $( [ $fail -eq 0 ] && echo passed || echo FAILED ) in $(( $(date +%s) - start )) s"
exit $fail
