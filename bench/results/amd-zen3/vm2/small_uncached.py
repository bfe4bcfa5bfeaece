#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The temporal kernels on memory not in the cache at 4 KiB-1 MiB, over every sweep
CSV given that measured avx2, sse2, rep_stosb and rep_stosq on a row: per target
and extent, each kernel's rate over avx2's (median [p10-p90] over the files) and
over memset's (median). The uncached bands below 4 MiB are read from this.
python3 small_uncached.py SWEEP.csv..."""
import collections, csv, statistics, sys

kernels = ['avx2', 'sse2', 'rep_stosb', 'rep_stosq']
rows = collections.defaultdict(dict)
for f in sys.argv[1:]:
    for r in csv.DictReader(open(f)):
        if 'median_gbs' in r:
            rows[(f, r['target'], r['extent'])][r['contender']] = float(r['median_gbs'])
q = lambda x, p: sorted(x)[int(p * (len(x) - 1))]
for t in ['cold', 'use']:
    for e in ['4K', '16K', '64K', '256K', '1M']:
        vs_avx2 = {k: [] for k in kernels}
        vs_memset = {k: [] for k in kernels}
        for (f, tt, ee), v in rows.items():
            if (tt, ee) != (t, e) or not all(k in v for k in kernels):
                continue
            for k in kernels:
                vs_avx2[k].append(v[k] / v['avx2'])
                if 'memset' in v:
                    vs_memset[k].append(v[k] / v['memset'])
        if not vs_avx2['avx2']:
            continue
        print(f"{t:4} {e:>4} {len(vs_avx2['avx2']):3} sweeps, /avx2: " +
              ' '.join(f"{k} {statistics.median(vs_avx2[k]):.2f} [{q(vs_avx2[k], .1):.2f}-{q(vs_avx2[k], .9):.2f}]"
                       for k in kernels[1:]) + ' | /memset: ' +
              ' '.join(f"{k} {statistics.median(vs_memset[k]):.2f}" for k in kernels if vs_memset[k]))
