#!/bin/sh
# SPDX-License-Identifier: MIT
# The folders `make install` creates, so `make uninstall` removes exactly those
# (when empty) and never one that was there before.
#   install-dirs.sh create MANIFEST DIR...   mkdir -p each DIR; record the new ones
#   install-dirs.sh remove MANIFEST          rmdir the recorded ones that are empty
set -eu
cmd=$1 manifest=$2
shift 2
case $cmd in
create)
	new=""
	for d in "$@"; do
		p=$d
		while [ ! -d "$p" ]; do       # the folder and each missing parent
			new="$new$p
"
			p=$(dirname "$p")
		done
		mkdir -p "$d"
	done
	mkdir -p "$(dirname "$manifest")"
	{ [ -f "$manifest" ] && cat "$manifest"; printf '%s' "$new"; } | sed '/^$/d' | sort -u > "$manifest.new"
	mv "$manifest.new" "$manifest"
	;;
remove)
	[ -f "$manifest" ] || exit 0
	dirs=$(cat "$manifest")
	rm -f "$manifest"
	# deepest first: a parent empties once its children are gone
	echo "$dirs" | awk '{ print length($0), $0 }' | sort -rn | cut -d' ' -f2- |
		while read -r d; do rmdir "$d" 2>/dev/null || true; done
	;;
*)
	echo "install-dirs.sh: unknown command '$cmd'" >&2
	exit 2
	;;
esac
