#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The small-call histories' timed verdicts in full default sweeps, from a clearbench built
with verdict-log.diff (each verdict: history, pages, ticks, limit; a marker before each
row's rounds and each recording) and run as CP_DBG=FILE clearbench sweep. Per kind and
history: verdicts, how many said "cached"; on cold and use targets, the ticks of those;
on hot targets, the ticks' quantiles per extent. python3 verdict_log.py LOG[.gz]..."""
import collections, gzip, sys

n = collections.Counter()
cached = collections.Counter()
false_ticks = collections.defaultdict(list)
hot_ticks = collections.defaultdict(list)
for f in sys.argv[1:]:
    kind, size, rec = None, None, False
    for line in (gzip.open(f, 'rt') if f.endswith('.gz') else open(f)):
        w = line.split()
        if w[0] == 'M':
            rec = w[1] == 'record'
            kind, size = w[2], int(w[3])
            continue
        hist, ticks, is_cached = w[1], int(w[4]), w[8] == 'CACHED'
        key = (('rec-' if rec else '') + kind, hist)
        n[key] += 1
        cached[key] += is_cached
        if kind != 'hot' and is_cached:
            false_ticks[(kind, size, hist)].append(ticks)
        if kind == 'hot' and not rec:
            hot_ticks[size].append(ticks)
print("verdicts per kind and history (rec- = clearbench's untimed recording after the rounds)")
for k in sorted(n):
    print(f"  {k[0]:9} {k[1]:4} {n[k]:6} verdicts, {cached[k]:5} cached")
print("'cached' on cold and use targets (the limit: 626 ticks), ticks")
for k in sorted(false_ticks):
    print(f"  {k[0]:4} {k[1]:>8} {k[2]:4}: {sorted(false_ticks[k])}")
print("hot targets, ticks per extent")
for s in sorted(hot_ticks):
    t = sorted(hot_ticks[s])
    q = lambda p: t[min(len(t) - 1, int(p * len(t)))]
    print(f"  {s:>8}: n {len(t)} p10 {q(.1)} p50 {q(.5)} p90 {q(.9)} p99 {q(.99)}; "
          f"over 313 (half the limit) {sum(x > 313 for x in t)}, over 626 {sum(x > 626 for x in t)}")
