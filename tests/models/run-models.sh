#!/bin/bash
# The x86 CPU-model matrix: cp_check under `qemu-x86_64 -cpu M` for each model
# below, then natively. One line per model: model, kernel list, tally, seconds.
# A model fails when its kernel list differs from the expected one, a check
# fails, or the driver dies (a signal -- SIGILL above all -- is a failure).
#
#   tests/models/run-models.sh BUILD/models/cp_check LOGDIR [QEMU]
set -u
check=$1 logdir=$2 qemu=${3:-qemu-x86_64}
mkdir -p "$logdir"

# Expected cp_kernels() for a set of features: common/kernels_x86_64.c's
# table order with build_kernel_list()'s rule, restated here: a kernel needing
# a missing feature is gone; one ranked by features the CPU lacks all of
# (rep_stosb: ERMS/FSRM) drops to the end of its class; temporal class first.
table=${KERNEL_TABLE:-common/kernels_x86_64.c}
expect_for() {
	awk -v have=" $* " '
	function usable(expr, all,   n, i, t, ok, feat) {  # "CP__F_A | CP__F_B" or "0"
		if (expr == "0") return 1
		n = split(expr, t, "|"); ok = all
		for (i = 1; i <= n; i++) {
			feat = tolower(t[i]); sub(/^cp__f_/, "", feat)
			if (all && index(have, " " feat " ") == 0) ok = 0
			if (!all && index(have, " " feat " ") > 0) ok = 1
		}
		return ok
	}
	/^[ \t]*\{ K\(/ {
		line = $0; gsub(/[ \t{}]/, "", line); sub(/^K\(/, "", line)
		split(line, f, ",")               # name, flags), needs, ranked_by
		n++; name[n] = f[1]; nt[n] = (f[2] ~ /NONTEMPORAL/)
		needs[n] = f[3]; ranked[n] = f[4]
	}
	END {
		for (c = 0; c <= 1; c++) for (d = 0; d <= 1; d++) for (i = 1; i <= n; i++) {
			slow = ranked[i] != "0" && !usable(ranked[i], 0)
			if (nt[i] == c && slow == d && usable(needs[i], 1))
				out = out (out == "" ? "" : ",") name[i]
		}
		print out
	}' "$table"
}

# The features each model offers (qemu 7.2 emulates no clzero, whatever the model).
models=(
	"qemu64|"
	"Haswell|erms avx2"
	"max,-erms,-fsrm|avx2"
	"max,-avx2|erms fsrm"
)
# Natively: the kernel's view of the CPU (/proc/cpuinfo), not the library's CPUID code.
native_features() {
	local f
	for f in $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2); do
		case $f in erms|fsrm|avx2|clzero) printf '%s ' "$f" ;; esac
	done
}
models+=("native|$(native_features)")

failed=0
printf '%-17s %-58s %-30s %s\n' model "kernel list" tally seconds
for entry in "${models[@]}"; do
	model=${entry%%|*}
	expect=$(expect_for ${entry#*|})
	log="$logdir/${model//[,]/_}.log"
	runner=("$qemu" -cpu "$model")
	[ "$model" = native ] && runner=()
	start=$(date +%s.%N)
	env -u CLEARPAGES_KERNEL -u CLEARPAGES_DISABLE -u CLEARPAGES_NT_THRESHOLD \
	    -u CLEARPAGES_PROFILE -u CLEARPAGES_QUIET \
	    timeout -k 10 300 "${runner[@]}" "$check" --expect "$expect" >"$log" 2>&1
	rc=$?
	secs=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
	list=$(sed -n 's/^kernels: //p' "$log")
	tally=$(tail -n 1 "$log")
	bad=0
	if [ $rc -ne 0 ] || ! [[ $tally =~ ^[0-9]+\ passed,\ 0\ failed ]]; then
		bad=1
		failed=$((failed + 1))
		[ $rc -gt 128 ] && tally="killed by signal $((rc - 128)); $tally"
		[ $rc -ne 0 ] && tally="exit $rc; $tally"
	fi
	printf '%-17s %-58s %-30s %.1f\n' "$model" "${list:-?}" "$tally" "$secs"
	if [ $bad -ne 0 ]; then
		grep -v '^ok ' "$log" | sed 's/^/    /'
	fi
done
if [ $failed -ne 0 ]; then
	echo "x86 models: $failed of ${#models[@]} FAILED (logs in $logdir)"
	exit 1
fi
echo "x86 models: all ${#models[@]} passed"
