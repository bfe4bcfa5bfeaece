#!/bin/sh
# SPDX-License-Identifier: MIT
# The built libclearpages.so against the ABI baseline of the last release
# (abi/<arch>.abi, abidw of 1.0.0): abidiff must find no removed and no changed
# function, variable, ELF symbol or type (a struct cp_huge_opts grown by a
# field fails). Additions pass, with a reminder to update the baseline and
# debian/libclearpages0.symbols. The library needs its DWARF (-g, the default
# CFLAGS) or abidiff sees symbols only.
#   tests/check-abi.sh BASELINE LIBRARY READELF
set -u
base=$1 lib=$2 readelf=$3
fail() { echo "test-abi: FAILED -- $*"; exit 1; }
command -v abidiff >/dev/null || {
	echo "test-abi: SKIPPED -- abidiff missing (abigail-tools: make deps-test)"
	[ -z "${CI:-}" ] || fail "CI must run the ABI check"
	exit 0; }
[ -f "$base" ] || fail "no baseline $base"
$readelf -SW "$lib" | grep -q '\.debug_info' ||
	fail "$lib has no debug info: build it with -g (the default CFLAGS are -O2 -g)"

# Everything but additions: any output, or a non-zero status, fails.
out=$(abidiff --no-added-syms --headers-dir2 include --drop-private-types "$base" "$lib" 2>&1)
rc=$?
if [ $rc -ne 0 ]; then
	echo "$out"
	fail "the ABI of $lib differs from the release baseline $base (abidiff status $rc):" \
	     "a removed or changed interface breaks every program linked against the soname"
fi
# Additions: fine for the soname, but the baseline and symbols file lag.
out=$(abidiff --headers-dir2 include --drop-private-types "$base" "$lib" 2>&1)
rc=$?
if [ $rc -ne 0 ]; then
	echo "$out" | sed -n '/[Aa]dded\|^  \[A\]/p'
	echo "test-abi: passed, with additions only: at the next release regenerate $base" \
	     "(abi/README.md) and add the new symbols to debian/libclearpages0.symbols"
else
	echo "test-abi: $lib has the ABI of $base"
fi
