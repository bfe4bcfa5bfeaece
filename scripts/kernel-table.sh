#!/bin/sh
# SPDX-License-Identifier: MIT
# The README's kernel table of an arch, from arch/<arch>/kernels.def (the one
# kernel list): `scripts/kernel-table.sh x86_64`. With --check README.md, fail
# when the README's table (between its kernels:<arch> markers) differs.
set -eu
table() {
	printf '| kernel | instructions | needs | cache |\n|---|---|---|---|\n'
	awk -F', *' '/^CP_KERNEL\(/ {
		sub(/^CP_KERNEL\( */, ""); sub(/\) *$/, "")
		name = $1; class = $2; needs = $3; ranked = $4
		what = $0; sub(/^[^"]*"/, "", what); sub(/".*$/, "", what)
		gsub(/F\(/, "", needs); gsub(/\)/, "", needs); gsub(/ *\| */, "/", needs)
		gsub(/F\(/, "", ranked); gsub(/\)/, "", ranked); gsub(/ *\| */, "/", ranked)
		n = needs == "0" ? "—" : needs
		if (ranked != "0") n = n " (ranked by " ranked ")"
		printf "| `%s` | %s | %s | %s |\n", name, what, n,
		       class == "NONTEMPORAL" ? "non-temporal" : "temporal"
	}' "arch/$1/kernels.def"
}
if [ "${2:-}" = --check ]; then
	got=$(sed -n "/<!-- kernels:$1 -->/,/<!-- \/kernels:$1 -->/p" "$3" | sed '1d;$d')
	if [ "$got" != "$(table "$1")" ]; then
		echo "kernel-table: the $1 table in $3 differs from arch/$1/kernels.def:"
		table "$1" | diff -u - /dev/fd/3 3<<EOT || true
$got
EOT
		echo "regenerate it with: scripts/kernel-table.sh $1"
		exit 1
	fi
	echo "kernel-table: $3 lists the $1 kernels of arch/$1/kernels.def"
else
	table "$1"
fi
