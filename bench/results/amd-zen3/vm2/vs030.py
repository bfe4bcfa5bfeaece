#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Interleaved pairs of `clearbench sweep --csv` files, A (a release) then B (today), per
kind and extent: auto's B/A in each pair and their median, the median (and range) of every
kernel's B/A over the pairs (how far the machine itself moved between the runs), and the
median auto/best of A and of B. python3 vs030.py A1.csv B1.csv A2.csv B2.csv ..."""
import collections, csv, statistics, sys


def load(f):
    rates, ab = collections.defaultdict(dict), {}
    for r in csv.DictReader(open(f)):
        k = (r['target'], int(r['bytes']), r['extent'])
        rates[k][r['contender']] = float(r['median_gbs'])
        ab[k] = float(r['auto_over_best'])
    return rates, ab


files = sys.argv[1:]
pairs = [(load(files[i]), load(files[i + 1])) for i in range(0, len(files) - 1, 2)]
not_kernels = {'auto', 'cold_call', 'memset', 'memset_2.41', 'auto_page'}
print("kind ext  auto B/A per pair, median | kernels' B/A median (range) | auto/best A -> B")
for k in sorted(pairs[0][0][0], key=lambda k: (['hot', 'cold', 'use'].index(k[0]), k[1])):
    ba = [b[0][k]['auto'] / a[0][k]['auto'] for a, b in pairs]
    kb = [b[0][k][c] / a[0][k][c] for a, b in pairs for c in a[0][k] if c not in not_kernels]
    aa = statistics.median([a[1][k] for a, _ in pairs])
    bb = statistics.median([b[1][k] for _, b in pairs])
    print(f"{k[0]:4} {k[2]:>5} {' '.join('%.2f' % x for x in ba)}  {statistics.median(ba):.2f} | "
          f"{statistics.median(kb):.2f} ({min(kb):.2f}-{max(kb):.2f}) | {aa:.2f} -> {bb:.2f}")
