#!/bin/sh
# SPDX-License-Identifier: MIT
# The manual pages (man/Dir.mk's test-man): every page renders through man -l
# without a warning and has a NAME; a link (.so) is one line naming a page that
# exists, and a link to a page other than clearpages(3) is listed in that page's
# NAME; every other section-3 page has NAME, SYNOPSIS, DESCRIPTION, RETURN
# VALUE, ATTRIBUTES and SEE ALSO, and its ATTRIBUTES is the pointer to
# clearpages(3), where the contract for threads, signals and fork is stated once;
# every function of include/clearpages.h has its page.
#   tests/check-man.sh man/man1/clearbench.1 man/man3/clearpages.3 ...
cd "$(dirname "$0")/.." || exit 1
fail=0
bad() { echo "test-man: $*"; fail=1; }
render() { (cd man && LC_ALL=C.UTF-8 MANWIDTH=80 man "$@"); }
section() {   # page, section title: the section's source lines
	awk -v t=".SH $2" '$0 == t || $0 == t "\"" { on = 1; next } /^\.SH / { on = 0 } on' "$1"
}
for page in "$@"; do
	p=${page#man/}
	out=$(render --warnings -l "$p" 2>&1 >/dev/null)
	[ -z "$out" ] || bad "$page: $out"
	render -l "$p" 2>/dev/null | grep -q '^NAME' || bad "$page renders no NAME section"
	name=$(basename "$page"); name=${name%.*}
	if head -n 1 "$page" | grep -q '^\.so '; then
		target=man/$(sed -n '1s/^\.so //p' "$page")
		[ "$(wc -l < "$page")" -eq 1 ] || bad "$page: a link is one .so line"
		[ -f "$target" ] || { bad "$page: links to $target, which does not exist"; continue; }
		case $target in
		*/clearpages.3) ;;
		*) section "$target" NAME | grep -q "\\(^\\|[ ,]\\)$name\\([ ,]\\|$\\)" ||
			bad "$page: $target's NAME does not list $name" ;;
		esac
		continue
	fi
	case $page in man/man3/*) ;; *) continue ;; esac
	for s in NAME SYNOPSIS DESCRIPTION 'RETURN VALUE' ATTRIBUTES 'SEE ALSO'; do
		grep -q "^\\.SH $s\$" "$page" || bad "$page has no $s section"
	done
	section "$page" NAME | grep -q "\\(^\\|[ ,]\\)$name\\([ ,]\\|$\\)" ||
		bad "$page: its NAME does not list $name"
	[ "$name" = clearpages ] && continue
	attrs=$(section "$page" ATTRIBUTES | tr '\n' ' ')
	[ "$attrs" = 'See .BR clearpages (3), ATTRIBUTES. ' ] ||
		bad "$page: ATTRIBUTES is not the pointer 'See clearpages(3), ATTRIBUTES.' (the contract lives there once)"
done
for fn in $(sed -n 's/^[a-z].*[ *]\(cp_[a-z_0-9]*\)(.*/\1/p' include/clearpages.h | sort -u); do
	[ -f "man/man3/$fn.3" ] || bad "no page for $fn (man/man3/$fn.3)"
done
[ $fail -eq 0 ] && echo "test-man: $# pages passed"
exit $fail
