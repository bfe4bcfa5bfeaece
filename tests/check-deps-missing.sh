#!/bin/sh
# SPDX-License-Identifier: MIT
# `make` (all) needs gcc, make and nasm (and binutils, coreutils, sed), and no
# test tool: no Criterion, no gnuplot, no cmake, no pkg-config. Proof:
#  1. a scratch bin/ holding links to exactly the tools below is the whole PATH
#     (env -i: nothing else inherited), so no other program can be run;
#  2. as root, in a private mount namespace (unshare -m), Criterion's headers
#     (/usr/include/criterion) and library files (libcriterion.*) are hidden:
#     an empty tmpfs and /dev/null mounted over them;
#  3. in that environment `make all` into a scratch BUILD must succeed and leave
#     every file `all` promises (library, objects, .pc, CMake files, clearbench);
#  4. negative control: in the same environment the Criterion test binary must
#     fail to build, and gnuplot must not be found -- so the hiding is real and
#     step 3 could have failed.
# Without root (or without mount namespaces) 2 and the Criterion half of 4 are
# left out and the step says so; under CI=1 that fails instead.
#   tests/check-deps-missing.sh SCRATCH ARCH
set -u
scratch=$1 arch=$2
cd "$(dirname "$0")/.." || exit 1
fail() { echo "test-deps-missing: FAILED -- $*"; exit 1; }

case $arch in
x86_64) tools="gcc as ld ar nasm" ;;
arm64)  tools="aarch64-linux-gnu-gcc aarch64-linux-gnu-as aarch64-linux-gnu-ld aarch64-linux-gnu-ar" ;;
*) fail "unknown arch $arch" ;;
esac
# make and the shell, and what the Makefile's recipes and $(shell) calls run.
tools="$tools make sh uname sed mkdir rm ln cmp realpath cat"

rm -rf "$scratch"
mkdir -p "$scratch/bin" || exit 1
for t in $tools; do
	p=$(command -v "$t") || fail "$t is not installed"
	ln -s "$p" "$scratch/bin/$t"
done

hide=0
if [ "$(id -u)" -eq 0 ] && unshare --mount true 2>/dev/null; then
	hide=1
elif [ -n "${CI:-}" ]; then
	fail "cannot hide Criterion (needs root and unshare --mount), and CI must run the whole check"
else
	echo "test-deps-missing: not root or no mount namespaces: Criterion stays visible, only PATH is reduced"
fi

# Runs "$@" with PATH = the scratch bin only, Criterion hidden where possible.
in_bare() {
	if [ $hide -eq 1 ]; then
		unshare --mount --propagation private sh -c '
			set -e
			[ ! -d /usr/include/criterion ] || mount -t tmpfs none /usr/include/criterion
			for f in /usr/lib/*/libcriterion.* /usr/lib/libcriterion.*; do
				[ -f "$f" ] && mount --bind /dev/null "$f"
			done
			exec env -i PATH="$0" HOME=/nonexistent LC_ALL=C "$@"' "$scratch/bin" "$@"
	else
		env -i PATH="$scratch/bin" HOME=/nonexistent LC_ALL=C "$@"
	fi
}

build=$scratch/build
echo "test-deps-missing: make all (PATH: $(echo $tools); Criterion hidden: $([ $hide -eq 1 ] && echo yes || echo no))"
in_bare make --no-print-directory -j2 ARCH="$arch" BUILD="$build" all >"$scratch/build.log" 2>&1 ||
	{ cat "$scratch/build.log"; fail "make all needs more than the tools above"; }
ver=$(sed -n 's/^.define CP_VERSION_\(MAJOR\|MINOR\|PATCH\)[[:space:]]*\([0-9]*\).*/\2/p' include/clearpages.h | paste -sd.)
for f in libclearpages.a libclearpages.so "libclearpages.so.$ver" clearpages.o clearpages-freestanding.o \
         clearpages.pc cmake/clearpagesConfig.cmake cmake/clearpagesConfigVersion.cmake clearbench; do
	[ -e "$build/$f" ] || fail "make all left no $build/$f"
done
[ -n "$(ls "$build"/kernels/*.o 2>/dev/null)" ] || fail "make all built no kernel objects"
[ ! -e "$build/tests" ] || fail "make all built the test binaries ($build/tests)"
! grep -n 'criterion\|gnuplot' "$scratch/build.log" || fail "the build log names Criterion or gnuplot"

# Negative control: the same environment cannot build what needs Criterion.
in_bare sh -c 'command -v gnuplot' >/dev/null && fail "gnuplot is reachable from the bare PATH"
if [ $hide -eq 1 ]; then
	if in_bare make --no-print-directory ARCH="$arch" BUILD="$build" "$build/tests/cp_tests" \
	    >"$scratch/control.log" 2>&1; then
		fail "the Criterion suite built with Criterion hidden: the hiding does not work"
	fi
	grep -q 'criterion' "$scratch/control.log" ||
		{ cat "$scratch/control.log"; fail "the control build failed, but not on Criterion"; }
	echo "test-deps-missing: control: the test binary does not build there ($(grep -m1 -o 'criterion/[a-z_.]*: No such file or directory' "$scratch/control.log" || echo 'Criterion missing'))"
fi
rm -rf "$scratch"
echo "test-deps-missing: make all built with only:$(printf ' %s' $tools)"
