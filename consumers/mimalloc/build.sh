#!/bin/sh
# SPDX-License-Identifier: MIT
# consumers/mimalloc/build.sh ARCH CLEARPAGES_O OUTDIR
# Build Debian 12's mimalloc (fetched by fetch.sh) with its own CMake, three times:
#   OUTDIR/stock          as Debian ships it
#   OUTDIR/patched        with clearpages.patch (zeroing of blocks >= 64 KiB through clearpages,
#                         the drop-in CLEARPAGES_O linked into libmimalloc.so), fresh-zero.patch
#                         (a huge block fresh from the OS is not zeroed again) and discard.patch
#                         (a reused block of 4 MiB or more that is mostly not resident is zeroed
#                         by cp_zero with CP_ZERO_MAY_DISCARD)
#   OUTDIR/patched-fresh  fresh-zero.patch alone (what the discard is measured against)
# and the variants named in CP_MIMALLOC_VARIANTS (below).
# Each has libmimalloc.so, libmimalloc.a and the test programs mimalloc-test-{api,api-fill,stress}.
# Rebuilds only what changed (cmake's own dependency tracking).
set -eu
[ $# -eq 3 ] || { echo "usage: $0 ARCH CLEARPAGES_O OUTDIR" >&2; exit 2; }
arch=$1 cpo=$(realpath "$2") out=$3
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
src=$root/.deps/mimalloc/src
"$here/fetch.sh"
mkdir -p "$out"
out=$(realpath "$out")

toolchain=
[ "$arch" = arm64 ] && [ "$(uname -m)" != aarch64 ] && toolchain="-DCMAKE_TOOLCHAIN_FILE=$here/aarch64-linux-gnu.cmake"

# A patched copy of the source, remade when its list of patches changed or one is newer.
patched_tree() {  # NAME PATCH...
	tree=$out/src-$1; shift
	stamp=$tree/.patched
	[ -f "$stamp" ] && [ "$(cat "$stamp")" != "$*" ] && rm -f "$stamp"
	for p in "$@"; do [ -f "$stamp" ] && [ -n "$(find "$p" -newer "$stamp")" ] && rm -f "$stamp"; done
	if [ ! -f "$stamp" ]; then
		rm -rf "$tree"; cp -r "$src" "$tree"
		for p in "$@"; do patch -s -p1 -d "$tree" <"$p"; done
		echo "$*" >"$stamp"
	fi
	echo "$tree"
}

build() {  # NAME SOURCE [extra cmake args]
	name=$1 tree=$2; shift 2
	# CMake does not track an object passed in the linker flags: relink by hand when
	# clearpages.o is newer than the library it went into (the builds given cmake arguments)
	if [ $# -gt 0 ] && [ -n "$(find "$out/$name" -maxdepth 1 -name 'libmimalloc.so*' \
	     ! -newer "$cpo" 2>/dev/null)" ]; then
		rm -f "$out/$name"/libmimalloc.so*
	fi
	# shellcheck disable=SC2086
	cmake -S "$tree" -B "$out/$name" -DCMAKE_BUILD_TYPE=Release -DMI_BUILD_TESTS=ON \
	      -DMI_BUILD_OBJECT=OFF $toolchain "$@" >"$out/$name.cmake.log" 2>&1 ||
		{ cat "$out/$name.cmake.log"; exit 1; }
	cmake --build "$out/$name" -j1 >"$out/$name.build.log" 2>&1 ||
		{ tail -40 "$out/$name.build.log"; exit 1; }
	echo "mimalloc-build: $arch $name in $out/$name"
}

# cmake arguments that compile in MI_USE_CLEARPAGES and link the drop-in
cp_cflags="-DCMAKE_C_FLAGS=-DMI_USE_CLEARPAGES -I$root/include"
cp_ldflags="-DCMAKE_SHARED_LINKER_FLAGS=$cpo -Wl,--version-script=$here/hide-clearpages.map"

build stock "$src"
patches="$here/clearpages.patch $here/fresh-zero.patch"
# shellcheck disable=SC2086
build patched "$(patched_tree patched $patches "$here/discard.patch")" "$cp_cflags" "$cp_ldflags"
build patched-fresh "$(patched_tree patched-fresh "$here/fresh-zero.patch")"
# Variants for clearbench calloc only (CP_MIMALLOC_VARIANTS="cponly nodiscard"):
# patched-cponly is clearpages.patch alone (fresh huge blocks zeroed again, through cp_zero);
# patched-nodiscard is the first two patches (every block stored). The experiments measured
# once (hot, page, always) left the tree; their patches are in git history (commit 110c7af).
for v in ${CP_MIMALLOC_VARIANTS:-}; do
	case $v in
	cponly) vp="$here/clearpages.patch" ;;
	nodiscard) vp="$patches" ;;
	*) echo "mimalloc-build: unknown variant '$v' (cponly, nodiscard)" >&2
	   exit 2 ;;
	esac
	# shellcheck disable=SC2086
	build "patched-$v" "$(patched_tree "patched-$v" $vp)" "$cp_cflags" "$cp_ldflags"
done
# calloc-check against each build: mimalloc's own tests never zero-check a reused block of 4 KiB
# or more, the only blocks the patches change.
for v in stock patched patched-fresh $(for x in ${CP_MIMALLOC_VARIANTS:-}; do echo "patched-$x"; done); do
	${CC:-cc} -O2 -Wall -Wextra -I"$src/include" -o "$out/$v/calloc-check" "$here/calloc-check.c" \
	    -L"$out/$v" -Wl,-rpath,"$out/$v" -lmimalloc
done
