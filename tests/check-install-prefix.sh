#!/bin/sh
# SPDX-License-Identifier: MIT
# The README's install and link lines, run as written, from a private prefix
# outside the tree: the indented block of "## Dropping it into another build"
# (a `make install PREFIX=$HOME/.local` line, then one `cc app.c ...` line per
# way, each ending in `# shared`, `# static` or `# object`), with HOME a
# scratch folder under /tmp (removed afterwards) and app.c a small program of
# ours. Each program must start and zero; the shared one must load
# libclearpages from the prefix through its rpath alone, and, built without the
# rpath, only with LD_LIBRARY_PATH (both as the README says). The installed
# .pc and CMake package must name the prefix, the build folder's ones the build
# folder (a program linked through its .pc loads the build's library); and
# make install must leave the build folder as it was: every file's bytes, mode
# and mtime, every symlink, no file added or removed.
#   tests/check-install-prefix.sh BUILD NATIVE [README]
# BUILD: the build folder (build/<arch>); NATIVE: 1 where the programs can be
# built and run here (ARCH is the host's), else 0: the install and the build
# folder are checked, the programs skipped. MAKE and MAKEFLAGS from the
# environment, as make passes them.
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
build=$(cd "$1" && pwd) native=$2 readme=${3:-README.md}
fail() { echo "test-install-prefix: $*"; exit 1; }

# The block, continuation-free, one command a line.
lines=$(awk '/^## / { on = ($0 == "## Dropping it into another build"); next }
	on && /^    [^ ]/ { sub(/^    /, ""); print }' "$readme")
[ -n "$lines" ] || fail "$readme has no indented block under '## Dropping it into another build'"
echo "$lines" | grep -q '^make install PREFIX=\$HOME/' ||
	fail "$readme's block has no 'make install PREFIX=\$HOME/...' line"
for kind in shared static object; do
	[ "$(echo "$lines" | grep -c "^cc app\.c .*# $kind\$")" = 1 ] ||
		fail "$readme's block needs exactly one 'cc app.c ... # $kind' line"
done
awk '/^## / { on = ($0 == "## Dropping it into another build"); next } on' "$readme" |
	grep -q 'LD_LIBRARY_PATH' || fail "$readme's section does not mention LD_LIBRARY_PATH"

tmp=$(mktemp -d /tmp/cp-install-prefix.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/app"
cat > "$tmp/app/app.c" <<'EOF'
#include <clearpages.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(void)
{
	size_t len = 5 * CP_PAGE_SIZE + 123, i;
	unsigned char *p = malloc(len + 2);
	int r;
	if (!p)
		return 2;
	memset(p, 0xa5, len + 2);
	r = cp_zero(p + 1, len, 0);
	for (i = 1; i <= len; i++)
		if (p[i])
			break;
	if (r || i <= len || p[0] != 0xa5 || p[len + 1] != 0xa5) {
		printf("app: cp_zero returned %d, byte %zu is %#x\n", r, i, i <= len ? p[i] : 0);
		return 1;
	}
	printf("app: clearpages %s zeroed %zu bytes (policy %s)\n", cp_version(), len, cp_policy_source());
	free(p);
	return 0;
}
EOF

# Every entry of the build folder: file bytes, mode, mtime; symlink targets.
snapshot() {
	( cd "$build" && find . ! -type d -printf '%y %m %T@ %p -> %l\n' | sort &&
	  find . -type f -print0 | sort -z | xargs -0 -r sha256sum )
}
snapshot > "$tmp/before"

# The README's lines, in the README's order and one shell (its export carries):
# make from the tree, cc in the app's folder. make quietly, as make passes it.
make() { command ${MAKE:-make} --no-print-directory -s "$@"; }
export HOME="$tmp"
prefix=$tmp/.local
unset LD_LIBRARY_PATH PKG_CONFIG_PATH PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR || true
echo "$lines" > "$tmp/lines"
built=
while IFS= read -r line; do
	case $line in
	make\ *|export\ *) cd "$root" ;;
	cc\ *) [ "$native" = 1 ] || { echo "SKIPPED (not native): $line"; continue; }
	       cd "$tmp/app"; rm -f app ;;
	*) fail "$readme's block: a line that is neither make, export nor cc: $line" ;;
	esac
	echo "--- $line"
	eval "$line" || fail "failed: $line"
	case $line in cc\ *)
		kind=${line##*# }
		needs=$(readelf -dW app | grep -c 'NEEDED.*\[libclearpages\.so\.' || true)
		case $kind in shared) [ "$needs" = 1 ] ;; *) [ "$needs" = 0 ] ;; esac ||
			fail "$kind: the program needs libclearpages.so $needs times"
		if [ "$kind" = shared ]; then
			from=$(ldd ./app | grep 'libclearpages\.so\.' || true)
			case $from in *"=> $prefix/lib/libclearpages.so."*) ;;
			*) fail "shared: ldd says '$from', not $prefix/lib" ;; esac
		fi
		./app || fail "$kind: the program did not run: $line"
		built="$built $kind"
		if [ "$kind" = shared ]; then
			# the same line without the rpath: needs LD_LIBRARY_PATH, as the README says
			eval "$(echo "$line" | sed -e 's/ -Wl,-rpath,[^ ]*//' -e 's/ -o app / -o app-norpath /')"
			! ./app-norpath >/dev/null 2>&1 || fail "shared without the rpath started without LD_LIBRARY_PATH"
			LD_LIBRARY_PATH=$prefix/lib ./app-norpath >/dev/null ||
				fail "shared without the rpath did not run with LD_LIBRARY_PATH=$prefix/lib"
		fi ;;
	esac
done < "$tmp/lines"
cd "$root"

snapshot > "$tmp/after"
if ! cmp -s "$tmp/before" "$tmp/after"; then
	diff -u "$tmp/before" "$tmp/after" | sed -n '3,$p' | grep '^[-+]' | head -40
	fail "make install PREFIX=$prefix changed the build folder $build (above: - before, + after)"
fi

# The .pc and CMake files: the installed ones name the prefix, the build
# folder's ones the build folder; every folder a CMake package names exists.
pcvar() { pkg-config --variable="$2" "$1/clearpages.pc"; }
for v in prefix libdir; do
	want=$prefix; [ $v = libdir ] && want=$prefix/lib
	[ "$(pcvar "$prefix/lib/pkgconfig" $v)" = "$want" ] || fail "installed clearpages.pc: $v is not $want"
	[ "$(pcvar "$build" $v)" = "$build" ] || fail "$build/clearpages.pc: $v is not $build"
done
[ -e "$(pcvar "$prefix/lib/pkgconfig" dropindir)/clearpages.o" ] &&
	[ -e "$(pcvar "$build" dropindir)/clearpages.o" ] &&
	[ -e "$(pcvar "$build" includedir)/clearpages.h" ] &&
	[ -e "$(pcvar "$build" freestanding)" ] || fail "a clearpages.pc names a file that is not there"
if [ "$native" = 1 ]; then
	# the build folder's .pc links the build as it lies
	echo "--- the same program, shared, from $build/clearpages.pc"
	cd "$tmp/app"
	cc app.c $(PKG_CONFIG_PATH=$build pkg-config --cflags --libs clearpages) -Wl,-rpath,"$build" -o app-build &&
		ldd ./app-build | grep -q "=> $build/libclearpages\.so\." && ./app-build ||
		fail "a program linked from $build/clearpages.pc failed (or did not load $build's library)"
	cd "$root"
fi
for dir in "$prefix/lib/cmake/clearpages" "$build/cmake"; do
	rels=$(sed -n 's|.*"${CMAKE_CURRENT_LIST_DIR}/\([^"]*\)".*|\1|p' "$dir/clearpagesConfig.cmake")
	[ "$(echo "$rels" | wc -l)" -ge 3 ] || fail "$dir/clearpagesConfig.cmake: expected 3 folders, got: $rels"
	for r in $rels; do [ -d "$dir/$r" ] || fail "$dir/clearpagesConfig.cmake names $r, not a folder"; done
	for f in libclearpages.a clearpages.o clearpages-freestanding.o clearpages.h; do
		found=0; for r in $rels; do [ -e "$dir/$r/$f" ] && found=1; done
		[ $found = 1 ] || fail "$dir/clearpagesConfig.cmake: no folder it names holds $f"
	done
done

[ "$native" = 1 ] && n="ran:$built" || n="programs skipped (not native)"
echo "test-install-prefix: $readme's lines from $prefix ($n); the build folder unchanged by make install"
