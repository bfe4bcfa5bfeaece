#!/bin/sh
# SPDX-License-Identifier: MIT
# make install into a scratch DESTDIR: the files must be exactly INSTALL_FILES,
# the soname links and the .pc version right, every man page opening with
# man -l (the shared names as symlinks); make uninstall must remove all
# of it and nothing else (a foreign file stays), and the folders install
# created, but not one that was there before.
#   tests/check-install.sh DESTDIR LIBDIR INCLUDEDIR DROPINDIR SONAME REALNAME VERSION FILE...
# (MAKE and MAKEFLAGS from the environment, as make passes them)
set -eu
d=$1 libdir=$2 includedir=$3 dropindir=$4 soname=$5 realname=$6 version=$7
shift 7
fail() { echo "test-install: $*"; exit 1; }
make_() { ${MAKE:-make} --no-print-directory -s "$@"; }

rm -rf "$d"
make_ install DESTDIR="$d"
( cd "$d" && find . ! -type d | sed 's|^\.||' | sort ) > "$d.got"
printf '%s\n' "$@" | sort > "$d.want"
diff -u "$d.want" "$d.got" || fail "installed files differ from INSTALL_FILES"
[ "$(readlink "$d$libdir/libclearpages.so")" = "$soname" ] &&
	[ "$(readlink "$d$libdir/$soname")" = "$realname" ] || fail "wrong soname symlinks"
grep -qx "Version: $version" "$d$libdir/pkgconfig/clearpages.pc" ||
	fail "clearpages.pc lacks Version: $version"
# the man pages: each opens with man -l; a name that shares a page is a symlink
pages=$(printf '%s\n' "$@" | grep '/man[1-9]/[^/]*\.[1-9]$')
for p in $pages; do
	src=man/$(basename "$(dirname "$p")")/$(basename "$p")
	[ ! -L "$src" ] || [ "$(readlink "$d$p")" = "$(readlink "$src")" ] ||
		fail "$p: not installed as a symlink to $(readlink "$src")"
done
tests/check-man.sh --open $(printf "$d%s " $pages) || fail "installed man pages that man -l cannot open (above)"

touch "$d$libdir/foreign"
make_ uninstall DESTDIR="$d"
left=$(cd "$d" && find . ! -type d)
[ "$left" = ".$libdir/foreign" ] || fail "after uninstall: $left"
[ ! -e "$d$dropindir" ] || fail "$dropindir left behind"
[ ! -e "$d$includedir" ] && [ ! -e "$d$libdir/pkgconfig" ] || fail "folders install created are left behind"

# a folder that was there before install stays after uninstall
mkdir -p "$d$includedir"
make_ install DESTDIR="$d"
make_ uninstall DESTDIR="$d"
[ -d "$d$includedir" ] || fail "removed $includedir, which it did not create"
rm -rf "$d" "$d.got" "$d.want"
echo "test-install: $# files installed and removed ($(echo $pages | wc -w) man pages open with man -l)"
