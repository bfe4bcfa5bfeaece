#!/bin/sh
# SPDX-License-Identifier: MIT
# binfmt_misc for the arm64 test runs. Criterion re-executes the test binary for
# its workers, so under qemu-user the kernel must know how to run an aarch64
# ELF: this registers ONE entry, for aarch64 only (never a glob of qemu's
# binfmt.d: that folder also holds qemu-x86_64.conf, and every native binary
# would then run through qemu).
#
#   scripts/arm64-binfmt.sh find            print the interpreter that will run aarch64
#                                           binaries now (exit 1: none)
#   scripts/arm64-binfmt.sh register QEMU   (root) mount binfmt_misc if needed and register
#                                           QEMU as entry "clearpages-aarch64" (flag F: the
#                                           interpreter is opened now, so it works in any
#                                           mount namespace); the newest entry wins the match
#   scripts/arm64-binfmt.sh unregister      remove that entry (only ours; others stay)
#   scripts/arm64-binfmt.sh run CMD...      register (root) if no entry, run CMD, unregister
#                                           what it registered; environment: QEMU_CPU,
#                                           QEMU_LD_PREFIX reach every re-executed worker
set -u
BM=/proc/sys/fs/binfmt_misc
NAME=clearpages-aarch64
# e_ident (ELF64, little endian, version 1) and e_machine 0xb7 (EM_AARCH64), as qemu's
# qemu-aarch64.conf has them.
MAGIC='\x7f\x45\x4c\x46\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00'
MASK='\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff'
HEX_MAGIC=7f454c460201010000000000000000000200b700

# The interpreter of the entry that matches aarch64 ELF files. binfmt_misc
# tries the newest registration first, so ours wins when present.
find_entry() {
	[ -r "$BM/status" ] || return 1
	grep -qx enabled "$BM/status" || return 1
	if [ -r "$BM/$NAME" ] && grep -qx enabled "$BM/$NAME"; then
		sed -n 's/^interpreter //p' "$BM/$NAME"
		return 0
	fi
	for e in "$BM"/*; do
		case ${e##*/} in register|status) continue ;; esac
		[ -r "$e" ] || continue
		grep -qx enabled "$e" || continue
		grep -q "^magic $HEX_MAGIC" "$e" || continue
		sed -n 's/^interpreter //p' "$e"
		return 0
	done
	return 1
}

register() {
	qemu=$1
	case $qemu in
	/*) ;;
	*/*) qemu=$PWD/$qemu ;;
	*) qemu=$(command -v "$qemu") || qemu=$1 ;;
	esac
	[ -x "$qemu" ] || { echo "arm64-binfmt: no interpreter at $qemu" >&2; return 1; }
	[ "$(id -u)" -eq 0 ] || { echo "arm64-binfmt: not root" >&2; return 1; }
	if [ ! -w "$BM/register" ]; then
		mount -t binfmt_misc binfmt_misc "$BM" 2>/dev/null ||
			{ echo "arm64-binfmt: cannot mount binfmt_misc on $BM" >&2; return 1; }
	fi
	[ -e "$BM/$NAME" ] && echo -1 >"$BM/$NAME"
	printf ':%s:M::%s:%s:%s:F\n' "$NAME" "$MAGIC" "$MASK" "$qemu" >"$BM/register" ||
		{ echo "arm64-binfmt: the kernel refused the registration" >&2; return 1; }
	grep -qx enabled "$BM/status" || echo 1 >"$BM/status"
}

unregister() {
	[ -e "$BM/$NAME" ] && echo -1 >"$BM/$NAME"
	return 0
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
find) find_entry ;;
register) register "$@" ;;
unregister) unregister ;;
run)
	mine=0
	if ! find_entry >/dev/null; then
		qemu=${QEMU_AARCH64:-qemu-aarch64}
		register "$qemu" || { echo "arm64-binfmt: cannot run aarch64 binaries here" >&2; exit 1; }
		mine=1
		# a timeout's SIGTERM must not leave the entry registered
		trap 'unregister; exit 143' INT TERM
	fi
	"$@"
	rc=$?
	[ $mine -eq 1 ] && unregister
	exit $rc
	;;
*) sed -n '2,20s/^# \{0,1\}//p' "$0"; exit 2 ;;
esac
