#!/bin/sh
# SPDX-License-Identifier: MIT
# One version everywhere: CP_VERSION_* of include/clearpages.h (VERSION, as
# common/Dir.mk reads it) must be the built clearpages.pc's Version, the CMake
# package's PACKAGE_VERSION, the shared library's file name, debian/changelog's
# top entry, NEWS's top entry and every man page's .TH source line; the
# soname (libclearpages.so.N, N = CP_SONAME_VERSION: ABI breaks, not releases)
# must be the built library's DT_SONAME, the ABI baseline's, the symbols
# file's and the runtime package's name, and the CMake package's.
#   tests/check-version.sh VERSION SONAME PC CMAKE_VERSION_FILE LIB_SO_REAL READELF
set -u
version=$1 soname=$2 pc=$3 cmakever=$4 lib=$5 readelf=$6
cd "$(dirname "$0")/.." || exit 1
bad=0
want() {   # what, found, expected
	if [ "$2" != "$3" ]; then echo "test-version: $1 is '$2', not '$3'"; bad=1; fi
}
sover=$(sed -n 's/^#define CP_SONAME_VERSION[[:space:]]*\([0-9]*\).*/\1/p' include/clearpages.h)

want "clearpages.pc Version" "$(sed -n 's/^Version: //p' "$pc")" "$version"
want "CMake PACKAGE_VERSION" "$(sed -n 's/^set(PACKAGE_VERSION "\([^"]*\)")$/\1/p' "$cmakever")" "$version"
want "CMake IMPORTED_SONAME" \
	"$(sed -n 's/.*IMPORTED_SONAME "\([^"]*\)".*/\1/p' "$(dirname "$cmakever")/clearpagesConfig.cmake")" "$soname"
want "the library's file name" "$(basename "$lib")" "libclearpages.so.$version"
want "the soname" "$soname" "libclearpages.so.$sover"
want "DT_SONAME of $lib" "$($readelf -dW "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')" "$soname"
for abi in abi/*.abi; do
	want "the soname of $abi" "$(sed -n "1s/.* soname='\([^']*\)'.*/\1/p" "$abi")" "$soname"
done
want "debian/changelog's version" "$(sed -n '1s/^clearpages (\([^)]*\)).*/\1/p' debian/changelog)" "$version"
want "debian/libclearpages0.symbols' library" \
	"$(grep -v '^#' debian/libclearpages0.symbols | sed -n '1s/ .*//p')" "$soname"
want "the runtime package" "$(sed -n 's/^Package: \(libclearpages[0-9]*\)$/\1/p' debian/control)" "libclearpages$sover"
want "NEWS's top entry" "$(sed -n 's/^clearpages \([0-9][0-9.]*\) (.*/\1/p' NEWS | head -n 1)" "$version"
for page in $(grep -l '^\.TH' man/man*/*); do
	want "the .TH source of $page" "$(sed -n 's/^\.TH [^ ]* [0-9] [0-9-]* "\([^"]*\)".*/\1/p' "$page")" "clearpages $version"
done
[ $bad -eq 0 ] && echo "test-version: $version (soname $soname) everywhere"
exit $bad
