#!/bin/sh
# SPDX-License-Identifier: MIT
# Rewrite what is generated from the kernel lists (arch/<arch>/kernels.def and
# copy_kernels.def): the README's kernel tables (between its kernels:<arch> and
# copy-kernels:<arch> markers) and the raw kernel prototypes of
# include/clearpages.h (its `#if defined(__<arch>__)` and
# `#if defined(__<arch>__) /* copy */` blocks). `--check`: change nothing,
# fail if either differs.
set -eu
check=${1:-}

def_rows() {   # name class regs needs ranked what, tab-separated; $2: copy_ for the copy list
	awk -F', *' '/^CP_(COPY_)?KERNEL\(/ {
		sub(/^CP_(COPY_)?KERNEL\( */, ""); sub(/\) *$/, "")
		what = $0; sub(/^[^"]*"/, "", what); sub(/".*$/, "", what)
		for (i = 4; i <= 5; i++) { gsub(/F\(/, "", $i); gsub(/\)/, "", $i); gsub(/ *\| */, "/", $i) }
		printf "%s\t%s\t%s\t%s\t%s\t%s\n", $1, $2, $3, $4, $5, what
	}' "arch/$1/${2:-}kernels.def"
}

readme_table() {
	printf '| kernel | instructions | needs | cache | registers |\n|---|---|---|---|---|\n'
	def_rows "$1" "${2:-}" | awk -F'\t' '{
		n = $4 == "0" ? "—" : $4
		if ($5 != "0") n = n " (ranked by " $5 ")"
		printf "| `%s` | %s | %s | %s | %s |\n", $1, $6, n,
		       $2 == "NONTEMPORAL" ? "non-temporal" : "temporal", $3 == "SIMD" ? "vector" : "general"
	}'
}

header_block() {   # each needed feature's comment from common/features.def
	def_rows "$1" "${2:-}" | awk -F'\t' -v arch="$1" -v copy="${2:-}" '
		FILENAME != "-" && /^CP_FEATURE\(/ {
			id = $0; sub(/^CP_FEATURE\( */, "", id); sub(/,.*/, "", id)
			c = $0; sub(/^[^\/]*\/\* */, "", c); sub(/ *\*\/.*/, "", c); why[id] = c; next }
		FILENAME == "-" {
			if (copy != "")
				proto = sprintf("void cp_%s_copy_%s(void *dst, const void *src, size_t npages);", arch, $1)
			else
				proto = sprintf("void cp_%s_%s(void *addr, size_t npages);", arch, $1)
			if ($4 != "0") proto = sprintf("%-53s /* %s */", proto, why[$4])
			print proto
		}' common/features.def -
}

# replace the lines strictly between the first line matching $2 and the next
# line matching $3 in file $1 by the contents of file $4
splice() {
	awk -v start="$2" -v stop="$3" -v body="$4" '
		!done && $0 ~ start { print; while ((getline l < body) > 0) print l; skip = 1; next }
		skip && $0 ~ stop { skip = 0; done = 1 }
		!skip { print }' "$1"
}

status=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp README.md "$tmp/README.md"
cp include/clearpages.h "$tmp/clearpages.h"
for arch in x86_64 arm64; do
	readme_table "$arch" > "$tmp/table"
	splice "$tmp/README.md" "^<!-- kernels:$arch -->" "^<!-- /kernels:$arch -->" "$tmp/table" > "$tmp/r"
	mv "$tmp/r" "$tmp/README.md"
	header_block "$arch" > "$tmp/block"
	macro=$arch
	[ "$arch" = arm64 ] && macro=aarch64
	splice "$tmp/clearpages.h" "^#if defined\\(__${macro}__\\)\$" "^#endif" "$tmp/block" > "$tmp/h"
	mv "$tmp/h" "$tmp/clearpages.h"
	readme_table "$arch" copy_ > "$tmp/table"
	splice "$tmp/README.md" "^<!-- copy-kernels:$arch -->" "^<!-- /copy-kernels:$arch -->" "$tmp/table" > "$tmp/r"
	mv "$tmp/r" "$tmp/README.md"
	header_block "$arch" copy_ > "$tmp/block"
	splice "$tmp/clearpages.h" "^#if defined\\(__${macro}__\\) /\\* copy \\*/" "^#endif" "$tmp/block" > "$tmp/h"
	mv "$tmp/h" "$tmp/clearpages.h"
done
for f in README.md include/clearpages.h; do
	if ! cmp -s "$f" "$tmp/$(basename "$f")"; then
		if [ "$check" = --check ]; then
			echo "regen: $f is not what arch/*/kernels.def gives (run scripts/regen.sh):"
			diff -u "$f" "$tmp/$(basename "$f")" || true
			status=1
		else
			cp "$tmp/$(basename "$f")" "$f"
			echo "regen: rewrote $f"
		fi
	fi
done
[ $status -eq 0 ] && [ "$check" = --check ] && echo "regen: README.md and include/clearpages.h match arch/*/kernels.def"
exit $status
