#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The sweep criteria of the residency work, medians over several `clearbench sweep --csv`
files: per kind and extent, auto/best (ratio of medians, paired, paired low end),
cold_call/best (both), auto/memset and auto/memset_2.41, what auto and cold_call ran
(first file), and a flag where a criterion misses: AUTO (hot < 0.97, use < 0.95, cold
< 0.95 from 4 MiB), COLD (cold cold_call < 0.95), COLDHOT (hot cold_call < 0.8),
MEMSET (auto/memset < 0.97). python3 criteria.py SWEEP.csv..."""
import collections, csv, statistics, sys

rows = collections.defaultdict(list)     # (target, bytes) -> the row of each file
for f in sys.argv[1:]:
    seen = set()
    for r in csv.DictReader(open(f)):
        k = (r['target'], int(r['bytes']))
        if k not in seen:                  # the per-row columns repeat on every contender
            seen.add(k)
            rows[k].append(r)


def med(k, col):
    v = [float(r[col]) for r in rows[k] if r.get(col) not in (None, '', 'nan')]
    return statistics.median(v) if v else float('nan')


want = {'hot': 0.97, 'use': 0.95, 'cold': 0.95}
print(f"{'kind':4} {'ext':>5} {'a/b':>5} {'a/b_p':>5} {'lo':>5} {'c/b':>5} {'c/b_p':>5} "
      f"{'a/ms':>5} {'a/ms2':>5}  {'auto ran':24} | {'cold_call ran':24}")
for k in sorted(rows, key=lambda k: (['hot', 'cold', 'use'].index(k[0]), k[1])):
    t, b = k
    ab, cb, am = med(k, 'auto_over_best'), med(k, 'cold_call_over_best'), med(k, 'auto_over_memset')
    flag = []
    if (t != 'cold' or b >= 4 << 20) and ab < want[t]:
        flag.append('AUTO')
    if t == 'cold' and cb < 0.95:
        flag.append('COLD')
    if t == 'hot' and cb < 0.8:
        flag.append('COLDHOT')
    if am < 0.97:
        flag.append('MEMSET')
    r0 = rows[k][0]
    print(f"{t:4} {r0['extent']:>5} {ab:5.2f} {med(k, 'auto_over_best_paired'):5.2f} "
          f"{med(k, 'auto_over_best_paired_lo'):5.2f} {cb:5.2f} "
          f"{med(k, 'cold_call_over_best_paired'):5.2f} {am:5.2f} "
          f"{med(k, 'auto_over_memset_2.41'):5.2f}  {r0['auto_ran'][:24]:24} | "
          f"{r0['cold_call_ran'][:24]:24} {' '.join(flag)}")
