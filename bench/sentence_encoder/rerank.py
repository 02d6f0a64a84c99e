"""Recall@5 of BM25's top 20 re-ranked by a sentence encoder's cosine (run.sh says how).

Usage: rerank.py WORK SET.json...; the first three sets are the public datasets whose held-out
folds choose the weight (5 folds, the questions of one truth file in one fold, the three
datasets weighing the same, the smaller weight on a tie); the others are only scored.
"""
import json, math, os, random, sys

WEIGHTS = [0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1.0]


def unit(v):
    n = math.sqrt(sum(x * x for x in v)) or 1.0
    return [x / n for x in v]


def iou(a0, a1, b0, b1):
    inter = min(a1, b1) - max(a0, b0)
    return inter / (max(a1, b1) - min(a0, b0)) if inter > 0 else 0.0


def relative(p):
    at = p.find("data/raw/")
    assert at >= 0, p
    return p[at:]


def recall5(ranked, truth):
    top = ranked[:5]
    found = sum(any(c["file"] == f and iou(a, b, c["first"], c["last"]) > 0.05 for c in top) for f, a, b in truth)
    return found / len(truth)


def load(work, path, vectors):
    questions = json.load(open(path))["rag_questions"]
    name = os.path.basename(path)[:-5]
    rows = [json.loads(l) for l in open(os.path.join(work, "top20", name + ".jsonl"))]
    out = []
    assert len(questions) == len(rows), name
    for q, row in zip(questions, rows):
        assert row["query"] == q["question"].replace("\n", " "), (name, q["question_id"])
        qv = vectors["q:" + row["query"]]
        cands = [{"file": relative(c["file_path"]), "first": c["first_character_index"],
                  "last": c["last_character_index"], "score": c["score"],
                  "cos": sum(x * y for x, y in zip(qv, vectors["c:%d" % c["chunk_id"]]))}
                 for c in row["retrieved_chunks"]]
        truth = [(relative(s["file_path"]), s["first_character_index"], s["last_character_index"]) for s in q["sources"]]
        out.append((cands, truth))
    return name, out


def reranked(cands, w):
    top = cands[0]["score"] if cands else 1.0
    return sorted(cands, key=lambda c: -(c["score"] / top + w * c["cos"]))


def main():
    work, paths = sys.argv[1], sys.argv[2:]
    vectors = {}
    for part in (0, 1):
        for k, v in json.load(open(os.path.join(work, "embeddings.%d.json" % part))).items():
            vectors[k] = unit(v)
    sets = [load(work, p, vectors) for p in paths]
    scores = {name: [[recall5(reranked(c, w), t) for c, t in qs] for w in WEIGHTS] for name, qs in sets}
    print("recall@5, all questions (weight 0: the default as it is)")
    for wi, w in enumerate(WEIGHTS):
        print("  w %.2f  " % w + "  ".join("%s %.3f" % (n, sum(s[wi]) / len(s[wi])) for n, s in scores.items()))
    print("  cosine alone  " + "  ".join("%s %.3f" % (n, sum(recall5(sorted(c, key=lambda x: -x["cos"]), t)
                                                            for c, t in qs) / len(qs)) for n, qs in sets))
    tuned = sets[:3]
    fold_of = {}
    for name, qs in tuned:
        files = sorted({t[0][0] for _, t in qs})
        random.Random(1).shuffle(files)
        index = {f: i % 5 for i, f in enumerate(files)}
        fold_of[name] = [index[t[0][0]] for _, t in qs]
    held = {name: [0.0, 0.0] for name, _ in tuned}
    chosen = []
    for fold in range(5):
        def train(wi):
            return sum(sum(s for s, f in zip(scores[n][wi], fold_of[n]) if f != fold) /
                       max(1, sum(1 for f in fold_of[n] if f != fold)) for n, _ in tuned)
        trained = [train(wi) for wi in range(len(WEIGHTS))]
        best = trained.index(max(trained))  # the smaller weight on a tie
        chosen.append(WEIGHTS[best])
        if trained.count(max(trained)) > 1:
            print("  fold %d: weights tied at its best: %s" % (fold, [WEIGHTS[i] for i, t in enumerate(trained) if t == max(trained)]))
        for n, _ in tuned:
            held[n][0] += sum(s for s, f in zip(scores[n][0], fold_of[n]) if f == fold)
            held[n][1] += sum(s for s, f in zip(scores[n][best], fold_of[n]) if f == fold)
    print("held-out folds: weights chosen %s; recall@5 as it is -> re-ranked: " % chosen +
          "  ".join("%s %.3f -> %.3f" % (n, h[0] / len(scores[n][0]), h[1] / len(scores[n][0])) for n, h in held.items()))


main()
