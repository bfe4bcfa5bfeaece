#!/bin/sh
# SPDX-License-Identifier: MIT
# Rewrite what is generated from the kernel lists (arch/<arch>/kernels.def and
# copy_kernels.def): the README's kernel tables (between its kernels:<arch> and
# copy-kernels:<arch> markers) and the raw kernel prototypes of
# include/clearpages.h (its `#if defined(__<arch>__)` and
# `#if defined(__<arch>__) /* copy */` blocks); and from the built-in rows
# (common/builtin.c, cp__builtins[]) the table of docs/dispatch.md between its
# builtin-rows markers. `--check`: change nothing, fail if any differs.
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

# The rows of cp__builtins[] in common/builtin.c, one table line each, in the
# file's order. Comments are dropped and the file's object-like macros
# (NO_COPY_ROWS) expanded; a row is { name, nbands, { bands }, share,
# cached_min_mbps, discard_from, ncopy, { copy bands } }, its extents page
# counts, KIB(n) or MIB(n). Anything else fails: the table is not guessed.
builtin_table() {
	awk '
	function fail(why) { print "regen: common/builtin.c: " why > "/dev/stderr"; bad = 1; exit 1 }
	function size(e,   n) {   # an extent in pages, as the docs write it
		gsub(/ /, "", e)
		if (e ~ /^[0-9]+$/) n = e * 4096
		else if (e ~ /^KIB\([0-9]+\)$/) { gsub(/[^0-9]/, "", e); n = e * 1024 }
		else if (e ~ /^MIB\([0-9]+\)$/) { gsub(/[^0-9]/, "", e); n = e * 1048576 }
		else fail("not an extent: " e)
		if (n >= 1073741824 && n % 1073741824 == 0) return n / 1073741824 " GiB"
		if (n >= 1048576 && n % 1048576 == 0) return n / 1048576 " MiB"
		return n / 1024 " KiB"
	}
	function bands(s, n,   out, k, b, from, kern) {   # the first n of { from, "kernel" }
		sub(/^ *\{/, "", s); sub(/\} *$/, "", s)
		for (k = 0; k < n; k++) {
			if (!match(s, /\{[^{}]*\}/)) fail("fewer bands than counted: " s)
			b = substr(s, RSTART + 1, RLENGTH - 2); s = substr(s, RSTART + RLENGTH)
			from = b; sub(/,.*/, "", from)
			kern = b; sub(/^[^"]*"/, "", kern); sub(/".*/, "", kern)
			out = k ? out " · from " size(from) " " kern : kern
		}
		return out
	}
	function row(r,   k, c, d, f, nf, F, name, share, mbps, disc, copy) {
		for (k = 1; k <= length(r); k++) {   # split at the commas outside braces
			c = substr(r, k, 1)
			if (c == "{") d++
			else if (c == "}") d--
			if (c == "," && d == 0) { F[++nf] = f; f = "" } else f = f c
		}
		F[++nf] = f
		if (nf != 8) fail("a row of " nf " fields, not 8: " r)
		name = F[1]; gsub(/[ "]/, "", name)
		share = F[4]; gsub(/ /, "", share); share = share == "0" ? "none" : size(share)
		mbps = F[5]; gsub(/ /, "", mbps)
		if (mbps !~ /^[0-9]+$/) fail("not a rate: " mbps)
		mbps = mbps == "0" ? "generic" : mbps " MB/s"
		disc = F[6]; gsub(/ /, "", disc)
		disc = disc == "0" ? "generic" : disc == "CP__BAND_UNUSED" ? "never" : "from " size(disc)
		copy = F[7] + 0 ? bands(F[8], F[7] + 0) : "derived"
		printf "| `builtin:%s` | %s | %s | %s | %s | %s | [README](../bench/results/%s/README.md) |\n",
		       name, bands(F[3], F[2] + 0), mbps, share, disc, copy, name
	}
	/^#define [A-Za-z_][A-Za-z0-9_]* / {   # object-like macros (KIB(n) and MIB(n) stay)
		m = $2; body = $0; sub(/^#define [^ ]+ +/, "", body); macro[m] = body }
	/^const struct cp__builtin cp__builtins\[\] = \{/ { on = 1; next }
	on && /^\};/ { on = 0 }
	on { text = text " " $0 }
	END {
		if (bad) exit 1
		while ((i = index(text, "/*")) > 0) {
			j = index(substr(text, i + 2), "*/")
			if (!j) fail("an unclosed comment")
			text = substr(text, 1, i - 1) " " substr(text, i + j + 3)
		}
		for (m in macro) gsub(m, macro[m], text)
		print "| source | bands of `cp_clear_pages()`, cached | threshold | parallel shares | discard | copy bands | record |"
		print "|---|---|---|---|---|---|---|"
		for (k = 1; k <= length(text); k++) {   # each { ... } at the top is a row
			c = substr(text, k, 1)
			if (c == "{" && d++ == 0) { r = ""; continue }
			if (c == "}" && --d == 0) { row(r); rows++; continue }
			if (d > 0) r = r c
		}
		if (!rows) fail("no rows in cp__builtins[]")
	}' common/builtin.c
}

# replace the lines strictly between the first line matching $2 and the next
# line matching $3 in file $1 by the contents of file $4; fail where there
# are no such lines
splice() {
	awk -v start="$2" -v stop="$3" -v body="$4" -v file="$1" '
		!done && $0 ~ start { print; while ((getline l < body) > 0) print l; skip = 1; next }
		skip && $0 ~ stop { skip = 0; done = 1 }
		!skip { print }
		END { if (!done) { print "regen: " file ": no " start " ... " stop > "/dev/stderr"; exit 1 } }' "$1"
}

status=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp README.md "$tmp/README.md"
cp include/clearpages.h "$tmp/clearpages.h"
builtin_table > "$tmp/rows"
splice docs/dispatch.md "^<!-- builtin-rows -->" "^<!-- /builtin-rows -->" "$tmp/rows" > "$tmp/dispatch.md"
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
for f in README.md include/clearpages.h docs/dispatch.md; do
	from='arch/*/kernels.def'
	[ "$f" = docs/dispatch.md ] && from=common/builtin.c
	if ! cmp -s "$f" "$tmp/$(basename "$f")"; then
		if [ "$check" = --check ]; then
			echo "regen: $f is not what $from gives (run scripts/regen.sh):"
			diff -u "$f" "$tmp/$(basename "$f")" || true
			status=1
		else
			cp "$tmp/$(basename "$f")" "$f"
			echo "regen: rewrote $f"
		fi
	fi
done
[ $status -eq 0 ] && [ "$check" = --check ] &&
	echo "regen: README.md and include/clearpages.h match arch/*/kernels.def, docs/dispatch.md common/builtin.c"
exit $status
