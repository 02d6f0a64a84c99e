"""Load questions, truths and top-50 candidates; label candidates; compute cheap lexical features.

Writes $RERANK_DIR/data.json: per dataset a list of questions, each with its candidates
(features + label), in BM25 order.  Pure Python 3.
"""
import json, math, re, collections, sys
import os
WORK = os.environ['RERANK_DIR']  # where run.sh keeps candidates, features and results

DATASETS = ['dataset_docs_public', 'dataset_code_public', 'Dataset_2025-09-21_valid']
SHARED = os.environ.get('RAG_SHARED', '../shared')
IOU_MIN = 0.05

STOP = set("""a about above after again against all am an and any are aren't as at be because been before
being below between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down
during each few for from further had hadn't has hasn't have haven't having he he'd he'll he's her here here's
hers herself him himself his how how's i i'd i'll i'm i've if in into is isn't it it's its itself let's me more
most mustn't my myself no nor not of off on once only or other ought our ours ourselves out over own same shan't
she she'd she'll she's should shouldn't so some such than that that's the their theirs them themselves then there
there's these they they'd they'll they're they've this those through to too under until up very was wasn't we
we'd we'll we're we've were weren't what what's when when's where where's which while who who's whom why why's
with won't would wouldn't you you'd you'll you're you've your yours yourself yourselves s t d ll re ve m
does use used using also can will may might must shall via e g eg ie""".split())

WORD = re.compile(r"[A-Za-z0-9_]+")
CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def stem(w):
    if len(w) <= 3:
        return w
    for suf, rep, minlen in (('ies', 'y', 5), ('sses', 'ss', 5), ('ing', '', 6), ('ed', '', 5),
                             ('ly', '', 5), ('es', '', 5), ('s', '', 4)):
        if w.endswith(suf) and len(w) >= minlen and not (suf == 's' and w.endswith('ss')):
            return w[:len(w) - len(suf)] + rep
    return w


def terms(text, keep_compound=True):
    out = []
    for tok in WORD.findall(text):
        parts = []
        for p in tok.split('_'):
            parts += CAMEL.findall(p)
        low = [p.lower() for p in parts]
        if keep_compound and len(low) > 1:
            low.append(tok.lower())
        for w in low:
            if len(w) < 2 or w in STOP:
                continue
            out.append(stem(w))
    return out


IDENT = re.compile(r"`([^`]+)`|\b([A-Za-z0-9]+(?:_[A-Za-z0-9]+)+)\b|\b([a-z]+[A-Z][A-Za-z0-9]*|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*)\b|\b([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+)\b|(--[a-z][a-z0-9-]+)")


def code_identifiers(q):
    ids = set()
    for m in IDENT.finditer(q):
        s = next(g for g in m.groups() if g)
        s = s.strip().lower()
        if len(s) >= 3:
            ids.add(s)
    return ids


def iou(a0, a1, b0, b1):
    ov = max(0, min(a1, b1) - max(a0, b0))
    den = (a1 - a0) + (b1 - b0) - ov
    return ov / den if den > 0 else 0.0


def load():
    data = {}
    for d in DATASETS:
        ans = json.load(open('%s/data/datasets/AnsweredQuestions/%s.json' % (SHARED, d)))['rag_questions']
        unans = json.load(open('%s/data/datasets/UnansweredQuestions/%s.json' % (SHARED, d)))['rag_questions']
        truth = {q['question_id']: q['sources'] for q in ans}
        rows = [json.loads(l) for l in open(os.path.join(WORK, 'top50', d + '.jsonl'))]
        assert len(rows) == len(unans)
        qs = []
        for q, r in zip(unans, rows):
            assert r['query'] == q['question']
            qs.append({'qid': q['question_id'], 'question': q['question'], 'truths': truth[q['question_id']],
                       'cands': r['retrieved_chunks']})
        data[d] = qs
    return data


def path_terms(p):
    p = p.replace('data/raw/vllm-0.10.1/', '')
    return terms(re.sub(r'[/.\-]', ' ', p))


def main():
    data = load()
    # document frequency over all distinct candidate chunks of all questions of all datasets
    df = collections.Counter()
    seen = {}
    for d in DATASETS:
        for q in data[d]:
            for c in q['cands']:
                key = (c['file_path'], c['first_character_index'], c['last_character_index'])
                if key not in seen:
                    ts = set(terms(c['text']))
                    seen[key] = ts
                    df.update(ts)
    N = len(seen)
    idf = lambda t: math.log(1 + (N - df.get(t, 0) + 0.5) / (df.get(t, 0) + 0.5))
    print('distinct candidate chunks', N, file=sys.stderr)

    names = None
    out = {}
    for d in DATASETS:
        qout = []
        for q in data[d]:
            qt = list(dict.fromkeys(terms(q['question'])))
            qw = {t: idf(t) for t in qt}
            qtot = sum(qw.values()) or 1.0
            qbig = set(zip(qt, qt[1:]))
            ids = code_identifiers(q['question'])
            has_code = 1.0 if ids else 0.0
            cands = q['cands']
            top = cands[0]['score'] if cands else 1.0
            files = collections.defaultdict(list)
            for i, c in enumerate(cands):
                files[c['file_path']].append(i)
            rows = []
            for i, c in enumerate(cands):
                p, a, b = c['file_path'], c['first_character_index'], c['last_character_index']
                text_t = seen[(p, a, b)]
                text_seq = terms(c['text'])
                path_t = set(path_terms(p))
                sec_t = set(terms(c.get('section') or ''))
                cov = lambda S: sum(w for t, w in qw.items() if t in S) / qtot
                low = c['text'].lower()
                secpath = (p + ' ' + (c.get('section') or '')).lower()
                ext = p.rsplit('.', 1)[-1] if '.' in p.rsplit('/', 1)[-1] else ''
                is_py = 1.0 if ext == 'py' else 0.0
                is_md = 1.0 if ext == 'md' else 0.0
                same = files[p]
                rank_in_file = same.index(i)
                best_file = cands[same[0]]['score'] / top if top else 0.0
                ov_prev = 0.0
                for j in range(i):
                    cj = cands[j]
                    if cj['file_path'] == p:
                        ov_prev = max(ov_prev, iou(a, b, cj['first_character_index'], cj['last_character_index']))
                cbig = set(zip(text_seq, text_seq[1:]))
                nmatch = sum(1 for t in qt if t in text_t)
                rel = p.replace('data/raw/vllm-0.10.1/', '')
                ft = c['file_type']
                feats = {
                    'score': c['score'],
                    'score_ratio': c['score'] / top if top else 0.0,
                    'rank': float(i + 1),
                    'log_rank': math.log(i + 1),
                    'cov_text': cov(text_t),
                    'cov_path': cov(path_t),
                    'cov_section': cov(sec_t),
                    'cov_any': cov(text_t | path_t | sec_t),
                    'q_code': has_code,
                    'is_py': is_py,
                    'is_md': is_md,
                    'is_other': 1.0 - is_py - is_md,
                    'code_x_py': has_code * is_py,
                    'code_x_md': has_code * is_md,
                    'code_x_other': has_code * (1.0 - is_py - is_md),
                    'log_len': math.log(1 + b - a),
                    'ft_python': 1.0 if ft == 'python' else 0.0,
                    'ft_markdown': 1.0 if ft == 'markdown' else 0.0,
                    'ft_text': 1.0 if ft == 'text' else 0.0,
                    'ft_cpp': 1.0 if ft == 'cpp' else 0.0,
                    'log_n_same_file': math.log(len(same)),
                    'file_best_ratio': best_file,
                    'log_rank_in_file': math.log(1 + rank_in_file),
                    'is_file_best': 1.0 if rank_in_file == 0 else 0.0,
                    'path_tests': 1.0 if rel.startswith('tests/') or '/tests/' in rel else 0.0,
                    'path_examples': 1.0 if rel.startswith('examples/') else 0.0,
                    'path_docs': 1.0 if rel.startswith('docs/') else 0.0,
                    'path_benchmarks': 1.0 if rel.startswith('benchmarks/') else 0.0,
                    'path_vllm_src': 1.0 if rel.startswith('vllm/') else 0.0,
                    'iou_higher': ov_prev,
                    'overlaps_higher': 1.0 if ov_prev > 0 else 0.0,
                    'ident_in_text': (sum(1 for s in ids if s in low) / len(ids)) if ids else 0.0,
                    'ident_in_path_sec': (sum(1 for s in ids if s in secpath) / len(ids)) if ids else 0.0,
                    'bigram_cov': (len(qbig & cbig) / len(qbig)) if qbig else 0.0,
                    'match_density': nmatch / math.sqrt(1 + len(text_seq)),
                    'has_section': 1.0 if c.get('section') else 0.0,
                    'code_x_cov_section': has_code * cov(sec_t),
                    'code_x_cov_path': has_code * cov(path_t),
                }
                if names is None:
                    names = list(feats)
                lab = 0
                for t in q['truths']:
                    if t['file_path'] == p and iou(a, b, t['first_character_index'], t['last_character_index']) > IOU_MIN:
                        lab = 1
                # which truths it finds (for multi-truth recall); here index list
                finds = [k for k, t in enumerate(q['truths']) if t['file_path'] == p and
                         iou(a, b, t['first_character_index'], t['last_character_index']) > IOU_MIN]
                rows.append({'x': [feats[n] for n in names], 'y': lab, 'finds': finds})
            qout.append({'qid': q['qid'], 'ntruth': len(q['truths']),
                         'truth_files': sorted(set(t['file_path'] for t in q['truths'])), 'cands': rows})
        out[d] = qout
    json.dump({'names': names, 'data': out}, open(os.path.join(WORK, 'data.json'), 'w'))
    for d in DATASETS:
        qs = out[d]
        r5 = sum(len(set(k for c in q['cands'][:5] for k in c['finds'])) / q['ntruth'] for q in qs) / len(qs)
        r50 = sum(len(set(k for c in q['cands'][:50] for k in c['finds'])) / q['ntruth'] for q in qs) / len(qs)
        r20 = sum(len(set(k for c in q['cands'][:20] for k in c['finds'])) / q['ntruth'] for q in qs) / len(qs)
        print('%-26s n=%d baseline recall@5=%.4f  @20=%.4f  @50=%.4f' % (d, len(qs), r5, r20, r50))


if __name__ == '__main__':
    main()
