#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Can one kernel serve cold and cold-then-written targets at 4 MiB? cp_clear_pages cannot
tell them apart (both are memory not in the cache; only what the caller does next differs),
so it runs one kernel for both. Per `clearbench sweep --csv` file that measured the eight
x86 kernels on both: the kernel whose worse ratio to the row's best over the two targets is
highest, that ratio, and the two single choices (avx2_nt on use, sse2 on cold); last, in
how many files no kernel reaches 0.95 of the best on both. python3 conflict4m.py SWEEP.csv..."""
import collections, csv, sys

K = ['avx2', 'rep_stosb', 'rep_stosq', 'sse2', 'movq', 'avx2_nt', 'clzero', 'movnti']
n = both_missed = 0
for f in sys.argv[1:]:
    v = collections.defaultdict(dict)
    for r in csv.DictReader(open(f)):
        if 'median_gbs' in r and r['extent'] == '4M' and r['target'] in ('cold', 'use'):
            v[r['target']][r['contender']] = float(r['median_gbs'])
    if not all(t in v and all(k in v[t] for k in K) for t in ('cold', 'use')):
        continue
    best = {t: max(v[t][k] for k in K) for t in ('cold', 'use')}
    worse = {k: min(v['use'][k] / best['use'], v['cold'][k] / best['cold']) for k in K}
    k = max(worse, key=worse.get)
    n += 1
    both_missed += worse[k] < 0.95
    print(f"{f.split('/')[-1]:48} both: {k:8} {worse[k]:.2f} | avx2_nt on use "
          f"{v['use']['avx2_nt'] / best['use']:.2f} | sse2 on cold {v['cold']['sse2'] / best['cold']:.2f}")
print(f"{n} sweeps; in {both_missed} no kernel reaches 0.95 of the best on both cold and use 4M")
