#!/bin/sh
# SPDX-License-Identifier: MIT
# The ThreadSanitizer drivers, zero reports required:
#   scripts/reliability-tsan.sh DIR ROUNDS STRESS_SECONDS
# DIR holds cp_tsan, cp_stress and fs_race built with -fsanitize=thread; logs go to
# DIR/logs (one tsan.<pid> per process that reported).
set -u
dir=$1 rounds=$2 seconds=$3
logs=$dir/logs
rm -rf "$logs"
mkdir -p "$logs"
export TSAN_OPTIONS="log_path=$logs/tsan halt_on_error=1 exitcode=66 second_deadlock_stack=1"
status=0
run() {
	name=$1
	shift
	timeout -k 10 300 "$@" >"$logs/$name.log" 2>&1
	rc=$?
	echo "$name: $(tail -n 1 "$logs/$name.log")"
	[ $rc -eq 0 ] || { echo "$name: FAILED (exit $rc)"; grep -v '^PASS' "$logs/$name.log" | tail -20; status=1; }
}
run cp_tsan "$dir/cp_tsan" "$rounds"
run cp_stress "$dir/cp_stress" "$seconds" 2
run fs_race "$dir/fs_race" 30
reports=$(ls "$logs"/tsan.* 2>/dev/null)
if [ -n "$reports" ]; then
	status=1
	for f in $reports; do echo "--- $f"; head -60 "$f"; done
fi
[ $status -eq 0 ] && echo "tsan: no report" || echo "tsan: FAILED"
exit $status
