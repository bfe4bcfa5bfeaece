#!/bin/sh
# SPDX-License-Identifier: MIT
# Every relative Markdown link [text](path) and [text](path#anchor) in every
# tracked *.md file resolves: the path exists (relative to the file's folder)
# and, for a Markdown target, the anchor is one of its headings' GitHub slugs
# (lower case, punctuation dropped, spaces to hyphens, -1, -2 for repeats).
# Links with a scheme (https:, mailto:) and links inside code are not checked.
#   tests/check-links.sh [FILE.md ...]     (default: git ls-files '*.md')
cd "$(dirname "$0")/.." || exit 1
if [ $# -eq 0 ]; then
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		set -- $(git ls-files '*.md')
	else
		set -- $(find . -name '*.md' -not -path './build/*' -not -path './.deps/*' \
		         -not -path './.git/*' | sed 's|^\./||' | sort)
	fi
fi

# FILE -> "LINE<TAB>TARGET" for each link outside code.
links() {
	awk '
	/^[ \t]*(```|~~~)/ { fence = !fence; next }
	fence || /^(    |\t)/ { next }
	{
		line = $0
		gsub(/`[^`]*`/, "", line)
		while (match(line, /\]\([^)]*\)/)) {
			t = substr(line, RSTART + 2, RLENGTH - 3)
			line = substr(line, RSTART + RLENGTH)
			sub(/[ \t]+"[^"]*"$/, "", t)      # a title
			sub(/^</, "", t); sub(/>$/, "", t)
			if (t == "" || t ~ /^[A-Za-z][A-Za-z0-9+.-]*:/) continue
			print NR "\t" t
		}
	}' "$1"
}

# FILE -> its headings' slugs, one a line.
slugs() {
	awk '
	/^[ \t]*(```|~~~)/ { fence = !fence; next }
	fence || !/^#+[ \t]/ { next }
	{
		h = $0
		sub(/^#+[ \t]+/, "", h); sub(/[ \t]+#+[ \t]*$/, "", h)
		h = tolower(h)
		gsub(/[^a-z0-9 _\200-\377-]/, "", h)   # ASCII punctuation goes, other bytes stay
		gsub(/ /, "-", h)
		s = h
		if (h in seen) s = h "-" seen[h]
		seen[h]++
		print s
	}' "$1"
}

fail=0 n=0
for f in "$@"; do
	dir=$(dirname "$f")
	tab=$(printf '\t')
	links "$f" > "${TMPDIR:-/tmp}/check-links.$$" || exit 1
	while IFS=$tab read -r line target; do
		n=$((n + 1))
		path=${target%%#*}
		anchor=
		case $target in *'#'*) anchor=${target#*#} ;; esac
		if [ -z "$path" ]; then file=$f; else file=$dir/$path; fi
		if [ ! -e "$file" ]; then
			echo "check-links: $f:$line: ($target): no such file: $file"; fail=1; continue
		fi
		if [ -n "$anchor" ]; then
			case $file in
			*.md)
				slugs "$file" | grep -qxF -- "$anchor" ||
					{ echo "check-links: $f:$line: ($target): $file has no heading #$anchor"; fail=1; } ;;
			esac
		fi
	done < "${TMPDIR:-/tmp}/check-links.$$"
	rm -f "${TMPDIR:-/tmp}/check-links.$$"
done
[ $fail -eq 0 ] && echo "check-links: $n links in $# Markdown files resolve"
exit $fail
