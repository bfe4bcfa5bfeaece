#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""rep stosb against avx2_nt, and auto against avx2_nt, from 64 MiB up, over every
`clearbench sweep --csv` file given: per target and extent, the median and p10-p90 of the
per-file ratios of medians. (rep stosb turns non-temporal on its own at large sizes on this
CPU; a band for it from 1 GiB was weighed here.) python3 rep_vs_nt.py SWEEP.csv..."""
import collections, csv, statistics, sys

rows = collections.defaultdict(dict)
for f in sys.argv[1:]:
    for r in csv.DictReader(open(f)):
        if 'median_gbs' in r:
            rows[(f, r['target'], r['extent'])][r['contender']] = float(r['median_gbs'])
for t in ['hot', 'cold', 'use']:
    for e in ['64M', '128M', '256M', '512M', '1G']:
        v = [x for (f, tt, ee), x in rows.items() if (tt, ee) == (t, e) and 'avx2_nt' in x]
        rep = sorted(x['rep_stosb'] / x['avx2_nt'] for x in v if 'rep_stosb' in x)
        auto = sorted(x['auto'] / x['avx2_nt'] for x in v if 'auto' in x)
        if rep:
            print(f"{t:4} {e:>4} {len(rep):3} sweeps: rep_stosb/avx2_nt {statistics.median(rep):.3f} "
                  f"[{rep[len(rep) // 10]:.3f}-{rep[len(rep) * 9 // 10]:.3f}], auto/avx2_nt {statistics.median(auto):.3f}")
