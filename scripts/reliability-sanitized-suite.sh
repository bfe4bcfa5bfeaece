#!/bin/sh
# SPDX-License-Identifier: MIT
# The Criterion suite under a checker, zero reports required:
#   scripts/reliability-sanitized-suite.sh asan BINARY LOGDIR
#   scripts/reliability-sanitized-suite.sh valgrind BINARY LOGDIR
# Criterion re-execs its workers, so valgrind follows children and writes one
# log per process; ASan/UBSan abort the worker on the first report (Criterion
# then counts a crash) and write to LOGDIR/asan.<pid> as well. The skipped
# tests and their reasons: tests/skip-summary.sh, from LOGDIR/suite.tap.
set -u
mode=$1 bin=$2 logdir=$3
rm -rf "$logdir"
mkdir -p "$logdir"
case $mode in
asan)
	ASAN_OPTIONS="log_path=$logdir/asan:detect_leaks=1:abort_on_error=1" \
	UBSAN_OPTIONS="log_path=$logdir/ubsan:print_stacktrace=1:halt_on_error=1" \
		timeout -k 10 600 "$bin" --jobs=2 --timeout=120 --tap="$logdir/suite.tap" \
			>"$logdir/suite.log" 2>&1
	rc=$?
	;;
valgrind)
	# valgrind 3.19 decodes neither clzero (AMD hosts) nor AVX-512: mask
	# both. CP_TEST_QUICK: the suite's sizes for slow execution, as under qemu.
	CLEARPAGES_DISABLE=clzero,avx512 CP_TEST_QUICK=1 \
	timeout -k 10 900 valgrind --trace-children=yes --error-exitcode=97 --track-fds=no \
		--suppressions=tests/valgrind.supp --log-file="$logdir/valgrind.%p" \
		"$bin" --jobs=2 --timeout=300 --tap="$logdir/suite.tap" >"$logdir/suite.log" 2>&1
	rc=$?
	;;
*)
	echo "usage: $0 asan|valgrind BINARY LOGDIR" >&2
	exit 2
	;;
esac
tail -n 1 "$logdir/suite.log"
tests/skip-summary.sh "$mode" "$logdir/suite.tap" || rc=1
reports=$(grep -l 'ERROR SUMMARY: [1-9]\|ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|runtime error:\|unhandled instruction\|Illegal opcode' \
	"$logdir"/* 2>/dev/null | grep -v '/suite\.')
if [ $rc -ne 0 ] || [ -n "$reports" ] || ! grep -q 'Failing: 0 | Crashing: 0' "$logdir/suite.log"; then
	echo "$mode: FAILED (exit $rc); reports in: ${reports:-none}"
	grep -v '^\[PASS\]\|^\[RUN \]' "$logdir/suite.log" | tail -40
	for f in $reports; do echo "--- $f"; head -60 "$f"; done
	exit 1
fi
echo "$mode: zero reports ($(ls "$logdir" | grep -c -v '^suite\.') process logs checked)"
