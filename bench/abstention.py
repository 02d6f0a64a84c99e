#!/usr/bin/env python3
"""Chooses when an answer declines, by 5-fold cross-validation.

Answers declining is a trade: a question the corpus answers should be answered, one it does not
(bench/out_of_scope.json: general knowledge, other software, in five languages) should be
declined. `rag answer_dataset` records each answer's support: the weight of the question's words
(their rarity, summed), the weight the best source states, and the best retrieval score in units
of weight. Support is coverage * min(1, score / knee), coverage and score being read against at
most `cap` of the question's weight (a long question's context words past it do not count). This
script picks the cap, the knee and the threshold (context.support_weight_cap, score_knee and
min_support) that maximise the balanced accuracy (the mean of the share of answerable questions
answered and the share of the others declined) on four folds and reports it on the fifth, for
each fold, then the choice on all the questions.

Usage: bench/abstention.sh (answers the questions, then runs this), or
       bench/abstention.py ANSWERED_FILES... --out-of-scope ANSWERS_FILE
"""
import argparse
import bisect
import json
import random

CAPS = [0, 10, 15, 20, 25, 30, 40, 60]  # 0: the whole weight
KNEES = [0.0, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6, 0.8, 1.0]
THRESHOLDS = [round(0.02 * i, 2) for i in range(51)]


def supports(results):
    return [(r["support"]["covered"], r["support"]["weight"], r["support"]["scored"]) for r in results]


def load(path):
    return json.load(open(path))["search_results"]


def value(support, cap, knee):
    covered, weight, scored = support
    counted = min(weight, cap) if cap > 0 else weight
    if counted <= 0:
        return 0.0
    coverage = min(1.0, covered / counted)
    return coverage * (min(1.0, min(1.0, scored / counted) / knee) if knee > 0 else 1.0)


def sorted_values(samples, cap, knee):
    return sorted(value(s, cap, knee) for s in samples)


def rates_of(ins, outs, threshold):
    """The share of `ins` answered and of `outs` declined at `threshold`, both sorted values."""
    answered = (len(ins) - bisect.bisect_left(ins, threshold)) / len(ins)
    declined = bisect.bisect_left(outs, threshold) / len(outs)
    return answered, declined


def rates(inside, outside, cap, knee, threshold):
    return rates_of(sorted_values(inside, cap, knee), sorted_values(outside, cap, knee), threshold)


def best(inside, outside):
    # Ties go to the lower threshold: declining a question the corpus answers costs the most;
    # then to the lower knee and cap, the simpler reading.
    candidates = []
    for cap in CAPS:
        for knee in KNEES:
            ins, outs = sorted_values(inside, cap, knee), sorted_values(outside, cap, knee)
            for t in THRESHOLDS:
                candidates.append((sum(rates_of(ins, outs, t)) / 2, -t, -knee, -cap, (cap, knee, t)))
    return max(candidates)[-1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("answered", nargs="+", help="answers files of questions the corpus answers")
    parser.add_argument("--out-of-scope", required=True, help="answers file of questions it does not")
    parser.add_argument("--facts", nargs=2, action="append", default=[], metavar=("ANSWERS", "FACTS"),
                        help="answers file of a facts set and the set: its questions marked \"answerable\": false "
                             "are out of scope, the others answerable")
    parser.add_argument("--folds", type=int, default=5)
    args = parser.parse_args()
    inside = [s for path in args.answered for s in supports(load(path))]
    outside = supports(load(args.out_of_scope))
    for answers, facts in args.facts:
        answerable = {q["question_id"]: q.get("answerable", True) for q in json.load(open(facts))["rag_questions"]}
        results = load(answers)
        for r, s in zip(results, supports(results)):
            (inside if answerable[r["question_id"]] else outside).append(s)
    rng = random.Random(12)
    rng.shuffle(inside)
    rng.shuffle(outside)
    held = []
    for f in range(args.folds):
        train_in = [s for i, s in enumerate(inside) if i % args.folds != f]
        train_out = [s for i, s in enumerate(outside) if i % args.folds != f]
        test_in = inside[f::args.folds]
        test_out = outside[f::args.folds]
        cap, knee, threshold = best(train_in, train_out)
        answered, declined = rates(test_in, test_out, cap, knee, threshold)
        held.append((answered, declined))
        print(f"fold {f + 1}: weight cap {cap}, knee {knee}, min_support {threshold}; held out: answerable answered "
              f"{answered:.3f} ({len(test_in)}), out of scope declined {declined:.3f} ({len(test_out)})")
    n = len(held)
    print(f"held-out mean: answerable answered {sum(a for a, _ in held) / n:.3f}, "
          f"out of scope declined {sum(d for _, d in held) / n:.3f}")
    cap, knee, threshold = best(inside, outside)
    answered, declined = rates(inside, outside, cap, knee, threshold)
    print(f"on all {len(inside)} + {len(outside)} questions: weight cap {cap}, knee {knee}, min_support {threshold} "
          f"(answerable answered {answered:.3f}, out of scope declined {declined:.3f})")


if __name__ == "__main__":
    main()
