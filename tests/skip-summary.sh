#!/bin/sh
# SPDX-License-Identifier: MIT
# The skips of Criterion runs, counted and each shown with its reason:
#   tests/skip-summary.sh NAME TAP [TAP...]
# Each TAP is a report written by the suite's --tap=FILE (the label of a run
# is the file's name less .tap). Criterion's own last line ("Tested: N |
# Passing: N") leaves skipped tests out; this prints, after it:
#   NAME: 3 of 274 tests skipped
#     suite::test -- the reason it gave
# and, for several runs, each distinct test and reason once, with the runs it
# was skipped in ([all] when every run skipped it). A skip that gives no
# reason ("test was skipped": cr_skip_test() with no message, a .disabled
# test) fails: a feature this CPU lacks, or a check this host cannot judge,
# must say so. With CP_TEST_SKIPS set (make test), one line "NAME N" is
# appended there for make test's closing count.
set -u
[ $# -ge 2 ] || { echo "usage: $0 NAME TAP [TAP...]" >&2; exit 2; }
name=$1
shift
runs=$#
for tap; do
	shift
	[ -s "$tap" ] && set -- "$@" "$tap"
done
[ $# -gt 0 ] || set -- /dev/null
awk -v name="$name" -v runs=$runs '
function flush() {
	if (test == "")
		return
	key = test SUBSEP reason
	if (!(key in where)) {
		order[++nkeys] = key
		where[key] = label
	} else
		where[key] = where[key] ", " label
	count[key]++
	if (reason == "" || reason == "test was skipped")
		noreason++
	skips++
	test = ""
}
FNR == 1 && FILENAME != "/dev/null" {
	flush()
	label = FILENAME
	sub(/.*\//, "", label)
	sub(/\.tap$/, "", label)
	files++
}
/^1\.\.[0-9]+$/ { total += substr($0, 4) }
/^(ok|not ok) / {
	flush()
	if ($0 ~ /^ok - .*  # SKIP/) {
		test = $0
		sub(/^ok - /, "", test)
		sub(/  # SKIP.*/, "", test)
		reason = $0
		sub(/^[^#]*  # SKIP ?/, "", reason)
	}
	next
}
/^#/ || /^  (---|\.\.\.)/ { flush(); next }
# a reason that ran over several lines (TAP prints it as it is)
test != "" { reason = reason " / " $0 }
END {
	flush()
	if (files < runs)
		printf "%s: %d of %d TAP reports missing (a run that did not finish)\n",
		       name, runs - files, runs
	printf "%s: %d of %d tests skipped%s\n", name, skips, total,
	       (files > 1 ? sprintf(" in %d runs", files) : "")
	for (i = 1; i <= nkeys; i++) {
		split(order[i], part, SUBSEP)
		r = part[2]
		if (r == "" || r == "test was skipped")
			r = "NO REASON GIVEN (cr_skip_test needs one)"
		runs_of = ""
		if (files > 1)
			runs_of = count[order[i]] == files ? " [all]" : " [" where[order[i]] "]"
		printf "  %s -- %s%s\n", part[1], r, runs_of
	}
	if (ENVIRON["CP_TEST_SKIPS"] != "")
		printf "%s %d\n", name, skips >> ENVIRON["CP_TEST_SKIPS"]
	if (noreason) {
		printf "%s: FAILED -- %d skip(s) without a reason\n", name, noreason
		exit 1
	}
}' "$@"
