#!/bin/sh
# make test-bench-smoke: proof that clearbench runs -- --help, every scenario
# with --quick on tiny sizes (CSV and JSON written and non-empty), and bad
# input answered by one line on stderr and exit status 2.
# Environment: BENCH (command running clearbench, maybe through qemu), OUT (folder).
set -u
start=$(date +%s)
mkdir -p "$OUT"
# tune writes its profile under TMPDIR: keep it with the other outputs
TMPDIR=$OUT
export TMPDIR
fail=0
die() { echo "test-bench-smoke: FAIL: $*"; fail=1; }

$BENCH --help > "$OUT/help.txt" || die "--help exited $?"
# the scenario names: the lines of --help between "scenarios" and the blank line
scenarios=$(sed -n '/^scenarios/,/^$/{/^  /s/^  \([a-z0-9_]*\).*/\1/p}' "$OUT/help.txt")
[ -n "$scenarios" ] || die "--help lists no scenario"

for s in $scenarios; do
	t0=$(date +%s)
	if $BENCH "$s" --quick --sizes 4k,64k --region 8M --rounds 2 --threads 2 \
	    --csv "$OUT/$s.csv" --json "$OUT/$s.json" > "$OUT/$s.txt" 2> "$OUT/$s.err"; then
		[ -s "$OUT/$s.csv" ] && [ -s "$OUT/$s.json" ] || die "$s wrote no CSV/JSON"
		grep -q "^cpu:" "$OUT/$s.txt" || die "$s printed no header"
		echo "test-bench-smoke: $s ok ($(( $(date +%s) - t0 )) s)"
	else
		die "$s exited $? ($(cat "$OUT/$s.err"))"
	fi
done

# bad input: one line on stderr, exit 2
for args in "no-such-scenario" "sweep --sizes 3k" "sweep --rounds 0" "sweep --kernel nope" \
	    "sweep --bogus"; do
	$BENCH $args > /dev/null 2> "$OUT/bad.err"
	rc=$?
	lines=$(wc -l < "$OUT/bad.err")
	[ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] ||
		die "'$args' gave exit $rc and $lines stderr lines (want 2 and 1)"
done

echo "test-bench-smoke: $( [ $fail -eq 0 ] && echo passed || echo FAILED ) in $(( $(date +%s) - start )) s"
exit $fail
