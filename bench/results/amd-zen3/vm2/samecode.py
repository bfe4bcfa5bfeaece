#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The sweep's noise floor: rows where auto and cold_call ran the same one
non-temporal kernel (the `auto ran` and `cold_call ran` columns name it alone, no
shares). There both calls go straight to the band's kernel, with no plan and no history
(a temporal kernel alone may still come from a history or a plan that timed cached), so
the two contenders time the same code with the same harness. Per row: cold_call/auto in each
`clearbench sweep --csv` file, and the median, p10 and p90 of those ratios over the
files. A criterion judged on the ratio of one contender to the fastest of several
cannot be read closer than this. python3 samecode.py SWEEP.csv..."""
import collections, csv, statistics, sys

NT = {'avx2_nt', 'avx512_nt', 'clzero', 'movnti'}
ratios = collections.defaultdict(list)      # (target, bytes, extent) -> per-file ratio
for f in sys.argv[1:]:
    rates, ran = collections.defaultdict(dict), {}
    for r in csv.DictReader(open(f)):
        k = (r['target'], int(r['bytes']), r['extent'])
        rates[k][r['contender']] = float(r['median_gbs'])
        ran[k] = (r['auto_ran'], r['cold_call_ran'])
    for k, (a, c) in ran.items():
        if a == c and a in NT and 'auto' in rates[k] and 'cold_call' in rates[k]:
            ratios[k].append(rates[k]['cold_call'] / rates[k]['auto'])

every = []
for k in sorted(ratios, key=lambda k: (['hot', 'cold', 'use'].index(k[0]), k[1])):
    x = sorted(ratios[k])
    every += x
    q = lambda p: x[min(len(x) - 1, int(p * len(x)))]
    print(f"{k[0]:4} {k[2]:>5} cold_call/auto: median {statistics.median(x):.3f} "
          f"p10 {q(.1):.3f} p90 {q(.9):.3f} ({len(x)} sweeps)")
every.sort()
q = lambda p: every[min(len(every) - 1, int(p * len(every)))]
print(f"all rows: median {statistics.median(every):.3f} p10 {q(.1):.3f} p90 {q(.9):.3f} "
      f"({len(every)} row-sweeps)")
