#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# After a test step: no process the step started may still run. `make test`
# puts CP_TEST_RUN=<id> into each step's environment; every process a test
# forks or executes inherits it. Any process other than this script and its
# caller that still carries it is a leftover: named, killed, and the step
# fails. (A test's worker abandoned by Criterion's timeout used to leave its
# forking child running for minutes.)
#   tests/check-leftovers.sh STEP
set -u
step=${1:?usage: check-leftovers.sh STEP}
run=${CP_TEST_RUN:?CP_TEST_RUN is not set: run through make test}
sleep 0.2                      # children killed with their parent take a moment
found=()
for dir in /proc/[0-9]*; do
	pid=${dir#/proc/}
	[ "$pid" = $$ ] || [ "$pid" = "$PPID" ] && continue
	# environ is readable for our own processes; gone or foreign ones are skipped
	if { tr '\0' '\n' < "$dir/environ"; } 2>/dev/null | grep -qx "CP_TEST_RUN=$run"; then
		found+=("$pid")
	fi
done
[ ${#found[@]} -eq 0 ] && exit 0
for pid in "${found[@]}"; do
	echo "check-leftovers: $step left process $pid running: $(tr '\0' ' ' < /proc/$pid/cmdline 2>/dev/null)" >&2
done
kill -KILL "${found[@]}" 2>/dev/null
exit 1
