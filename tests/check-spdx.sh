#!/bin/sh
# SPDX-License-Identifier: MIT
# Every source file the project tracks names its licence in its first three
# lines (LICENSE: MIT). Data, documents, patches and symlinks aside,
# and the files whose format has no comment (abidw baselines, debian/changelog,
# debian/copyright, debian/source/format).
set -eu
missing=$(git ls-files | grep -vE '\.(md|png|csv|json|txt|html|patch)$|^tests/fuzz/corpus/|^tests/data/|^bench/results/|^LICENSE$|^NEWS$|\.gitignore$|^abi/.*\.abi$|^debian/(changelog|copyright|source/format)$' |
	while read -r f; do
		[ -f "$f" ] && [ ! -L "$f" ] || continue
		head -3 "$f" | grep -q 'SPDX-License-Identifier: MIT' || echo "$f"
	done)
if [ -n "$missing" ]; then
	echo "check-spdx: no SPDX-License-Identifier line in:"
	echo "$missing" | sed 's/^/  /'
	exit 1
fi
echo "check-spdx: every source file has its SPDX line"
