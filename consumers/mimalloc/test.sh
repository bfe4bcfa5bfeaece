#!/bin/sh
# SPDX-License-Identifier: MIT
# consumers/mimalloc/test.sh ARCH OUTDIR [RUNNER...]
# mimalloc's own tests (test-api, test-api-fill, test-stress) and calloc-check.c against the
# patched build in OUTDIR (build.sh), through RUNNER (e.g. qemu-aarch64) when given; then nm
# must show the patched library calling into clearpages (and the stock one not). test-stress is kept short
# under emulation: its arguments are threads, scale (% load per thread), iterations.
set -u
[ $# -ge 2 ] || { echo "usage: $0 ARCH OUTDIR [RUNNER...]" >&2; exit 2; }
arch=$1 out=$2; shift 2
start=$(date +%s)
fail=0
die() { echo "test-consumer-mimalloc: $arch: FAIL: $*"; fail=1; }
if [ $# -gt 0 ]; then stress_args="4 10 4"; else stress_args="8 50 10"; fi
NM="nm"
[ "$arch" = arm64 ] && [ "$(uname -m)" != aarch64 ] && NM=aarch64-linux-gnu-nm

# calloc-check twice: the second time with an arena, where a freed huge block is reused (dirty);
# --expect-discard: a reused block mostly not resident must have been discarded, not stored
for t in api api-fill "stress $stress_args" calloc-check calloc-check-arena; do
	bin=$out/patched/mimalloc-test-${t%% *}
	case $t in calloc-check*) bin=$out/patched/calloc-check ;; esac
	arena=; [ "$t" = calloc-check-arena ] && arena=512MiB
	args=${t#"${t%% *}"}
	case $t in calloc-check*) args=--expect-discard ;; esac   # the patched build discards
	# shellcheck disable=SC2086
	if MIMALLOC_RESERVE_OS_MEMORY=$arena "$@" "$bin" $args >"$out/test-${t%% *}.log" 2>&1; then
		echo "test-consumer-mimalloc: $arch: $t passed"
	else
		die "$t exited $? (tail of $out/test-${t%% *}.log:)"; tail -5 "$out/test-${t%% *}.log"
	fi
done
# test-api and test-api-fill count their own failures: insist on "failed   : 0".
for t in api api-fill; do
	grep -q '^failed *: 0$' "$out/test-$t.log" || die "test-$t did not report 0 failures"
done

# The calls into clearpages: the static archive's alloc and page objects call the zeroing of
# reused blocks (_mi_os_zero_reused), its os object cp_zero; cp_zero linked (and kept private)
# in the shared library; none of it in the stock build.
calls=$($NM -A "$out/patched/libmimalloc.a" 2>/dev/null | grep -c ' U _mi_os_zero_reused$')
[ "$calls" -eq 2 ] || die "patched libmimalloc.a: $calls objects zero through _mi_os_zero_reused (want alloc.c.o and page.c.o)"
$NM -A "$out/patched/libmimalloc.a" 2>/dev/null | grep -q 'os\.c\.o: *U cp_zero$' ||
	die "patched libmimalloc.a: os.c.o does not call cp_zero"
$NM "$out/patched/libmimalloc.so" | grep -q ' [tT] cp_zero$' || die "patched libmimalloc.so holds no cp_zero"
$NM -D "$out/patched/libmimalloc.so" | grep -q ' cp_' && die "patched libmimalloc.so exports cp_ symbols"
$NM "$out/stock/libmimalloc.so" | grep -q ' cp_' && die "stock libmimalloc.so mentions cp_ symbols"
[ $fail -eq 0 ] && echo "test-consumer-mimalloc: $arch: nm: alloc.c.o and page.c.o zero through os.c.o's cp_zero; stock has none"

echo "test-consumer-mimalloc: $arch: $( [ $fail -eq 0 ] && echo passed || echo FAILED ) in $(( $(date +%s) - start )) s"
exit $fail
