#!/bin/sh
# make test-bench-smoke: proof that clearbench runs -- --help, every scenario
# with --quick on tiny sizes (CSV and JSON written and non-empty), and bad
# input answered by one line on stderr and exit status 2.
# Environment: BENCH (command running clearbench, maybe through qemu), OUT (folder).
set -u
start=$(date +%s)
mkdir -p "$OUT"
# tune must leave no file behind unless --out names one: any would land here
TMPDIR=$OUT
export TMPDIR
rm -f "$OUT/tune.profile"
fail=0
die() { echo "test-bench-smoke: FAIL: $*"; fail=1; }

$BENCH --help > "$OUT/help.txt" || die "--help exited $?"
# the scenario names: the lines of --help between "scenarios" and the blank line
scenarios=$(sed -n '/^scenarios/,/^$/{/^  /s/^  \([a-z0-9_]*\).*/\1/p}' "$OUT/help.txt")
[ -n "$scenarios" ] || die "--help lists no scenario"

for s in $scenarios; do
	t0=$(date +%s)
	# tune's verify may refuse two rounds of two sizes: --force, it still says why
	extra=; [ "$s" = tune ] && extra=--force
	if $BENCH "$s" --quick --sizes 4k,64k --region 8M --rounds 2 --threads 2 $extra \
	    --csv "$OUT/$s.csv" --json "$OUT/$s.json" > "$OUT/$s.txt" 2> "$OUT/$s.err"; then
		[ -s "$OUT/$s.csv" ] && [ -s "$OUT/$s.json" ] || die "$s wrote no CSV/JSON"
		grep -q "^cpu:" "$OUT/$s.txt" || die "$s printed no header"
		echo "test-bench-smoke: $s ok ($(( $(date +%s) - t0 )) s)"
	else
		die "$s exited $? ($(cat "$OUT/$s.err"))"
	fi
done

# tune: one table per CSV file, no file left without --out, --out written whole
[ -s "$OUT/tune-verify.csv" ] || die "tune wrote no tune-verify.csv"
left=$(find "$OUT" -name '*profile*' | head -1)
[ -z "$left" ] || die "tune left $left behind without --out"
$BENCH tune --quick --sizes 4k,64k --rounds 2 --force --out "$OUT/tune.profile" \
    > "$OUT/tune-out.txt" 2>&1 || die "tune --force --out exited $?"
head -2 "$OUT/tune.profile" | grep -qx "version 2" && [ "$(tail -1 "$OUT/tune.profile")" = end ] ||
	die "tune --out wrote no whole format-2 profile"
[ -z "$(find "$OUT" -name '.tune.profile.*')" ] || die "tune --out left its temporary file"

# bad input: one line on stderr, exit 2
for args in "no-such-scenario" "sweep --sizes 3k" "sweep --rounds 0" "sweep --kernel nope" \
	    "sweep --bogus" "sweep --force" "tune --out /dev/null"; do
	$BENCH $args > /dev/null 2> "$OUT/bad.err"
	rc=$?
	lines=$(wc -l < "$OUT/bad.err")
	[ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] ||
		die "'$args' gave exit $rc and $lines stderr lines (want 2 and 1)"
done

echo "test-bench-smoke: $( [ $fail -eq 0 ] && echo passed || echo FAILED ) in $(( $(date +%s) - start )) s"
exit $fail
