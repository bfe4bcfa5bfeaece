#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The first contender's rate over the second's, from clearbench sweep --samples files, two ways per target and
extent: the median of the per-round ratios, and the ratio of total times over all rounds
(what a caller's throughput sees: a few slow rounds move it, not the median), printed
median/total. python3 totals.py A B SAMPLES.csv (A over B)..."""
import csv, sys, collections, statistics
a, b = sys.argv[1], sys.argv[2]   # prints the rate of a over b
for f in sys.argv[3:]:
    t = collections.defaultdict(dict)
    for r in csv.DictReader(open(f)):
        t[(r['target'], int(r['bytes']), r['extent'])][(r['contender'], int(r['round']))] = float(r['seconds'])
    out = []
    for (target, _, ext), s in sorted(t.items(), key=lambda kv: (['hot','cold','use'].index(kv[0][0]), kv[0][1])):
        rounds = sorted({r for _, r in s})
        x = [s[(b, r)] / s[(a, r)] for r in rounds if (a, r) in s and (b, r) in s]
        # time-weighted: total time of b over total time of a
        tot = sum(s[(b, r)] for r in rounds) / sum(s[(a, r)] for r in rounds)
        out.append(f"{target[0]}{ext}:{statistics.median(x):.2f}/{tot:.2f}")
    print(f.split('/')[-1][:40], ' '.join(out))
