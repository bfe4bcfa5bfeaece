#!/bin/bash
# SPDX-License-Identifier: MIT
# The freestanding object's test: ELF checks of clearpages-freestanding.o,
# then, natively (when this host runs the arch) and on every emulated CPU
# model, the -nostdlib program (fs_check: every extent and range checked
# byte by byte, the model's exact kernel list asserted) and its decisions
# compared with the hosted library's on the same CPU (hosted_report):
# kernel list, policy source and cp_kernel_for(n) for 1 .. 2^20 pages.
#
#   tests/freestanding/run.sh ARCH OBJECT FS_CHECK HOSTED_REPORT LOGDIR
# Environment: QEMU_X86_64, QEMU_AARCH64 (the emulators; defaults below).
set -u
arch=$1 obj=$2 prog=$3 hosted=$4 logdir=$5
mkdir -p "$logdir"
failed=0
fail() { echo "freestanding: FAIL: $*"; failed=$((failed + 1)); }
required() { [ -n "${CI:-}" ]; }

# --- the object
case $arch in
x86_64) cross= prop='x86 feature: IBT, SHSTK' ;;
arm64)  cross=aarch64-linux-gnu-; prop='AArch64 feature: BTI, PAC' ;;
esac
[ "$(uname -m)" = aarch64 ] && cross=
undef=$(${cross}nm -u "$obj" | awk '{ print $2 }' | grep -vxE 'memset|memcpy|memmove' | tr '\n' ' ')
[ -z "$undef" ] || fail "$obj needs more than memset/memcpy/memmove: $undef"
${cross}readelf -n "$obj" | grep -qF "$prop" || fail "$obj: no '$prop' property"
stack=$(${cross}readelf -SW "$obj" | grep -F .note.GNU-stack || true)
[ -n "$stack" ] && [[ $stack != *X* ]] || fail "$obj: no non-executable .note.GNU-stack"
! ${cross}readelf -SW "$obj" | grep -qE '\.t(data|bss)' || fail "$obj has thread-local storage"
bad=$(${cross}readelf -sW "$obj" | awk '($5 == "GLOBAL" || $5 == "WEAK") && $7 != "UND" &&
	(($8 !~ /^cp_/) || ($8 ~ /^cp__/ && $6 != "HIDDEN")) { print $8 }' | tr '\n' ' ')
[ -z "$bad" ] || fail "$obj: globals that are not cp_ or not hidden cp__: $bad"
for absent in cp_clear_pages_parallel cp_set_profile; do
	! ${cross}nm "$obj" | grep -qw "$absent" || fail "$obj defines $absent"
done
[ $failed -ne 0 ] || echo "freestanding: $obj: needs $(${cross}nm -u "$obj" | awk '{ print $2 }' | tr '\n' ' '); '$prop'; no TLS"

# --- the runs: name | runner | fs_check arguments | expected kernel list
# (cp_kernels() order, arch/<arch>/kernels.def: a kernel needing a feature the
# model lacks is gone; rep_stosb without ERMS/FSRS drops to the end of the
# temporal kernels). "native" expects what the hosted library lists.
case $arch in
x86_64)
	qemu=${QEMU_X86_64:-qemu-x86_64}     # Debian's 7.2: no AVX-512, no clzero
	[ "$(uname -m)" = x86_64 ] && native=yes || native=
	rows="qemu64|$qemu -cpu qemu64||rep_stosq,sse2,movq,rep_stosb,movnti
Haswell|$qemu -cpu Haswell||avx2,rep_stosb,rep_stosq,sse2,movq,avx2_nt,movnti
max,-erms,-fsrm|$qemu -cpu max,-erms,-fsrm||avx2,rep_stosq,sse2,movq,rep_stosb,avx2_nt,movnti
max,-avx2|$qemu -cpu max,-avx2||rep_stosb,rep_stosq,sse2,movq,movnti
Haswell described|$qemu -cpu Haswell|--disable avx2,erms,dczva|rep_stosq,sse2,movq,rep_stosb,movnti
qemu64 LLC 4 MiB|$qemu -cpu qemu64|--llc 4194304|rep_stosq,sse2,movq,rep_stosb,movnti
Haswell no-simd|$qemu -cpu Haswell|--no-simd|rep_stosb,rep_stosq,movq,movnti"
	;;
arm64)
	qemu=${QEMU_AARCH64:-qemu-aarch64}
	[ "$(uname -m)" = aarch64 ] && native=yes || native=
	qver=$($qemu --version 2>/dev/null | sed -n '1s/.*version \([0-9]*\).*/\1/p')
	max=dc_zva,sve,stp_q,stp,stnp,stnp_x maxgpr=dc_zva,stp,stnp_x
	if [ "${qver:-0}" -ge 8 ]; then    # FEAT_MOPS
		max=mops,dc_zva,sve,stp_q,stp,mops_nt,stnp,stnp_x maxgpr=mops,dc_zva,stp,mops_nt,stnp_x
	fi
	# "described": max told it is a Cortex-A53 (MIDR 0x410fd034, no SVE, no
	# MOPS, 64-byte DC ZVA), as code at EL0 without ID register emulation must.
	rows="cortex-a53|$qemu -cpu cortex-a53||dc_zva,stp_q,stp,stnp,stnp_x
a64fx|$qemu -cpu a64fx||dc_zva,sve,stp_q,stp,stnp,stnp_x
max|$qemu -cpu max||$max
max described|$qemu -cpu max|--regs 410fd034,0,0,4|dc_zva,stp_q,stp,stnp,stnp_x
cortex-a53 LLC 2 MiB|$qemu -cpu cortex-a53|--llc 2097152|dc_zva,stp_q,stp,stnp,stnp_x
max no-simd|$qemu -cpu max|--no-simd|$maxgpr"
	;;
esac
if ! command -v "${qemu%% *}" >/dev/null; then
	echo "freestanding: SKIPPED the emulated models: no ${qemu%% *} (make deps-test)"
	required && failed=$((failed + 1))
	rows=
fi
# Natively on arm64 the hosted library reads the cache sizes from /sys, which
# code without an OS cannot: the freestanding run is told the same sizes.
native_args=
if [ -n "$native" ] && [ "$arch" = arm64 ]; then
	l2= llc= best=0
	for d in /sys/devices/system/cpu/cpu0/cache/index*; do
		[ -r "$d/size" ] && [ "$(cat "$d/type")" != Instruction ] || continue
		lvl=$(cat "$d/level") size=$(cat "$d/size")
		case $size in *K) size=$((${size%K} << 10)) ;; *M) size=$((${size%M} << 20)) ;; esac
		[ "$lvl" = 2 ] && l2=$size
		[ "$lvl" -ge 2 ] && [ "$lvl" -ge $best ] && best=$lvl llc=$size
	done
	native_args="${l2:+--l2 $l2 }${llc:+--llc $llc}"
fi
[ -n "$native" ] && rows="native||$native_args|
$rows"

# The hosted library's decisions for a run: the same CPU, the description's
# --disable as CLEARPAGES_DISABLE (--no-simd as simd), --regs as the model described (cortex-a53).
hosted_for() { # runner, fs_check arguments
	local runner=$1 args=$2 dis=
	case $args in --disable\ *) dis=${args#--disable } ;; --no-simd) dis=simd ;; esac
	case $args in --regs\ *) runner=${runner/-cpu max/-cpu cortex-a53} ;; esac
	env -u CLEARPAGES_KERNEL -u CLEARPAGES_NT_THRESHOLD -u CLEARPAGES_PROFILE \
	    CLEARPAGES_DISABLE="$dis" CLEARPAGES_QUIET=1 $runner "$hosted"
}

printf '%-20s %-48s %s\n' run "kernel list" result
while IFS='|' read -r name runner args expect; do
	[ -n "$name" ] || continue
	log=$logdir/${name//[ ,]/_}
	start=$(date +%s.%N)
	hosted_for "$runner" "$args" >"$log.hosted" 2>"$log.hosted.err"
	hrc=$?
	[ "$name" = native ] && expect=$(sed -n 's/^kernels: //p' "$log.hosted")
	timeout -k 10 300 $runner "$prog" $args --report >"$log.report" 2>/dev/null
	rrc=$?
	timeout -k 10 300 $runner "$prog" $args ${expect:+--expect "$expect"} >"$log.log" 2>&1
	rc=$?
	secs=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
	tally=$(tail -n 1 "$log.log")
	result="$tally"
	if [ $rc -ne 0 ] || ! [[ $tally =~ ^[0-9]+\ passed,\ 0\ failed$ ]]; then
		[ $rc -gt 128 ] && result="killed by signal $((rc - 128)); $tally"
		fail "$name: fs_check: $result"
		grep -E '^(FAIL|kernels:)' "$log.log" | sed 's/^/    /'
	fi
	source=$(sed -n 's/^source: //p' "$log.hosted")
	if [ $hrc -ne 0 ] || [ $rrc -ne 0 ]; then
		fail "$name: hosted_report exit $hrc, fs_check --report exit $rrc"
	elif [[ $name == *LLC* ]]; then
		result="$result; a described LLC (the hosted library has no such entry)"
	elif [[ $source != builtin:* && $source != generic ]]; then
		echo "freestanding: $name: SKIPPED the comparison: the hosted library took '$source' (a machine-wide profile), which the freestanding object never reads"
	elif ! diff -u "$log.hosted" "$log.report" >"$log.diff"; then
		fail "$name: the freestanding dispatcher decides otherwise than the hosted library:"
		head -20 "$log.diff" | sed 's/^/    /'
	else
		result="$result; same as hosted for $(grep -c '^for ' "$log.report") extents"
	fi
	printf '%-20s %-48s %s [%ss]\n' "$name" "$(sed -n 's/^kernels: //p' "$log.log")" "$result" "$secs"
done <<<"$rows"

if [ $failed -ne 0 ]; then
	echo "freestanding ($arch): $failed FAILED (logs in $logdir)"
	exit 1
fi
echo "freestanding ($arch): passed"
