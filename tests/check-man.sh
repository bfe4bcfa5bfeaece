#!/bin/sh
# SPDX-License-Identifier: MIT
# The manual pages (man/Dir.mk's test-man):
#  - every page opens with man -l, from any folder, without a warning, and has
#    a NAME; so does every page of a staged install (scripts/install-man.sh,
#    the step make install runs, into a scratch folder);
#  - a name that shares another's page is a symlink in the same folder (as
#    Debian installs them: a .so line opens only from the man folder), to a
#    page that lists it in its NAME (clearpages(3) aside: the raw kernels);
#  - every other section-3 page has NAME, SYNOPSIS, DESCRIPTION, RETURN VALUE,
#    ATTRIBUTES and SEE ALSO, and its ATTRIBUTES is the pointer to
#    clearpages(3), where the contract for threads, signals and fork is stated
#    once; every function of include/clearpages.h has its page;
#  - the deprecated names (CP_DEPRECATED in include/clearpages.h) appear only on
#    their own short pages, each naming its replacement (the attribute's
#    text), and in the DEPRECATED section of clearpages(3).
#   tests/check-man.sh man/man1/clearbench.1 man/man3/clearpages.3 ...
#   tests/check-man.sh --open FILE...   only: each opens with man -l (an install)
cd "$(dirname "$0")/.." || exit 1
tree=$PWD
fail=0
bad() { echo "test-man: $*"; fail=1; }
# man -l from the root folder, so that nothing resolves against the page's own
abs() { case $1 in /*) echo "$1" ;; *) echo "$tree/$1" ;; esac; }
render() { (cd / && LC_ALL=C.UTF-8 MANWIDTH=80 man "$@"); }
opens() {     # page [label]: opens with man -l without a warning, has a NAME
	f=$(abs "$1")
	render --warnings -l "$f" >"$tmp" 2>"$tmp.err"
	[ ! -s "$tmp.err" ] || bad "${2:-$1}: man -l: $(head -n 1 "$tmp.err")"
	grep -q '^NAME' "$tmp" || bad "${2:-$1}: man -l renders no NAME section"
}
tmp=$(mktemp) || exit 1
trap 'rm -f "$tmp" "$tmp.err"' EXIT
if [ "${1:-}" = --open ]; then   # failures only; the caller counts
	shift
	for page in "$@"; do opens "$page"; done
	exit $fail
fi
# man -l on many pages, on the CPUs there are (about 0.1 s each)
open_all() {
	printf '%s\0' "$@" | xargs -0 -n 8 -P "$(nproc 2>/dev/null || echo 2)" "$tree/tests/check-man.sh" --open ||
		fail=1
}
section() {   # page, section title: the section's source lines
	awk -v t=".SH $2" '$0 == t || $0 == t "\"" { on = 1; next } /^\.SH / { on = 0 } on' "$1"
}
lists() {     # page, name: the page's NAME lists name
	section "$1" NAME | grep -q "\\(^\\|[ ,]\\)$2\\([ ,]\\|$\\)"
}
# The deprecated names, each with its replacement's text: CP_DEPRECATED("use")
# on the line before the declaration.
deprecated=$(awk '/^CP_DEPRECATED\("/ { use = $0; sub(/^CP_DEPRECATED\("/, "", use); sub(/"\)$/, "", use)
	getline decl; if (match(decl, /cp_[a-z_0-9]*\(/)) print substr(decl, RSTART, RLENGTH - 1) "|" use }' \
	include/clearpages.h)
[ -n "$deprecated" ] || bad "no CP_DEPRECATED declaration found in include/clearpages.h"
dep_names=$(echo "$deprecated" | sed 's/|.*//')

open_all "$@"
for page in "$@"; do
	name=$(basename "$page"); name=${name%.*}
	if head -n 1 "$page" | grep -q '^\.so '; then
		bad "$page: a .so link, which man -l opens only from man/: make it a symlink to the page"
		continue
	fi
	if [ -L "$page" ]; then
		to=$(readlink "$page")
		case $to in */*) bad "$page: a link names a page in its own folder, not $to"; continue ;; esac
		target=$(dirname "$page")/$to
		[ -f "$target" ] && [ ! -L "$target" ] || { bad "$page: links to $target, which is not a page"; continue; }
		case $target in
		*/clearpages.3) ;;
		*) lists "$target" "$name" || bad "$page: $target's NAME does not list $name" ;;
		esac
		case " $(echo $dep_names) " in
		*" $name "*) bad "$page: a deprecated name gets a short page of its own, naming its replacement" ;;
		esac
		continue
	fi
	case $page in man/man3/*) ;; *) continue ;; esac
	for s in NAME SYNOPSIS DESCRIPTION 'RETURN VALUE' ATTRIBUTES 'SEE ALSO'; do
		grep -q "^\\.SH $s\$" "$page" || bad "$page has no $s section"
	done
	lists "$page" "$name" || bad "$page: its NAME does not list $name"
	[ "$name" = clearpages ] && continue
	attrs=$(section "$page" ATTRIBUTES | tr '\n' ' ')
	[ "$attrs" = 'See .BR clearpages (3), ATTRIBUTES. ' ] ||
		bad "$page: ATTRIBUTES is not the pointer 'See clearpages(3), ATTRIBUTES.' (the contract lives there once)"
done
for fn in $(sed -n 's/^[a-z].*[ *]\(cp_[a-z_0-9]*\)(.*/\1/p' include/clearpages.h | sort -u); do
	[ -f "man/man3/$fn.3" ] || bad "no page for $fn (man/man3/$fn.3)"
done

# Deprecated names: on their own page (which names the replacement) and in
# clearpages(3)'s DEPRECATED section, nowhere else.
while IFS='|' read -r dep use; do
	own=man/man3/$dep.3
	[ -f "$own" ] && [ ! -L "$own" ] || continue   # reported above
	section "$own" NAME | grep -qi deprecated || bad "$own: its NAME does not say deprecated"
	repl=${use%%(*}
	grep -q "^\\.BR $repl (3)" "$own" || bad "$own does not point at $repl(3) (.BR $repl (3))"
	for id in $(echo "$use" | grep -o 'CP_[A-Z_]*'); do
		grep -qw "$id" "$own" || bad "$own: the replacement, $use, but no $id"
	done
	for other in $dep_names; do
		[ "$other" = "$dep" ] && continue
		grep -qw "$other" "$own" && bad "$own names another deprecated name, $other"
	done
done <<EOF
$deprecated
EOF
dep_re=$(echo $dep_names | sed 's/ /|/g')
for page in "$@"; do
	[ -L "$page" ] && continue
	name=$(basename "$page"); name=${name%.*}
	case $page in
	*/clearpages.3) awk '/^\.SH DEPRECATED$/ { off = 1; next } /^\.SH / { off = 0 } !off' "$page" ;;
	*) cat "$page" ;;
	esac | grep -owE "$dep_re" | grep -vx "$name" | sort | uniq -c | while read -r n dep; do
		echo "test-man: $page mentions the deprecated $dep ($n times; only its own page and clearpages(3)'s DEPRECATED may)"
	done | grep . && fail=1
done
grep -q '^\.SH DEPRECATED$' man/man3/clearpages.3 || bad "clearpages(3) has no DEPRECATED section"

# A staged install, as make install writes it: the pages copied whole, the
# links as the same symlinks, and every link opens there.
stage=$(mktemp -d) || exit 1
mkdir -p "$stage/man1" "$stage/man3" &&
	scripts/install-man.sh "$stage" "$@" || bad "scripts/install-man.sh failed"
links=
for page in "$@"; do
	inst=$stage/$(basename "$(dirname "$page")")/$(basename "$page")
	if [ -L "$page" ]; then
		[ -L "$inst" ] && [ "$(readlink "$inst")" = "$(readlink "$page")" ] ||
			bad "$page: not installed as a symlink to $(readlink "$page")"
		links="$links $inst"
	else
		[ -f "$inst" ] && [ ! -L "$inst" ] && cmp -s "$page" "$inst" ||
			bad "$page: not installed as a copy of itself"
	fi
done
open_all $links
rm -rf "$stage"
[ $fail -eq 0 ] && echo "test-man: $# pages passed (source and staged install)"
exit $fail
