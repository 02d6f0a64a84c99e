"""Grouped 5-fold CV of a learned re-ranker over BM25's top-K candidates (pure Python).

usage: python3 rerank_cv.py [--quick]
Reads data.json (features.py). Models: pointwise logistic regression and pairwise (RankNet-style)
logistic on within-question (pos - neg) differences, both L2-regularised and fitted by Newton's
method (exact minimiser of the same convex objective gradient descent would approach), features
standardised on the training folds, L2 chosen by grouped inner 4-fold CV on the training folds
(criterion: inner recall@5).  Settings: per-dataset training and pooled training; re-rank top 50 / top 20.
"""
import json, math, random, sys, statistics, operator, collections
import os
WORK = os.environ['RERANK_DIR']  # where run.sh keeps candidates, features and results
from multiprocessing import Pool

SEED = 12345
NFOLD = 5
LAMBDAS = [1e-4, 1e-3, 1e-2, 1e-1]
PAIR_CAP = 60
FIXED_LAM = 1e-3
DATASETS = ['dataset_docs_public', 'dataset_code_public', 'Dataset_2025-09-21_valid']

D = json.load(open(os.path.join(WORK, 'data.json')))
NAMES = D['names']
DATA = D['data']
NF = len(NAMES)


# ---------------------------------------------------------------- folds
def make_folds(qkeys, truth_files, seed=SEED, nfold=NFOLD):
    """qkeys: list of question keys; truth_files: key -> list of files. Union-find by file."""
    parent = {k: k for k in qkeys}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x
    owner = {}
    for k in qkeys:
        for f in truth_files[k]:
            if f in owner:
                ra, rb = find(owner[f]), find(k)
                if ra != rb:
                    parent[ra] = rb
            else:
                owner[f] = k
    groups = collections.defaultdict(list)
    for k in qkeys:
        groups[find(k)].append(k)
    gl = sorted(groups.values(), key=lambda g: sorted(g)[0])
    rnd = random.Random(seed)
    rnd.shuffle(gl)
    sizes = [0] * nfold
    fold = {}
    for g in gl:  # shuffled order, each group to the currently smallest fold
        f = min(range(nfold), key=lambda i: (sizes[i], i))
        sizes[f] += len(g)
        for k in g:
            fold[k] = f
    return fold


# ---------------------------------------------------------------- linear algebra
def solve(A, b):
    n = len(b)
    M = [row[:] + [b[i]] for i, row in enumerate(A)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(M[r][c]))
        M[c], M[p] = M[p], M[c]
        piv = M[c][c]
        if abs(piv) < 1e-12:
            piv = 1e-12
        for r in range(c + 1, n):
            f = M[r][c] / piv
            if f:
                Mr, Mc = M[r], M[c]
                for k in range(c, n + 1):
                    Mr[k] -= f * Mc[k]
    x = [0.0] * n
    for c in range(n - 1, -1, -1):
        x[c] = (M[c][n] - sum(M[c][k] * x[k] for k in range(c + 1, n))) / (M[c][c] if abs(M[c][c]) > 1e-12 else 1e-12)
    return x


def sigmoid(z):
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def fit_logreg(cols, y, lam, intercept=True, w0=None, iters=15, tol=1e-6):
    """min mean log-loss + lam/2 ||w||^2 (intercept unpenalised). cols: list of feature columns."""
    n = len(y)
    d = len(cols)
    X = cols + ([[1.0] * n] if intercept else [])
    p_dim = len(X)
    w = list(w0) if w0 else [0.0] * p_dim
    mul = operator.mul
    prev = None
    for it in range(iters):
        z = [0.0] * n
        for j in range(p_dim):
            if w[j]:
                wj = w[j]
                z = [a + wj * b for a, b in zip(z, X[j])]
        pr = [sigmoid(v) for v in z]
        loss = 0.0
        for v, t in zip(z, y):
            # log(1+exp(-v)) if t else log(1+exp(v))
            u = -v if t else v
            loss += (u + math.log1p(math.exp(-u))) if u > 0 else math.log1p(math.exp(u))
        loss = loss / n + 0.5 * lam * sum(w[j] ** 2 for j in range(d))
        if prev is not None and abs(prev - loss) < tol:
            break
        prev = loss
        r = [a - t for a, t in zip(pr, y)]
        g = [sum(map(mul, X[j], r)) / n + (lam * w[j] if j < d else 0.0) for j in range(p_dim)]
        s = [a * (1 - a) for a in pr]
        H = [[0.0] * p_dim for _ in range(p_dim)]
        for j in range(p_dim):
            sj = list(map(mul, s, X[j]))
            for k in range(j, p_dim):
                v = sum(map(mul, sj, X[k])) / n
                H[j][k] = H[k][j] = v
            if j < d:
                H[j][j] += lam
            H[j][j] += 1e-9
        step = solve(H, g)
        w = [a - b for a, b in zip(w, step)]
    return w


# ---------------------------------------------------------------- model wrapper
def standardiser(qs, K):
    sums = [0.0] * NF
    sq = [0.0] * NF
    n = 0
    for q in qs:
        for c in q['cands'][:K]:
            n += 1
            for j, v in enumerate(c['x']):
                sums[j] += v
                sq[j] += v * v
    mu = [s / n for s in sums]
    sd = [math.sqrt(max(sq[j] / n - mu[j] ** 2, 0.0)) or 1.0 for j in range(NF)]
    return mu, sd


def train(qs, K, kind, lam, seed=SEED):
    mu, sd = standardiser(qs, K)
    z = lambda x: [(v - m) / s for v, m, s in zip(x, mu, sd)]
    rows, y = [], []
    if kind == 'point':
        for q in qs:
            for c in q['cands'][:K]:
                rows.append(z(c['x']))
                y.append(1 if c['y'] else 0)
    else:
        rnd = random.Random(seed)
        for q in qs:
            cs = q['cands'][:K]
            pos = [z(c['x']) for c in cs if c['y']]
            neg = [z(c['x']) for c in cs if not c['y']]
            pairs = [(a, b) for a in range(len(pos)) for b in range(len(neg))]
            if len(pairs) > PAIR_CAP:
                pairs = rnd.sample(pairs, PAIR_CAP)
            for k, (a, b) in enumerate(pairs):
                diff = [u - v for u, v in zip(pos[a], neg[b])]
                # symmetric: alternate sign so that both labels occur (no intercept)
                if k % 2:
                    rows.append([-u for u in diff]); y.append(0)
                else:
                    rows.append(diff); y.append(1)
    cols = [list(col) for col in zip(*rows)]
    w = fit_logreg(cols, y, lam, intercept=(kind == 'point'))
    return {'mu': mu, 'sd': sd, 'w': w[:NF]}


def score_q(model, q, K):
    w, mu, sd = model['w'], model['mu'], model['sd']
    cs = q['cands']
    head = cs[:K]
    s = [sum(wj * (v - m) / sdj for wj, v, m, sdj in zip(w, c['x'], mu, sd)) for c in head]
    order = sorted(range(len(head)), key=lambda i: (-s[i], i))
    return [head[i] for i in order] + cs[K:]


def recall5(cands, ntruth):
    return len(set(k for c in cands[:5] for k in c['finds'])) / ntruth


def split_groups(qs, nfold, seed):
    keys = list(range(len(qs)))
    tf = {i: qs[i]['truth_files'] for i in keys}
    return make_folds(keys, tf, seed=seed, nfold=nfold)


def choose_lambda(train_qs, K, kind):
    inner = split_groups(train_qs, 4, SEED + 1)
    res = {}
    for lam in LAMBDAS:
        tot = 0.0
        for f in range(4):
            tr = [q for i, q in enumerate(train_qs) if inner[i] != f]
            te = [q for i, q in enumerate(train_qs) if inner[i] == f]
            m = train(tr, K, kind, lam)
            tot += sum(recall5(score_q(m, q, K), q['ntruth']) for q in te)
        res[lam] = tot / len(train_qs)
    best = max(LAMBDAS, key=lambda l: (round(res[l], 6), l))
    return best, res


# ---------------------------------------------------------------- jobs
def job(args):
    setting, K, kind, fold = args
    if setting == 'pooled':
        allq = [(d, i, q) for d in DATASETS for i, q in enumerate(DATA[d])]
        test_of = POOLED_FOLD
        tr = [q for d, i, q in allq if test_of[(d, i)] != fold]
        te = [(d, i, q) for d, i, q in allq if test_of[(d, i)] == fold]
    else:
        d = setting
        fo = PER_FOLD[d]
        tr = [q for i, q in enumerate(DATA[d]) if fo[i] != fold]
        te = [(d, i, q) for i, q in enumerate(DATA[d]) if fo[i] == fold]
    # inner-CV choice of L2 where it matters (docs, code: ~4k training rows); for valid and pooled
    # (~30k+ rows) L2 is fixed at FIXED_LAM to keep the run inside the time budget.
    if QUICK or setting in ('pooled', 'Dataset_2025-09-21_valid'):
        lam, inner = FIXED_LAM, {}
    else:
        lam, inner = choose_lambda(tr, K, kind)
    m = train(tr, K, kind, lam)
    out = []
    for d, i, q in te:
        out.append((d, i, recall5(q['cands'], q['ntruth']), recall5(score_q(m, q, K), q['ntruth'])))
    return {'setting': setting, 'K': K, 'kind': kind, 'fold': fold, 'lam': lam, 'inner': inner,
            'w': m['w'], 'per_q': out}


QUICK = '--quick' in sys.argv
PER_FOLD = {d: split_groups(DATA[d], NFOLD, SEED) for d in DATASETS}
_allkeys = [(d, i) for d in DATASETS for i in range(len(DATA[d]))]
POOLED_FOLD = make_folds(_allkeys, {(d, i): DATA[d][i]['truth_files'] for d, i in _allkeys})


def main():
    settings = DATASETS + ['pooled']
    kinds = ['point', 'pair']
    Ks = [50, 20]
    jobs = [(s, K, k, f) for s in settings for K in Ks for k in kinds for f in range(NFOLD)]
    # biggest first
    jobs.sort(key=lambda j: 0 if j[0] in ('pooled', 'Dataset_2025-09-21_valid') else 1)
    results = []
    with Pool(2) as pool:
        for r in pool.imap_unordered(job, jobs):
            results.append(r)
            print('done', r['setting'], r['K'], r['kind'], r['fold'], 'lam', r['lam'], file=sys.stderr, flush=True)
    json.dump({'names': NAMES, 'results': results,
               'per_fold': {d: PER_FOLD[d] for d in DATASETS},
               'pooled_fold': {'%s|%d' % k: v for k, v in POOLED_FOLD.items()}},
              open(os.path.join(WORK, 'cv_results%s.json' % ('_quick' if QUICK else '')), 'w'))


if __name__ == '__main__':
    main()
