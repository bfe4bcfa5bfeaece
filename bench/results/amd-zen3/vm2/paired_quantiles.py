#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Per-round rate ratio B/A of two contenders (A's seconds over B's, the same
round) from clearbench sweep --samples files: its deciles and quartiles, per
target and extent. python3 paired_quantiles.py A B FILE.csv..."""
import csv, sys, collections

a, b, files = sys.argv[1], sys.argv[2], sys.argv[3:]
for f in files:
    t = collections.defaultdict(dict)
    for r in csv.DictReader(open(f)):
        t[(r['target'], int(r['bytes']), r['extent'])][(r['contender'], int(r['round']))] = float(r['seconds'])
    for (target, _, ext), s in sorted(t.items()):
        rounds = sorted({r for _, r in s})
        x = sorted(s[(a, r)] / s[(b, r)] for r in rounds if (a, r) in s and (b, r) in s)
        n = len(x)
        q = lambda p: x[min(n - 1, int(p * n))]
        print(f"{f.split('/')[-1]}: {target} {ext} {b}/{a} per round: "
              f"p10 {q(.1):.3f} p25 {q(.25):.3f} p50 {q(.5):.3f} p75 {q(.75):.3f} p90 {q(.9):.3f} ({n} rounds)")
