#!/bin/sh
# SPDX-License-Identifier: MIT
# The library's objects reference each other in one direction only: detection
# and the pure layers (registry, select, profile, parse) below init, init below
# the entry points. Edges come from nm (an undefined symbol of A defined by B
# is A -> B); tsort reports any cycle.
# clearbench's modules (bench/) likewise: the shared part below the scenarios
# and tune, introspect.c the only one reading the library's internals.
#   tests/check-graph.sh [-n WHAT] NM OBJECT...   (the C objects of the library,
#                                                  or WHAT's: "clearbench")
set -eu
what="the library"
if [ "$1" = -n ]; then
	what=$2
	shift 2
fi
nm=$1
shift
objs="$*"
defs=$(mktemp) edges=$(mktemp)
trap 'rm -f "$defs" "$edges"' EXIT
for o in $objs; do
	"$nm" --defined-only -g "$o" | awk -v o="$(basename "$o" .o)" 'NF == 3 { print $3, o }'
done | sort > "$defs"
for o in $objs; do
	me=$(basename "$o" .o)
	echo "$me $me" >> "$edges"       # every object appears, even with no edge
	"$nm" -u "$o" | awk '{ print $2 }' | sort -u | join - "$defs" |
		awk -v me="$me" '$2 != me { print me, $2 }' >> "$edges"
done
# tsort names a cycle on stderr ("input contains a loop"); an object may be
# called *loop* (bench/calloc_loop.c)
if ! order=$(tsort "$edges" 2>&1) || echo "$order" | grep -q 'contains a loop'; then
	echo "check-graph: a cycle among $what's objects:"
	echo "$order" | grep -A20 'contains a loop'
	exit 1
fi
echo "check-graph: $what, $(echo "$objs" | wc -w) objects, $(awk '$1 != $2' "$edges" | sort -u | wc -l) edges, no cycle"
awk '$1 != $2' "$edges" | sort -u | awk '{ a[$1] = a[$1] " " $2 } END { for (k in a) print "  " k " ->" a[k] }' | sort
