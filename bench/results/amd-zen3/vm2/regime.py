#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The machine's own drift: a few kernels' absolute rates, and non-temporal against
temporal on cold-then-written targets, per sweep CSV in the order given (give them
in the order they ran). python3 regime.py SWEEP.csv..."""
import csv, sys

cells = [('hot', '4K', 'avx2'), ('use', '256K', 'sse2'), ('use', '256K', 'avx2_nt'),
         ('cold', '256K', 'sse2'), ('cold', '1G', 'avx2_nt')]
print(f"{'sweep':42} " + ' '.join(f"{t} {e} {k}" for t, e, k in cells) +
      " | use nt/sse2 64K 256K 1M")
for f in sys.argv[1:]:
    d = {}
    for r in csv.DictReader(open(f)):
        if 'median_gbs' in r:
            d[(r['target'], r['extent'], r['contender'])] = float(r['median_gbs'])
    if not all(('use', e, k) in d for e in ('64K', '256K', '1M') for k in ('sse2', 'avx2_nt')):
        continue
    rates = ' '.join(f"{d[c]:{len(' '.join(c))}.1f}" if c in d else f"{'-':>{len(' '.join(c))}}"
                     for c in cells)
    nt = ' '.join(f"{d[('use', e, 'avx2_nt')] / d[('use', e, 'sse2')]:.2f}" for e in ('64K', '256K', '1M'))
    print(f"{f.split('/')[-1][:42]:42} {rates} | {nt}")
