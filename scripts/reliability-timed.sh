#!/bin/sh
# SPDX-License-Identifier: MIT
# Run a command, then print how long it took: "NAME: N.N s" (and FAILED).
#   scripts/reliability-timed.sh NAME COMMAND [ARG...]
name=$1
shift
start=$(date +%s.%N)
"$@"
rc=$?
awk -v n="$name" -v s="$start" -v e="$(date +%s.%N)" -v rc="$rc" \
    'BEGIN { printf "%s: %.1f s%s\n", n, e - s, rc ? " (FAILED)" : "" }'
exit $rc
