#!/bin/bash
# SPDX-License-Identifier: MIT
# The x86 CPU-model matrix: cp_check under `qemu-x86_64 -cpu M` for each model
# below, then natively. One line per model: model, kernel list, tally, seconds.
# A model fails when detection disagrees with what the row says the model is
# (features, microarchitecture, family/model/stepping), its kernel list differs
# from the one derived from those features, a check fails, or the driver dies
# (a signal -- SIGILL above all -- is a failure). Its arm64 twin: arm64.sh.
#
#   tests/models/x86_64.sh BUILD/models/cp_check LOGDIR [QEMU]
set -u
check=$1 logdir=$2 qemu=${3:-qemu-x86_64}
here=$(dirname "$0")
mkdir -p "$logdir"

# Expected cp_kernels() for a set of features: the shared rule over the one
# kernel list (expect.awk reads kernels.def), never typed here.
# $3: the list, kernels.def (cp_kernels()) or copy_kernels.def (cp_copy_kernels()).
expect_for() {
	awk -v have="$1" -v masked="$2" -f "$here/expect.awk" common/features.def \
	    "arch/x86_64/${3:-kernels.def}"
}

# qemu -cpu model | the features it has (CLEARPAGES_DISABLE tokens) |
# microarchitecture name ("" unknown) | display family/model/stepping |
# CLEARPAGES_DISABLE for the run ("simd": cp_check asserts no vector kernel
# is listed or picked).
# qemu 7.2 knows no fsrs: FSRS is tested on described CPUID (x86_64_cpu.c).
# "?" leaves a field unasserted: TCG's max changes its signature between
# qemu versions. -fsrm where a qemu version adds FSRM to a model. No
# emulated model has clzero or avx512: TCG runs neither.
models=(
	"qemu64|||15/107/1"
	"Haswell|erms,avx2||6/60/4"
	"max,-erms,-fsrm|avx2||?"
	"max,-avx2,-fsrm|erms||?"
	"EPYC-Rome|avx2|amd-zen2|23/49/0"
	"EPYC-Milan,-fsrm|erms,avx2|amd-zen3|25/1/1"
	"Haswell|erms,avx2||6/60/4|simd"
	"qemu64|||15/107/1|simd"
)
# Natively: the kernel's view of the CPU (/proc/cpuinfo), not the library's
# CPUID code; the microarchitecture is what cp_check reports (the described-
# CPU check covers the names). Linux names no flag for FSRS (this Xeon has
# CPUID.(7,1):EAX[11] set, /proc/cpuinfo shows no fsrs): ?fsrs, not asserted,
# and the expected list then assumes none (it matters only without ERMS).
cpuinfo() { grep -m1 "^$1[[:space:]]*:" /proc/cpuinfo | cut -d: -f2 | tr -d ' '; }
native_features() {
	local f out=
	for f in $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2); do
		case $f in
		erms|fsrm|avx2|clzero) out+=${out:+,}$f ;;
		avx512f) out+=${out:+,}avx512 ;;
		esac
	done
	printf '%s' "$out${out:+,}?fsrs"
}
native_avx512=0
grep -m1 '^flags' /proc/cpuinfo | grep -qw avx512f && native_avx512=1
native_row="native|$(native_features)|?|$(cpuinfo 'cpu family')/$(cpuinfo model)/$(cpuinfo stepping)"
models+=("$native_row" "$native_row|simd")

failed=0
printf '%-17s %-78s %-30s %s\n' model "kernel list" tally seconds
for entry in "${models[@]}"; do
	IFS='|' read -r model features uarch signature disable <<<"$entry"
	expect=$(expect_for "$features" "$disable")
	expect_copy=$(expect_for "$features" "$disable" copy_kernels.def)
	log="$logdir/${model//[,]/_}${disable:+-no-$disable}.log"
	runner=("$qemu" -cpu "$model")
	[ "$model" = native ] && runner=()
	args=(--expect "$expect" --expect-copy "$expect_copy" --features "$features")
	[ "$uarch" != "?" ] && args+=(--uarch "$uarch")
	[ "$signature" != "?" ] && args+=(--signature "$signature")
	start=$(date +%s.%N)
	env -u CLEARPAGES_KERNEL -u CLEARPAGES_DISABLE -u CLEARPAGES_NT_THRESHOLD \
	    -u CLEARPAGES_PROFILE -u CLEARPAGES_QUIET ${disable:+CLEARPAGES_DISABLE=$disable} \
	    timeout -k 10 300 "${runner[@]}" "$check" "${args[@]}" >"$log" 2>&1
	rc=$?
	secs=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
	list=$(sed -n 's/^kernels: //p' "$log")
	tally=$(tail -n 1 "$log")
	bad=0
	if [ $rc -ne 0 ] || ! [[ $tally =~ ^[0-9]+\ passed,\ 0\ failed ]]; then
		bad=1
		[ $rc -gt 128 ] && tally="killed by signal $((rc - 128)); $tally"
		[ $rc -ne 0 ] && tally="exit $rc; $tally"
	fi
	# AVX-512 is listed natively iff the host has avx512f (and simd is not
	# masked), and never under emulation (TCG cannot run it), whatever the
	# rows above say.
	has512=0 want512=$native_avx512
	[[ ,$list, =~ ,avx512(_nt)?, ]] && has512=1
	[[ ,$disable, =~ ,(simd|avx512), ]] && want512=0
	if [ "$model" = native ] && [ $has512 -ne $want512 ]; then
		bad=1
		tally="avx512 kernels listed: $has512, /proc/cpuinfo avx512f: $native_avx512${disable:+ (disabled: $disable)}; $tally"
	elif [ "$model" != native ] && [ $has512 -ne 0 ]; then
		bad=1
		tally="an emulated model lists an avx512 kernel; $tally"
	fi
	failed=$((failed + bad))
	printf '%-17s %-78s %-30s %.1f\n' "$model${disable:+ -$disable}" "${list:-?}" "$tally" "$secs"
	if [ $bad -ne 0 ]; then
		grep -v '^ok ' "$log" | sed 's/^/    /'
	fi
done
if [ $failed -ne 0 ]; then
	echo "x86 models: $failed of ${#models[@]} FAILED (logs in $logdir)"
	exit 1
fi
echo "x86 models: all ${#models[@]} passed"
