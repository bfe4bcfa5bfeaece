#!/bin/sh
# SPDX-License-Identifier: MIT
# The Debian packages, end to end, without touching the system or this tree:
#  1. the tree (git's tracked and untracked, not ignored, files) copied to
#     SCRATCH/src/clearpages-VERSION, and dpkg-buildpackage -us -uc run there,
#     source (clean: git's files only) and binaries (the .dsc, .tar.xz and
#     .debs land in SCRATCH/src, not in this tree's parent), with
#     DPKG_GENSYMBOLS_CHECK_LEVEL=2: a symbol missing from, or not yet in,
#     debian/libclearpages0.symbols fails the build;
#  2. lintian on the .changes, source and binaries: any error or warning fails
#     (debian/*lintian-overrides aside);
#  3. every .deb but the dbgsym ones unpacked (dpkg -x) into SCRATCH/root, the
#     scratch root; the freestanding object there needs nothing but mem*;
#     every man page there opens with man -l;
#  4. the autopkgtest's consumers (debian/tests/consumers) built and run
#     against that root (CP_ROOT), through pkg-config and CMake, C and C++;
#  5. SCRATCH removed: nothing was installed, nothing stays.
# SKIPPED (exit 0) where dpkg-buildpackage, debhelper or lintian is missing;
# under CI=1 that fails.
#   tests/check-deb.sh SCRATCH VERSION        (DEB_JOBS: build jobs, default 2)
set -u
scratch=$1 version=$2
cd "$(dirname "$0")/.." || exit 1
tree=$PWD
start=$(date +%s)
fail() { echo "test-deb: FAILED -- $*"; exit 1; }
skip() {
	echo "test-deb: SKIPPED -- $*"
	[ -z "${CI:-}" ] || fail "CI must build and check the Debian packages (make deps-test)"
	exit 0
}
for t in dpkg-buildpackage dh lintian dpkg-architecture; do
	command -v $t >/dev/null || skip "$t missing (make deps-test: debhelper dpkg-dev lintian)"
done
[ -d .git ] || [ -f .git ] || fail "not a git tree: cannot tell which files are the source"
# What the package's Build-Depends name must be here, or dpkg-buildpackage stops.
dpkg-checkbuilddeps >/dev/null 2>&1 || skip "$(dpkg-checkbuilddeps 2>&1 | sed 's/^dpkg-checkbuilddeps: error: //')"
# Our make's variables (ARCH=, BUILD=) must not reach debian/rules' make.
unset MAKEFLAGS MFLAGS MAKELEVEL

rm -rf "$scratch"
src=$scratch/src/clearpages-$version
mkdir -p "$src" "$scratch/root" || exit 1
git ls-files -z --cached --others --exclude-standard | xargs -0 sh -c '
	for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh | tar --null -T - -cf - | tar -xf - -C "$src" ||
	fail "cannot copy the tree to $src"

echo "test-deb: dpkg-buildpackage -us -uc in $src"
( cd "$src" && DPKG_GENSYMBOLS_CHECK_LEVEL=2 dpkg-buildpackage -us -uc --jobs-try="${DEB_JOBS:-2}" ) \
	>"$scratch/build.log" 2>&1 ||
	{ tail -n 60 "$scratch/build.log"; fail "dpkg-buildpackage failed (log: $scratch/build.log)"; }
grep -E '^\[=+\] Synthesis' "$scratch/build.log" | sed 's/^/test-deb: package check (make test-native): /'
debs=$(ls "$scratch"/src/*.deb | grep -v -- '-dbgsym_')
for p in libclearpages0 libclearpages-dev clearpages-bench; do
	echo "$debs" | grep -q "/${p}_${version}_" || fail "no $p .deb was built"
done

echo "test-deb: lintian"
lintian --fail-on error,warning -I "$scratch"/src/clearpages_${version}_*.changes 2>&1 |
	grep -v '^running with root privileges is not recommended!$' | tee "$scratch/lintian.log"
[ -s "$scratch/lintian.log" ] || echo "test-deb: lintian: no tags"
# lintian's status is lost in the pipe: run it once more for the verdict.
lintian --fail-on error,warning -q "$scratch"/src/clearpages_${version}_*.changes >/dev/null 2>&1 ||
	fail "lintian reports errors or warnings (above)"

root=$scratch/root
for d in $debs; do
	dpkg -x "$d" "$root" || fail "dpkg -x $d"
	echo "test-deb: unpacked $(basename "$d")"
done
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
fs=$root/usr/lib/$multiarch/clearpages/clearpages-freestanding.o
undef=$(nm -u "$fs" | awk '{print $2}' | grep -vxE 'memset|memcpy|memmove' || true)
[ -z "$undef" ] || fail "the packaged freestanding object needs: $(echo $undef)"
pages=$(find "$root/usr/share/man" ! -type d)
"$tree/tests/check-man.sh" --open $pages || fail "packaged man pages that man -l cannot open (above)"
echo "test-deb: $(echo $pages | wc -w) man pages open with man -l ($(find "$root/usr/share/man" -type l | wc -l) of them symlinks)"

echo "test-deb: debian/tests/consumers against $root"
CP_ROOT=$root AUTOPKGTEST_TMP=$scratch/consumers sh -c 'mkdir -p "$AUTOPKGTEST_TMP" && exec "$0"' \
	"$src/debian/tests/consumers" >"$scratch/consumers.log" 2>&1 ||
	{ cat "$scratch/consumers.log"; fail "the autopkgtest's consumers failed against the packages"; }
grep '^consumers: ' "$scratch/consumers.log" | sed 's/^/test-deb: /'

cd "$tree" && rm -rf "$scratch"
[ ! -e "$scratch" ] || fail "cannot remove $scratch"
echo "test-deb: passed in $(( $(date +%s) - start )) s (packages built, lint-clean, unpacked, consumed, removed)"
