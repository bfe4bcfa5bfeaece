#!/bin/sh
# SPDX-License-Identifier: MIT
# Bounded libFuzzer runs, all targets at once (one core each):
#   scripts/reliability-fuzz.sh SECONDS FUZZDIR TARGET...
# FUZZDIR holds the fuzz_<target> binaries; each run grows a working corpus
# FUZZDIR/corpus-<target> from the committed seeds in tests/fuzz/corpus/<target>
# (left untouched) and saves any crashing input as FUZZDIR/crash-*.
set -u
seconds=$1 dir=$2
shift 2
for t in "$@"; do
	mkdir -p "$dir/corpus-$t"
	"$dir/fuzz_$t" -max_total_time="$seconds" -timeout=30 -print_final_stats=1 \
		-artifact_prefix="$dir/" "$dir/corpus-$t" "tests/fuzz/corpus/$t" \
		>"$dir/fuzz_$t.log" 2>&1 &
done
wait    # the logs, not the statuses, say what happened
failed=0
for t in "$@"; do
	log="$dir/fuzz_$t.log"
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	if grep -q '^Done [0-9]* runs' "$log" && ! grep -q 'ERROR: \|^FAIL \|deadly signal' "$log"; then
		echo "fuzz_$t: ${runs:-?} runs in ${seconds} s, corpus $(ls "$dir/corpus-$t" | wc -l) inputs, no failure"
	else
		failed=1
		echo "fuzz_$t: FAILED (log $log):"
		grep -B2 -A25 'ERROR: \|^FAIL \|deadly signal' "$log" | head -60
	fi
done
exit $failed
