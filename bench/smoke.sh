#!/bin/sh
# SPDX-License-Identifier: MIT
# make test-bench-smoke: proof that clearbench runs -- --help and --version, every
# measuring scenario with --quick on tiny sizes and only the options it takes (CSV
# and JSON written and non-empty, one table per CSV file), compare on two of those
# results, and bad input answered by one line on stderr and exit status 2; and that a
# user can read it: a progress line on stderr within 2 s of the start (each scenario, and
# a default sweep, stopped then), every line printed at most 160 columns, each
# scenario's --help its own, and an installed copy pointing at nothing in the source tree.
# Environment: BENCH (command running clearbench, maybe through qemu), OUT (folder).
set -u
start=$(date +%s)
rm -rf "$OUT"
mkdir -p "$OUT"
# tune must leave no file behind unless --out names one: any would land here
TMPDIR=$OUT
export TMPDIR
rm -f "$OUT/tune.profile"
fail=0
die() { echo "test-bench-smoke: FAIL: $*"; fail=1; }
ms() { echo $(( $(date +%s%N) / 1000000 )); }
# watched NAME STOP ARGS...: $BENCH ARGS, stdout to NAME.txt, stderr to NAME.err; sets
# first (ms from the start to the first progress line, "none" if there was none) and rc;
# STOP=stop ends the run by its pid once that line came, or after 10 s.
watched() {
	name=$1 stop=$2; shift 2
	w0=$(ms)
	# shellcheck disable=SC2086
	$BENCH "$@" > "$OUT/$name.txt" 2> "$OUT/$name.err" &
	pid=$! first=none
	while [ "$first" = none ]; do
		alive=; kill -0 "$pid" 2> /dev/null && alive=1
		grep -qs '^clearbench: \[' "$OUT/$name.err" && first=$(( $(ms) - w0 ))
		[ -z "$alive" ] || { [ "$stop" = stop ] && [ $(( $(ms) - w0 )) -gt 10000 ]; } && break
		sleep 0.02
	done
	[ "$stop" = stop ] && kill "$pid" 2> /dev/null
	{ wait "$pid"; } 2> /dev/null   # no "Terminated" from the shell
	rc=$?
}
# the first progress line within 2 s: generous for a start that only maps and prints
slow_start() {
	[ "$first" != none ] && [ "$first" -le 2000 ] && return 1
	[ "$first" = none ] && echo "no progress line on stderr" && return 0
	echo "the first progress line came after $first ms (want 2000 at most)"
}

$BENCH --help > "$OUT/help.txt" || die "--help exited $?"
$BENCH --version | grep -q '^clearbench (clearpages) [0-9]*\.[0-9]*\.[0-9]*$' ||
	die "--version does not print 'clearbench (clearpages) X.Y.Z'"
# the scenario names: the lines of --help between "scenarios" and the blank line;
# report and compare have their own checks (test-report; compare below)
scenarios=$(sed -n '/^scenarios/,/^$/{/^  [a-z]/s/^  \([a-z0-9_]*\).*/\1/p}' "$OUT/help.txt" |
	grep -v '^report$\|^compare$')
[ -n "$scenarios" ] || die "--help lists no scenario"

# tiny settings, each given only to the scenarios whose "options:" line names it
tiny() {
	uses=$(sed -n "/^  $1 /,/options:/{/options:/p}" "$OUT/help.txt")
	# a pool of 8M for cold and use: a few ms to fault and warm, not seconds
	for o in "--quick" "--sizes 4k,64k" "--region 8M" "--rounds 2" "--threads 2" "--pool 8M"; do
		case " $uses " in *" ${o%% *} "*) printf '%s ' "$o" ;; esac
	done
}

for s in $scenarios; do
	t0=$(date +%s)
	# tune's verify may refuse two rounds of two sizes: --force, it still says why
	extra=; [ "$s" = tune ] && extra=--force
	# shellcheck disable=SC2046
	watched "$s" run "$s" $(tiny "$s") $extra --csv "$OUT/$s.csv" --json "$OUT/$s.json"
	why=$(slow_start) && die "$s: $why"
	if [ "$rc" -eq 0 ]; then
		[ -s "$OUT/$s.csv" ] && [ -s "$OUT/$s.json" ] || die "$s wrote no CSV/JSON"
		grep -q "^cpu:" "$OUT/$s.txt" || die "$s printed no header"
		grep -q "^policy:" "$OUT/$s.txt" || die "$s printed no policy line"
		grep -q "^discard: *\(never on resident memory\|MAY_DISCARD hands resident parts back from [0-9]\)" "$OUT/$s.txt" ||
			die "$s printed no discard line (cp_policy_info)"
		for f in "$OUT/$s".csv "$OUT/$s"-*.csv; do
			[ -f "$f" ] || continue
			grep -q '^#' "$f" && die "$f holds more than one table"
		done
		echo "test-bench-smoke: $s ok ($(( $(date +%s) - t0 )) s)"
	else
		die "$s exited $rc ($(cat "$OUT/$s.err"))"
	fi
done
# a default sweep (hot targets up to 1 GiB first), stopped after its first progress line
watched sweep-start stop sweep
if why=$(slow_start); then
	die "sweep (default settings): $why"
else
	echo "test-bench-smoke: progress within 2 s ok (a default sweep's first line: $first ms)"
fi
# each scenario's --help is its own, not the whole text
for s in $scenarios report compare; do
	$BENCH "$s" --help > "$OUT/$s-help.txt" 2>&1 || die "$s --help exited $?"
	head -1 "$OUT/$s-help.txt" | grep -q "^usage: clearbench $s" &&
		! cmp -s "$OUT/$s-help.txt" "$OUT/help.txt" || die "$s --help is not $s's own"
done
[ -s "$OUT/parallel-threshold.csv" ] || die "parallel wrote no parallel-threshold.csv"
# calloc's reused-cold rows: blocks of 1M-32M only (the tiny sizes above have none)
if $BENCH calloc --quick --sizes 1M --rounds 1 --csv "$OUT/calloc-cold.csv" > "$OUT/calloc-cold.txt" \
    2> "$OUT/calloc-cold.err"; then
	grep -q "^1M,reused-cold,[0-9]" "$OUT/calloc-cold.csv" || die "calloc wrote no reused-cold row"
	grep -q ",reused-cold," "$OUT/calloc.csv" && die "calloc measured reused-cold below 1M"
	echo "test-bench-smoke: calloc reused-cold ok"
else
	die "calloc --sizes 1M exited $? ($(cat "$OUT/calloc-cold.err"))"
fi

# calloc's loop rows (mimalloc #1104): in the full run above (its third table), and alone with
# --loop at 64M, where mimalloc's block is huge and must come back from the arena
grep -q "^4K,nothing,[0-9]" "$OUT/calloc-3.csv" || die "calloc wrote no loop rows"
if $BENCH calloc --loop --quick --sizes 64M --rounds 1 --csv "$OUT/calloc-loop.csv" \
    > "$OUT/calloc-loop.txt" 2> "$OUT/calloc-loop.err"; then
	grep -q "^64M,nothing,[0-9]" "$OUT/calloc-loop.csv" || die "calloc --loop wrote no 'nothing' row"
	grep -q "^64M,every line,[0-9]" "$OUT/calloc-loop.csv" || die "calloc --loop wrote no 'every line' row"
	grep -q ",reused," "$OUT/calloc-loop.csv" && die "calloc --loop measured the other rows"
	echo "test-bench-smoke: calloc --loop ok"
else
	die "calloc --loop exited $? ($(cat "$OUT/calloc-loop.err"))"
fi

# sweep's kinds of target: a table per kind, the target column in CSV and JSON,
# a plot per kind, and compare matching rows by target (cold against cold)
for k in hot cold use; do
	grep -q "^sweep, $k" "$OUT/sweep.txt" || die "sweep printed no $k table"
	grep -q "^$k,4K,4096,auto," "$OUT/sweep.csv" || die "sweep.csv has no $k rows"
done
grep -q '"target": "use"' "$OUT/sweep.json" || die "sweep.json has no target column"
grep -q "^sweep summary" "$OUT/sweep.txt" || die "sweep printed no summary"
if $BENCH sweep --target cold,use --quick --sizes 4k,64k --rounds 2 --pool 8M \
    --csv "$OUT/sweep-cu.csv" --json "$OUT/sweep-cu.json" --plot "$OUT/sweep-cu.png" \
    --samples "$OUT/sweep-cu-samples.csv" > "$OUT/sweep-cu.txt" 2> "$OUT/sweep-cu.err"; then
	grep -q "^hot," "$OUT/sweep-cu.csv" && die "--target cold,use measured hot"
	grep -q "^cold,64K,65536,cold_call," "$OUT/sweep-cu.csv" || die "--target cold,use: no cold rows"
	grep -q "^use,64K,65536,cold_call," "$OUT/sweep-cu.csv" || die "--target cold,use: no use rows"
	for f in sweep-cu.png sweep-cu-cold.png sweep-cu-use.png; do
		[ -s "$OUT/$f" ] || die "--target cold,use --plot wrote no $f"
	done
	[ -e "$OUT/sweep-cu-hot.png" ] && die "--target cold,use plotted hot"
	# --samples: a row per contender, extent, kind and round (2 rounds), each
	# round's places 0.. with the contender before each
	samples="$OUT/sweep-cu-samples.csv"
	head -1 "$samples" | grep -qx "target,extent,bytes,round,place,after,contender,seconds,gbs" ||
		die "--samples: no header"
	n=$(grep -c "^cold,64K,65536,1,[0-9]*,[a-z_0-9.]*,cold_call,[0-9.e+-]*,[0-9.]*$" "$samples")
	[ "$n" -eq 1 ] || die "--samples: $n rows of cold_call, cold, 64K, round 1 (want 1)"
	rows=$(grep -c "^cold,64K,65536,1," "$samples")
	[ "$(grep -c "^cold,64K,65536,1,0,," "$samples")" -eq 1 ] &&
		[ "$(grep -c "^cold,64K,65536,1,$((rows - 1)),[a-z]" "$samples")" -eq 1 ] ||
		die "--samples: round 1 of cold 64K does not run from place 0 to $((rows - 1))"
	[ "$(wc -l < "$samples")" -eq $((1 + 2 * 2 * 2 * rows)) ] ||
		die "--samples: $(wc -l < "$samples") lines, want $((1 + 8 * rows))"
	$BENCH compare "$OUT/sweep.json" "$OUT/sweep-cu.json" > "$OUT/compare-cu.txt" 2>&1 ||
		die "compare of sweep and sweep --target cold,use exited $?"
	grep -q "^ *cold / 4K / auto " "$OUT/compare-cu.txt" || die "compare matched no cold row"
	grep -q "^ *hot / " "$OUT/compare-cu.txt" && die "compare matched hot rows that B lacks"
	echo "test-bench-smoke: sweep --target cold,use ok"
else
	die "sweep --target cold,use exited $? ($(cat "$OUT/sweep-cu.err"))"
fi

# copy (run above with the tiny settings): a table per kind, the summary, the huge-page
# rows on hot and cold (the 8M pool holds 2 MiB pairs), the published clear rows beside them
for k in hot cold use; do
	grep -q "^copy, $k" "$OUT/copy.txt" || die "copy printed no $k table"
	grep -q "^$k,64K,65536,memcpy," "$OUT/copy.csv" || die "copy.csv has no $k memcpy row"
done
grep -q "^copy summary" "$OUT/copy.txt" || die "copy printed no summary"
[ "$(grep -c "^[a-z]*,[0-9.]*,64K," "$OUT/copy-summary.csv")" -ge 1 ] ||
	die "copy-summary.csv has no line from 64K"
grep -q "^cold,auto,one shot,-,2," "$OUT/copy-huge.csv" || die "copy-huge.csv has no cold one-shot row"
grep -q "^hot,[a-z_0-9]*,target last,random," "$OUT/copy-huge.csv" ||
	die "copy-huge.csv has no random hot-page row"
grep -q '^"published clear: ' "$OUT/copy-huge-ratio.csv" || die "copy printed no published clear rows"
echo "test-bench-smoke: copy tables ok"

# populate at 64M on one and two threads: every target and mapping, every contender, each try
# verified by clearbench itself (exit 1 on a failure); the library's resident calls measured
# or, in a library without CP_ZERO_RESIDENT, shown as unavailable (-EINVAL). No figure checked.
if $BENCH populate --sizes 64M --threads 1,2 --rounds 1 --csv "$OUT/populate-64m.csv" \
    --json "$OUT/populate-64m.json" --plot "$OUT/populate-64m.png" > "$OUT/populate-64m.txt" \
    2> "$OUT/populate-64m.err"; then
	csv="$OUT/populate-64m.csv"
	for t in fresh half full; do
		for m in 4k thp; do
			grep -q "^populate, $t, $m:" "$OUT/populate-64m.txt" || die "populate printed no $t $m table"
			for c in memset store_per_page populate qemu; do
				for n in 1 2; do
					grep -q "^$t,$m,64M,67108864,$c,$n,[12],[0-9.e+-]*,\(yes\|no\)," "$csv" ||
						die "populate.csv has no $t $m $c row on $n threads"
				done
			done
			for c in cp_zero cp_zero_res cp_zero_res_par; do
				grep -q "^$t,$m,64M,67108864,$c,[1]*,[1]*,\([0-9.e+-]*,yes\|,unavailable (-EINVAL)\)," \
					"$csv" || die "populate.csv has no $t $m $c row (measured or unavailable)"
			done
			[ -s "$OUT/populate-64m-$t-$m.png" ] || die "populate --plot wrote no $t-$m plot"
		done
	done
	grep -q "^half,4k,64M,67108864,store_per_page,1,1,[0-9.e+-]*,no," "$csv" ||
		die "populate counts a store per page as zeroing a half-written range"
	grep -q "^fresh,thp,64M,67108864,populate,2,2,[0-9.e+-]*,yes," "$csv" ||
		die "populate does not count MADV_POPULATE_WRITE as zeroing fresh memory"
	grep -q "^populate summary" "$OUT/populate-64m.txt" || die "populate printed no summary"
	[ "$(grep -c "^[a-z]*,[a-z0-9]*,64M," "$OUT/populate-64m-summary.csv")" -eq 6 ] ||
		die "populate-summary.csv has not one row per target and mapping"
	[ -s "$OUT/populate-64m.png" ] || die "populate --plot wrote no $OUT/populate-64m.png"
	echo "test-bench-smoke: populate 64M on 1,2 threads ok"
else
	die "populate --sizes 64M exited $? ($(cat "$OUT/populate-64m.err"))"
fi

# user-facing text names experiments by what they are
grep -il "issue\|seed 0" "$OUT/help.txt" "$OUT"/*.txt && die "output cites issue or seed numbers"

# compare: a result against itself gives ratios of 1.00, and a plot
if $BENCH compare "$OUT/sweep.json" "$OUT/sweep.json" > "$OUT/compare.txt" 2> "$OUT/compare.err"; then
	grep -q "B/A" "$OUT/compare.txt" || die "compare printed no B/A column"
	grep -q "geometric mean of B/A: 1.00" "$OUT/compare.txt" || die "compare of a file with itself is not 1.00"
else
	die "compare exited $? ($(cat "$OUT/compare.err"))"
fi

# tune: one table per CSV file, no file left without --out, --out written whole
[ -s "$OUT/tune-verify.csv" ] || die "tune wrote no tune-verify.csv"
left=$(find "$OUT" -name '*profile*' | head -1)
[ -z "$left" ] || die "tune left $left behind without --out"
$BENCH tune --quick --sizes 4k,64k --rounds 2 --force --pool 8M --out "$OUT/tune.profile" \
    > "$OUT/tune-out.txt" 2>&1 || die "tune --force --out exited $?"
head -2 "$OUT/tune.profile" | grep -qx "version 3" && [ "$(tail -1 "$OUT/tune.profile")" = end ] ||
	die "tune --out wrote no whole format-3 profile"
# cold and use measured (the default --target): the uncached bands and the threshold
# cached_min_mbps: timed chunks, hot against cold; an 8M pool is under 4x any LLC, so the
# profile says why it has no line (a pool that large measures it)
grep -q "^uncached_band 0 " "$OUT/tune.profile" || die "tune --out wrote no uncached_band line"
grep -q "^cached_min_mbps [1-9]" "$OUT/tune.profile" ||
	grep -q "^# .*no line, the defaults' threshold stands$" "$OUT/tune.profile" ||
	die "tune --out wrote neither a cached_min_mbps line nor why it is missing"
# the discard threshold: measured (a line, its table) or a comment saying why not
if grep -q "^discard_from \(none\|[0-9][0-9]*[kMG]\)$" "$OUT/tune.profile"; then
	[ -s "$OUT/tune-discard.csv" ] || die "tune wrote discard_from without tune-discard.csv"
else
	grep -q "^# discard_from: not measured" "$OUT/tune.profile" ||
		die "tune --out wrote neither a discard_from line nor why it is missing"
fi
CLEARPAGES_PROFILE="$OUT/tune.profile" $BENCH sweep --quick --sizes 4k --rounds 2 --target hot \
    2>&1 | grep -q "^policy: *env:$OUT/tune.profile" || die "the library does not load tune's profile"
[ -z "$(find "$OUT" -name '.tune.profile.*')" ] || die "tune --out left its temporary file"

# bad input: one line on stderr, exit 2
printf '{"scenario": "sweep", "tables": [' > "$OUT/broken.json"
for args in "no-such-scenario" "sweep --sizes 3k" "sweep --rounds 0" "sweep --kernel nope" \
	    "sweep --bogus" "sweep --sizes 4k,,8k" "sweep --sizes 4k," "sweep --plot out.jpg" \
	    "walk --sizes 4k" "latency --threads 2" "sweep --csv $OUT/no/such/dir/x.csv" \
	    "sweep --json $OUT" "report" "report --out $OUT/r --plot x.png" "report --out $OUT/no/such/dir" \
	    "report --out $OUT/help.txt" "compare $OUT/sweep.json" \
	    "compare $OUT/broken.json $OUT/sweep.json" "compare $OUT/sweep.json $OUT/walk.json" \
	    "compare $OUT/no-such.json $OUT/sweep.json" "sweep extra-argument" \
	    "sweep --force" "tune --out /dev/null" "sweep --target warm" "sweep --target hot,," \
	    "sweep --pool 1k" "sweep --sizes 8M --pool 8M" "walk --target cold" \
	    "sweep --samples $OUT/no/such/dir/s.csv" "batch --samples $OUT/s.csv" \
	    "copy --kernel rep_movsb" "copy --sizes 8M --pool 8M" "copy --target warm" \
	    "populate --target warm" "populate --target hot" "populate --mapping 2m" \
	    "populate --mapping 4k,,thp" "populate --sizes 3k" "populate --sizes 65G" \
	    "populate --threads 0" "populate --threads 1,,2" "parallel --threads 1,2" \
	    "sweep --sizes 4G" "walk --mapping 4k"; do
	# shellcheck disable=SC2086
	$BENCH $args > /dev/null 2> "$OUT/bad.err"
	rc=$?
	lines=$(wc -l < "$OUT/bad.err")
	[ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] ||
		die "'$args' gave exit $rc and $lines stderr lines (want 2 and 1)"
done
[ -e "$OUT/no" ] && die "a refused run left files behind"

# an installed clearbench (a copy outside the source tree) gives hints that work there
mkdir -p "$OUT/installed"
cp "${BENCH##* }" "$OUT/installed/clearbench"
pre=; case $BENCH in *" "*) pre=${BENCH% *} ;; esac
$pre "$OUT/installed/clearbench" sweep --quick --sizes 4k --rounds 2 --target hot \
    > "$OUT/installed.txt" 2>&1 || die "the installed copy's sweep exited $?"
grep -q "make \|\.sh\b\|\.deps" "$OUT/installed.txt" &&
	die "the installed copy points at the source tree: $(grep "make \|\.sh\b\|\.deps" "$OUT/installed.txt")"

# every line printed fits a terminal of 160 columns (wide tables go to CSV and JSON)
wide=$(awk 'length > 160 { n++; m = length > m ? length : m; if (!(FILENAME in f)) { f[FILENAME]
	s = s " " substr(FILENAME, length(ENVIRON["OUT"]) + 2) } }
	END { if (n) print n " lines over 160 columns (the longest " m ") in" s }' "$OUT"/*.txt "$OUT"/*.err)
[ -z "$wide" ] || die "$wide"

echo "test-bench-smoke: $( [ $fail -eq 0 ] && echo passed || echo FAILED ) in $(( $(date +%s) - start )) s"
exit $fail
