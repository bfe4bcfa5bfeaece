#!/bin/sh
# SPDX-License-Identifier: MIT
# The arm64 CPU-model matrix: the Criterion suite, cross-built, run under
# qemu-aarch64 once per emulated CPU model, asserting each model's exact
# cp_kernels() and cp_copy_kernels() lists (CP_EXPECT_KERNELS,
# CP_EXPECT_COPY_KERNELS), DC ZVA block and SVE vector length.
# Each row states the features the model has; the expected list is derived
# from arch/arm64/kernels.def by expect.awk, as its x86 twin (x86_64.sh) does.
# Prints each model with its tally and time, then the skipped tests (each
# test and reason once, with the models that skipped it: tests/skip-summary.sh,
# from each run's TAP report) and the total time.
#
# Where the matrix cannot run (no cross compiler, no qemu, no sysroot, no root
# for binfmt_misc and no aarch64 entry) it prints SKIPPED and the reason, and
# exits 0 -- unless CI is set (or CP_ARM64_REQUIRED=1): then a skip fails.
#
# Environment: MAKE; CP_ARM64_JOBS (Criterion --jobs, default: the CPU count);
# CP_ARM64_MODELS (space-separated row names to run, default: all).
set -u
cd "$(dirname "$0")/../.." || exit 1
MAKE=${MAKE:-make}
DEPS=${CP_ARM64_DEPS:-.deps/arm64}
case $DEPS in /*) ;; *) DEPS=$PWD/$DEPS ;; esac
SYSROOT=$DEPS/sysroot
QEMU10=$DEPS/qemu/usr/bin/qemu-aarch64
BIN=build/arm64/tests/cp_tests
LOGS=build/arm64/matrix
JOBS=${CP_ARM64_JOBS:-$(nproc 2>/dev/null || echo 2)}
required() { [ -n "${CI:-}" ] || [ "${CP_ARM64_REQUIRED:-0}" = 1 ]; }

skip() {
	echo "arm64 matrix: SKIPPED -- $*"
	if required; then
		echo "arm64 matrix: FAILED (CI must run the arm64 matrix)"
		exit 1
	fi
	exit 0
}

command -v aarch64-linux-gnu-gcc >/dev/null ||
	skip "no aarch64-linux-gnu-gcc (make deps, as root)"
[ -f "$SYSROOT/.stamp" ] ||
	skip "no arm64 Criterion sysroot in $DEPS/sysroot (make deps)"

# Which qemu runs the workers: ours when we can register it (root), else
# whatever aarch64 entry binfmt_misc already has.
if [ "$(id -u)" -eq 0 ]; then
	if [ -x "$QEMU10" ]; then QEMU=$QEMU10; else QEMU=$(command -v qemu-aarch64) ||
		skip "no qemu-aarch64 (make deps)"; fi
	if scripts/arm64-binfmt.sh register "$QEMU"; then
		trap 'scripts/arm64-binfmt.sh unregister' EXIT
		trap 'exit 130' INT TERM
	else
		QEMU=$(scripts/arm64-binfmt.sh find) ||
			skip "cannot register qemu-aarch64 in binfmt_misc, and it has no aarch64 entry (Criterion's workers re-exec the test binary)"
	fi
else
	QEMU=$(scripts/arm64-binfmt.sh find) ||
		skip "not root, and binfmt_misc has no aarch64 entry: Criterion's workers re-exec the test binary and need one (run as root)"
fi
qver=$("$QEMU" --version 2>/dev/null | sed -n '1s/.*version \([0-9][0-9.]*\).*/\1/p')
[ -n "$qver" ] || skip "cannot tell the version of $QEMU"
qmajor=${qver%%.*}

echo "arm64 matrix: building $BIN"
$MAKE --no-print-directory ARCH=arm64 "$BIN" >/dev/null || {
	echo "arm64 matrix: FAILED -- cross-build of $BIN"; exit 1; }
mkdir -p "$LOGS"

# The features of `-cpu max`: FEAT_MOPS from QEMU 8 on.
MAX=dczva,sve
[ "$qmajor" -ge 8 ] && MAX=dczva,sve,mops
# Expected cp_kernels() for features less the masked ones: the shared rule
# over the one kernel list, never typed here.
# $3: kernels.def (cp_kernels()) or copy_kernels.def (cp_copy_kernels()).
expect_for() {
	awk -v have="$1" -v masked="$2" -f tests/models/expect.awk \
	    common/features.def "arch/arm64/${3:-kernels.def}"
}

# name | QEMU_CPU | the features it has | CLEARPAGES_DISABLE | DC ZVA block | SVE VL (bytes)
ROWS="
cortex-a53|cortex-a53|dczva||64|0
cortex-a57|cortex-a57|dczva||64|0
a64fx|a64fx|dczva,sve||256|64
max-sve16|max,sve-default-vector-length=16|$MAX||512|16
max-sve48|max,sve-default-vector-length=48|$MAX||512|48
max-sve256|max,sve-default-vector-length=256|$MAX||512|256
max-mops|max|$MAX||512|64
max-disabled|max|$MAX|dczva,sve,mops|512|64
cortex-a53-nosimd|cortex-a53|dczva|simd|64|0
max-nosimd|max|$MAX|simd|512|64
"

echo "arm64 matrix: qemu $qver ($QEMU), sysroot $DEPS/sysroot, --jobs=$JOBS; numbers under qemu say nothing about speed"
status=0
t0=$(date +%s)
taps=
printf '%s\n' "$ROWS" | { while IFS='|' read -r name cpu features disable block vl; do
	[ -n "$name" ] || continue
	case " ${CP_ARM64_MODELS:-$name} " in *" $name "*) ;; *) continue ;; esac
	if [ "$name" = max-mops ] && [ "$qmajor" -lt 8 ]; then
		echo "  $name: SKIPPED -- qemu $qver < 8 has no FEAT_MOPS: mops and mops_nt untested (make deps fetches qemu 10)"
		required && status=1
		continue
	fi
	expect=$(expect_for "$features" "$disable") &&
	expect_copy=$(expect_for "$features" "$disable" copy_kernels.def) ||
		{ echo "  $name: FAILED -- expect.awk"; status=1; continue; }
	log=$LOGS/$name.log
	tap=$LOGS/$name.tap
	rm -f "$tap"
	taps="$taps $tap"
	t1=$(date +%s)
	env QEMU_CPU="$cpu" QEMU_LD_PREFIX="$SYSROOT" CP_TEST_QUICK=1 \
	    CLEARPAGES_DISABLE="$disable" CP_EXPECT_KERNELS="$expect" \
	    CP_EXPECT_COPY_KERNELS="$expect_copy" \
	    CP_EXPECT_DCZVA_BLOCK="$block" CP_EXPECT_SVE_VL="$vl" \
	    timeout -k 10 300 "$BIN" --jobs="$JOBS" --timeout=120 --tap="$tap" >"$log" 2>&1
	rc=$?
	t2=$(date +%s)
	tally=$(sed -n 's/.*Synthesis: //p' "$log" | tail -1 | sed 's/ *$//')
	[ -n "$tally" ] || tally="no Criterion synthesis (exit $rc)"
	label="$name (QEMU_CPU=$cpu${disable:+, CLEARPAGES_DISABLE=$disable})"
	if [ $rc -eq 0 ]; then
		printf '  %-72s %s  [%ss]\n' "$label" "$tally" $((t2 - t1))
	else
		printf '  %-72s FAILED: %s  [%ss]\n' "$label" "$tally" $((t2 - t1))
		grep -E '^\[(----|FAIL|ERR )\]|Assertion|Crash|signal|Warning' "$log" | head -40 | sed 's/^/    /'
		echo "    (full log: $log)"
		status=1
	fi
done
# shellcheck disable=SC2086 # one path per model, none with blanks
[ -z "$taps" ] || tests/skip-summary.sh "arm64 matrix" $taps || status=1
t3=$(date +%s)
echo "arm64 matrix: took $((t3 - t0))s"
if [ $status -ne 0 ]; then echo "arm64 matrix: FAILED"; exit 1; fi
echo "arm64 matrix: passed"
}
