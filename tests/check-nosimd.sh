#!/bin/sh
# SPDX-License-Identifier: MIT
# The CP_SIMD flag against the code, for every kernel of arch/<arch>/kernels.def
# and copy_kernels.def: a kernel with regs SIMD must name a vector register in
# the disassembly of its object (build/<arch>/kernels/<name>.o, copy_<name>.o
# for a copy kernel), and every GPR kernel must name none,
# nor any instruction that touches vector state. So the flag cannot silently
# be wrong either way: CLEARPAGES_DISABLE=simd trusts it.
#   x86_64: %xmm/%ymm/%zmm, %mm, %k opmasks; vzeroupper, vzeroall, emms, ldmxcsr
#   arm64:  v/q/z/p registers and the b/h/s/d/q FP scalars
# Usage: tests/check-nosimd.sh <x86_64|arm64> <builddir>. Run by check-elf.sh.
set -eu
[ $# -eq 2 ] || { echo "usage: $0 <x86_64|arm64> <builddir>" >&2; exit 2; }
arch=$1 build=$2
dir=$(dirname "$0")/../arch/$arch
case $arch in
x86_64)	cross= comment='#'
	vector='%([xyz]mm[0-9]+|mm[0-7]|k[0-7])|^(vzeroupper|vzeroall|emms|ldmxcsr|fxrstor|xrstor)' ;;
arm64)	cross=aarch64-linux-gnu- comment='//'
	[ "$(uname -m)" = aarch64 ] && cross=
	vector='(^|[^a-z0-9_])[vqzpbhsd][0-9]+([^0-9a-z_]|$)' ;;
*)	echo "check-nosimd: unknown arch '$arch'" >&2; exit 2 ;;
esac

# Instructions of an object, "mnemonic operands", without addresses, branch
# targets (hex <symbol>) or comments, which could look like register names.
insns() {
	${cross}objdump -d --no-show-raw-insn "$1" | awk -F'\t' -v comment="$comment" '
		/^ *[0-9a-f]+:\t/ {
			s = $2; for (i = 3; i <= NF; i++) s = s " " $i
			if ((c = index(s, comment)) > 0) s = substr(s, 1, c - 1)
			gsub(/[0-9a-f]+ <[^>]*>/, "", s)
			print s
		}'
}

failures=0 n=0
rows=$(sed -n 's/^CP_KERNEL( *\([a-z0-9_]*\) *, *[A-Z]* *, *\([A-Z]*\) *,.*/\1 \2/p' "$dir/kernels.def"
      sed -n 's/^CP_COPY_KERNEL( *\([a-z0-9_]*\) *, *[A-Z]* *, *\([A-Z]*\) *,.*/copy_\1 \2/p' "$dir/copy_kernels.def")
[ "$(printf '%s\n' "$rows" | grep -c .)" -eq "$(cat "$dir/kernels.def" "$dir/copy_kernels.def" | grep -c '^CP_\(COPY_\)\?KERNEL(')" ] ||
	{ echo "check-nosimd: FAIL: cannot read every CP_KERNEL and CP_COPY_KERNEL row of $dir"; exit 1; }
while read -r name regs; do
	obj=$build/kernels/$name.o
	[ -e "$obj" ] || { echo "check-nosimd: FAIL: $obj missing"; failures=$((failures + 1)); continue; }
	hits=$(insns "$obj" | grep -E "$vector" || true)
	case $regs/${hits:+some} in
	SIMD/some|GPR/) ;;
	SIMD/)	echo "check-nosimd: FAIL: $name is SIMD in its .def, but $obj names no vector register"
		failures=$((failures + 1)) ;;
	GPR/some)
		echo "check-nosimd: FAIL: $name is GPR in its .def, but $obj touches vector state:"
		printf '%s\n' "$hits" | head -5 | sed 's/^/    /'
		failures=$((failures + 1)) ;;
	*)	echo "check-nosimd: FAIL: $name: regs '$regs' is neither GPR nor SIMD"
		failures=$((failures + 1)) ;;
	esac
	n=$((n + 1))
done <<EOT
$rows
EOT
if [ $failures -ne 0 ]; then
	echo "check-nosimd: $arch: $failures of $n kernels disagree with their .def"
	exit 1
fi
echo "check-nosimd: $arch: $n kernels, each SIMD kernel names vector registers, no GPR kernel does"
