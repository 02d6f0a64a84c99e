"""Summarise cv_results.json: per dataset, held-out recall@5 mean +- sd over folds (baseline vs
re-ranked), paired bootstrap 95% CI of the per-question difference (question-level and
file-group-level resampling), and the learned weights (mean over folds, standardised features)."""
import json, random, statistics, sys, collections
import os
WORK = os.environ['RERANK_DIR']  # where run.sh keeps candidates, features and results

fn = sys.argv[1] if len(sys.argv) > 1 else os.path.join(WORK, 'cv_results.json')
R = json.load(open(fn))
NAMES = R['names']
DATASETS = ['dataset_docs_public', 'dataset_code_public', 'Dataset_2025-09-21_valid']
DATA = json.load(open(os.path.join(WORK, 'data.json')))['data']
B = 10000


def boot(diffs, groups, seed=7):
    rnd = random.Random(seed)
    n = len(diffs)
    qs = []
    for _ in range(B):
        qs.append(sum(diffs[rnd.randrange(n)] for _ in range(n)) / n)
    qs.sort()
    ci_q = (qs[int(0.025 * B)], qs[int(0.975 * B) - 1])
    # cluster bootstrap over truth-file groups
    g = collections.defaultdict(list)
    for dlt, k in zip(diffs, groups):
        g[k].append(dlt)
    gl = list(g.values())
    m = len(gl)
    gs = []
    for _ in range(B // 2):
        s = c = 0
        for _ in range(m):
            x = gl[rnd.randrange(m)]
            s += sum(x); c += len(x)
        gs.append(s / c)
    gs.sort()
    ci_g = (gs[int(0.025 * len(gs))], gs[int(0.975 * len(gs)) - 1])
    return ci_q, ci_g


by = collections.defaultdict(list)
for r in R['results']:
    by[(r['setting'], r['K'], r['kind'])].append(r)

print('held-out recall@5, 5 grouped folds (mean +- sd over folds); diff CI: paired bootstrap, question-level / file-group-level')
for (setting, K, kind), rs in sorted(by.items(), key=lambda kv: (kv[0][0] != 'pooled', kv[0])):
    rs.sort(key=lambda r: r['fold'])
    per_ds = collections.defaultdict(lambda: collections.defaultdict(list))
    for r in rs:
        for d, i, b, a in r['per_q']:
            per_ds[d][r['fold']].append((i, b, a))
    lams = collections.Counter(r['lam'] for r in rs)
    print('\n== train=%s  rerank top-%d  model=%s  L2=%s' % (setting, K, kind, dict(lams)))
    for d in DATASETS:
        if d not in per_ds:
            continue
        fb = [statistics.mean(x[1] for x in per_ds[d][f]) for f in sorted(per_ds[d])]
        fa = [statistics.mean(x[2] for x in per_ds[d][f]) for f in sorted(per_ds[d])]
        allq = [x for f in per_ds[d] for x in per_ds[d][f]]
        diffs = [x[2] - x[1] for x in allq]
        grp = [DATA[d][x[0]]['truth_files'][0] for x in allq]
        (ql, qh), (gl, gh) = boot(diffs, grp)
        wins = sum(1 for x in diffs if x > 0); losses = sum(1 for x in diffs if x < 0)
        print('  %-26s base %.4f+-%.4f  rerank %.4f+-%.4f  diff %+.4f  CI_q [%+.4f,%+.4f]  CI_grp [%+.4f,%+.4f]  +%d/-%d of %d'
              % (d, statistics.mean(fb), statistics.stdev(fb), statistics.mean(fa), statistics.stdev(fa),
                 statistics.mean(diffs), ql, qh, gl, gh, wins, losses, len(diffs)))

print('\nlearned weights (standardised features; mean over the 5 folds) for rerank top-50:')
keys = [k for k in sorted(by) if k[1] == 50]
print('%-20s' % 'feature' + ''.join('%14s' % ('%s/%s' % (k[0].split('_')[1] if k[0] != 'pooled' else 'pool', k[2])) for k in keys))
for j, n in enumerate(NAMES):
    print('%-20s' % n + ''.join('%14.3f' % statistics.mean(r['w'][j] for r in by[k]) for k in keys))
