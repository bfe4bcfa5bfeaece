#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The first rounds of a sweep's hot 4K row: ns per call of avx2, cold_call and auto in
rounds 0-3, from clearbench sweep --samples files. python3 round0.py SAMPLES.csv..."""
import collections, csv, sys

for f in sys.argv[1:]:
    t = collections.defaultdict(dict)
    for r in csv.DictReader(open(f)):
        if r['target'] == 'hot' and r['extent'] == '4K':
            t[r['contender']][int(r['round'])] = float(r['seconds']) * 1e9
    print(f.split('/')[-1], 'ns a call, rounds 0-3:',
          ' '.join(f"{c} {[round(t[c][i]) for i in range(4)]}" for c in ('avx2', 'cold_call', 'auto')))
