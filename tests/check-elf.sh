#!/bin/sh
# SPDX-License-Identifier: MIT
# ELF checks of one build/<arch>/ tree, with that arch's binutils:
#  - only cp_ names are global in libclearpages.a, clearpages.o and the kernel
#    objects; internal cp__ names are hidden; each kernel object defines its one
#    public entry and needs nothing (usable alone);
#  - libclearpages.so: the soname, only the public API exported (no cp__), the
#    same API as clearpages.o, no executable stack;
#  - every object carries .note.GNU-stack and the IBT+SHSTK (x86_64) or BTI+PAC
#    (arm64) property, and so does the .so;
#  - every exported function starts at a landing pad (endbr64 / bti c);
#  - `ld -r` of a hardened consumer with clearpages.o (and with each kernel) keeps
#    the property, while an unhardened consumer drops it (the check can fail);
#  - each kernel's CP_SIMD flag matches its code (tests/check-nosimd.sh).
# Usage: tests/check-elf.sh <x86_64|arm64> <builddir>. Exit 1 on any violation.
set -eu
[ $# -eq 2 ] || { echo "usage: $0 <x86_64|arm64> <builddir>" >&2; exit 2; }
arch=$1 build=$2
header=$(dirname "$0")/../include/clearpages.h

case $arch in
x86_64)	cross=
	harden=-fcf-protection=full unharden=-fcf-protection=none
	prop='x86 feature: IBT, SHSTK' ;;
arm64)	cross=aarch64-linux-gnu-
	[ "$(uname -m)" = aarch64 ] && cross=
	harden=-mbranch-protection=standard unharden=-mbranch-protection=none
	prop='AArch64 feature: BTI, PAC' ;;
*)	echo "check-elf: unknown arch '$arch'" >&2; exit 2 ;;
esac
READELF=${cross}readelf OBJDUMP=${cross}objdump LD=${cross}ld CC=${cross}gcc AR=${cross}ar

failures=0
fail() { echo "check-elf: FAIL: $*"; failures=$((failures + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for f in libclearpages.a clearpages.o libclearpages.so; do
	[ -e "$build/$f" ] || { echo "check-elf: FAIL: $build/$f missing (run make ARCH=$arch)"; exit 1; }
done
kernels=$(ls "$build"/kernels/*.o)
mkdir "$tmp/a"
lib_a=$(cd "$build" && pwd)/libclearpages.a
(cd "$tmp/a" && $AR x "$lib_a")
members=$(ls "$tmp"/a/*.o)

# Defined global/weak symbols as "name vis type".
globals() {
	$READELF -sW "$1" | awk '($5 == "GLOBAL" || $5 == "WEAK") && $7 != "UND" { print $8, $6, $4 }'
}

# Failures a pipeline (a subshell) wrote to $tmp/out, one a line.
count_out() {
	if [ -s "$tmp/out" ]; then cat "$tmp/out"; failures=$((failures + $(wc -l <"$tmp/out"))); fi
}

# Symbol hygiene of a static object $1, named $2 in messages.
check_symbols() {
	globals "$1" | while read -r name vis type; do
		case $name in
		cp__*)	[ "$vis" = HIDDEN ] || echo "check-elf: FAIL: $2: internal $name is $vis, not HIDDEN" ;;
		cp_*)	;;
		*)	echo "check-elf: FAIL: $2: global symbol '$name' is not cp_-prefixed" ;;
		esac
		# NASM local labels (cp_x86_64_avx2.block) must stay local.
		case $name in *[!A-Za-z0-9_]*)
			echo "check-elf: FAIL: $2: global symbol '$name' is not a C identifier" ;;
		esac
	done >"$tmp/out"
	count_out
}

# Notes every object needs; $2 names $1 in messages.
check_notes() {
	stack=$($READELF -SW "$1" | grep -F '.note.GNU-stack' || true)
	[ -n "$stack" ] || fail "$2: no .note.GNU-stack (executable stack)"
	case $stack in *X*) fail "$2: .note.GNU-stack is executable" ;; esac
	$READELF -n "$1" | grep -qF "$prop" || fail "$2: no '$prop' property"
}

# Each global function of $1 must start with a landing pad. $2: also accept the
# PAC signing instructions, which are implicit BTI landing pads (C functions on arm64).
check_pads() {
	globals "$1" | awk '$3 == "FUNC" { print $1 }' >"$tmp/funcs"
	$OBJDUMP -d --no-show-raw-insn "$1" | awk -v want="$tmp/funcs" '
		BEGIN { while ((getline n < want) > 0) f[n] = 1 }
		/^[0-9a-f]+ <.*>:$/ { name = substr($2, 2, length($2) - 3); next_is = (name in f); next }
		next_is && /^ *[0-9a-f]+:/ { sub(/^ *[0-9a-f]+:[ \t]*/, ""); gsub(/[ \t]+/, " "); print name ": " $0; next_is = 0 }
	' >"$tmp/pads"
	[ "$(wc -l <"$tmp/pads")" -eq "$(wc -l <"$tmp/funcs")" ] ||
		fail "$1: found $(wc -l <"$tmp/pads") of $(wc -l <"$tmp/funcs") function entries in objdump -d"
	case $arch in
	x86_64)	pads='endbr64' ;;
	arm64)	pads='bti c'; [ -n "${2:-}" ] && pads='bti c|paciasp|pacibsp' ;;
	esac
	grep -vE ": ($pads)\$" "$tmp/pads" | while read -r line; do
		echo "check-elf: FAIL: $1: entry without a landing pad: $line"
	done >"$tmp/out"
	count_out
}

# --- objects: the archive's members, the single object, each kernel, the .so glue
for o in $members; do
	label="$build/libclearpages.a($(basename "$o"))"
	check_symbols "$o" "$label"
	check_notes "$o" "$label"
done
for o in "$build/clearpages.o" $kernels; do
	check_symbols "$o" "$o"
	check_notes "$o" "$o"
done
# Linked into the .so only (see common/Dir.mk); its symbols end up local there.
glue=$build/obj/so-glue.o
[ -e "$glue" ] && check_notes "$glue" "$glue"
check_pads "$build/clearpages.o" c
for k in $kernels; do
	check_pads "$k"
	name=$(basename "$k" .o)
	api=$(globals "$k" | awk '$1 !~ /^cp__/ { print $1 }')
	[ "$api" = "cp_${arch}_$name" ] || fail "$k: public symbols '$api', want cp_${arch}_$name alone"
	undef=$($READELF -sW "$k" | awk '$7 == "UND" && $8 != "" { print $8 }')
	[ -z "$undef" ] || fail "$k: needs $undef (a kernel object must stand alone)"
done

# --- the shared library
abi=$(sed -n 's/^#define CP_SONAME_VERSION[[:space:]]*\([0-9]*\).*/\1/p' "$header")
so=$build/libclearpages.so
soname=$($READELF -dW "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libclearpages.so.$abi" ] || fail "$so: soname '$soname', want libclearpages.so.$abi"
$READELF --dyn-syms -W "$so" | awk '($5 == "GLOBAL" || $5 == "WEAK") && $7 != "UND" { print $8 }' |
	sort >"$tmp/dyn"
grep -v '^cp_[A-Za-z0-9]' "$tmp/dyn" | while read -r s; do echo "check-elf: FAIL: $so exports $s"; done >"$tmp/out"
count_out
globals "$build/clearpages.o" | awk '$1 ~ /^cp_[A-Za-z0-9]/ { print $1 }' | sort >"$tmp/api"
cmp -s "$tmp/api" "$tmp/dyn" || { fail "$so exports a different API than clearpages.o:"; diff "$tmp/api" "$tmp/dyn" || true; }
stack=$($READELF -lW "$so" | awk '$1 == "GNU_STACK" { print $7 }')
[ "$stack" = RW ] || fail "$so: GNU_STACK '$stack', want RW"
$READELF -n "$so" | grep -qF "$prop" || fail "$so: no '$prop' property"

# --- ld -r with a consumer: hardened keeps the property, unhardened loses it
printf '#include "clearpages.h"\nint consumer(void *p, size_t n) { return cp_clear_pages(p, n); }\n' >"$tmp/consumer.c"
for mode in harden unharden; do
	eval flags=\$$mode
	$CC -std=c99 -O2 $flags -I"$(dirname "$header")" -c "$tmp/consumer.c" -o "$tmp/$mode.o"
	for o in "$build/clearpages.o" $kernels; do
		$LD -r -o "$tmp/linked.o" "$tmp/$mode.o" "$o" 2>"$tmp/ld.err" ||
			{ cat "$tmp/ld.err"; fail "ld -r of a consumer with $o"; continue; }
		if $READELF -n "$tmp/linked.o" | grep -qF "$prop"; then has=yes; else has=no; fi
		case $mode/$has in
		harden/no)	fail "ld -r of a $flags consumer with $o loses '$prop'" ;;
		unharden/yes)	fail "ld -r of a $flags consumer with $o keeps '$prop': the check cannot see a downgrade" ;;
		esac
	done
done

# --- the kernels' vector registers against kernels.def's regs column
"$(dirname "$0")/check-nosimd.sh" "$arch" "$build" || failures=$((failures + 1))

nobj=$(echo $members "$build/clearpages.o" $kernels | wc -w)
if [ "$failures" -ne 0 ]; then
	echo "check-elf: $arch: $failures violation(s) in $build"
	exit 1
fi
echo "check-elf: $arch: OK ($nobj objects, $(wc -l <"$tmp/dyn") exported symbols, soname $soname, '$prop')"
