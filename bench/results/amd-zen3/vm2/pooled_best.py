#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The sweep criteria against one best kernel per row: the kernel with the highest median
rate pooled over all the `clearbench sweep --csv` files given, then auto/that kernel and
cold_call/that kernel in each file, and their medians over the files. The fastest of eight
noisy kernels in each file (criteria.py's a/b) is biased high where several kernels tie;
this is not. Flags as criteria.py: AUTO (hot < 0.97, use < 0.95, cold < 0.95 from 4 MiB),
COLD (cold cold_call < 0.95), COLDHOT (hot cold_call < 0.8). python3 pooled_best.py SWEEP.csv..."""
import collections, csv, statistics, sys

rates = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sys.argv[1:]:
    for r in csv.DictReader(open(f)):
        rates[(r['target'], int(r['bytes']), r['extent'])][r['contender']].append(float(r['median_gbs']))
not_kernels = {'auto', 'cold_call', 'memset', 'memset_2.41', 'auto_page'}
want = {'hot': 0.97, 'use': 0.95, 'cold': 0.95}
print(f"{'kind':4} {'ext':>5} {'best (pooled)':13} {'auto/b':>6} {'cold/b':>6}")
for k in sorted(rates, key=lambda k: (['hot', 'cold', 'use'].index(k[0]), k[1])):
    v = rates[k]
    med = {c: statistics.median(x) for c, x in v.items() if c not in not_kernels}
    b = max(med, key=med.get)
    a = statistics.median([x / y for x, y in zip(v['auto'], v[b])])
    c = statistics.median([x / y for x, y in zip(v['cold_call'], v[b])])
    t = k[0]
    flag = []
    if (t != 'cold' or k[1] >= 4 << 20) and a < want[t]:
        flag.append('AUTO')
    if t == 'cold' and c < 0.95:
        flag.append('COLD')
    if t == 'hot' and c < 0.8:
        flag.append('COLDHOT')
    print(f"{t:4} {k[2]:>5} {b:13} {a:6.2f} {c:6.2f} {' '.join(flag)}")
