#!/bin/sh
# SPDX-License-Identifier: MIT
# The README's "## Layout" block stays true: every path it names exists (an
# entry's first word from the top; a file or folder named in its description
# beside that entry's folder, or from the top), every top-level folder of the
# tree has an entry, and every common/*.c is named. Called by check-docs.sh.
#   tests/check-readme-layout.sh [README.md]
cd "$(dirname "$0")/.." || exit 1
readme=${1:-README.md}
fail=0
bad() { echo "check-readme-layout: $*"; fail=1; }

# The indented block under "## Layout": "PATH<TAB>DESCRIPTION" per line, a
# continuation line's description carried with the entry above it.
entries=$(awk '
	/^## / { on = ($0 == "## Layout"); next }
	!on || !/^    / { next }
	/^     / { sub(/^ +/, ""); printf " %s", $0; next }
	{ sub(/^    /, ""); p = $1; sub(/^[^ ]+ */, ""); if (n++) print ""; printf "%s\t%s", p, $0 }
	END { if (n) print "" }' "$readme")
[ -n "$entries" ] || { bad "$readme has no indented block under '## Layout'"; exit 1; }

tab=$(printf '\t')
top=
named=
while IFS=$tab read -r path desc; do
	[ -e "$path" ] || bad "$readme names $path, which does not exist"
	top="$top ${path%%/*}"
	dir=${path%/}; [ -d "$dir" ] || dir=$(dirname "$dir")
	# words that look like a file (name.ext) or a folder (name/) in the description
	for w in $(printf '%s\n' "$desc" | tr -s ' ,;:()+' '\n' |
		   grep -E '^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*(/|\.(c|h|S|asm|inc|def|map|mk|sh|md|in))$'); do
		[ -e "$dir/$w" ] || [ -e "$w" ] || bad "$readme: $path names $w, which is neither $dir/$w nor ./$w"
		named="$named $dir/${w%/}"
	done
done <<EOT
$entries
EOT

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	dirs=$(git ls-files | sed -n 's|^\([^/]*\)/.*|\1|p' | sort -u)
	cfiles=$(git ls-files 'common/*.c' | grep -v '^common/.*/.*')
else
	dirs=$(find . -mindepth 1 -maxdepth 1 -type d ! -name .git ! -name build ! -name .deps | sed 's|^\./||')
	cfiles=$(ls common/*.c)
fi
for d in $dirs; do
	case " $top " in *" $d "*) ;; *) bad "the top-level folder $d/ has no entry in $readme's layout" ;; esac
done
for c in $cfiles; do
	case " $named " in *" $c "*) ;; *) bad "$c is not named in $readme's layout (the common/ entry)" ;; esac
done
[ $fail -eq 0 ] && echo "check-readme-layout: $(printf '%s\n' "$entries" | wc -l) entries of $readme's layout exist; every top-level folder and common/*.c is listed"
exit $fail
