#!/usr/bin/env python3
"""Chooses when an answer declines, by 5-fold cross-validation.

Answers declining is a trade: a question the corpus answers should be answered, one it does not
(bench/out_of_scope.json: general knowledge, other software, in five languages) should be
declined. `rag answer_dataset` records each answer's support (coverage of the question's rare
words by the best source, and the best retrieval score against what the question could score);
the support is coverage * min(1, score / knee). This script picks the knee and the threshold
(context.min_support) that maximise the balanced accuracy (the mean of the share of answerable
questions answered and the share of the others declined) on four folds and reports it on the
fifth, for each fold, then the choice on all the questions.

Usage: bench/abstention.sh (answers the questions, then runs this), or
       bench/abstention.py ANSWERED_FILES... --out-of-scope ANSWERS_FILE
"""
import argparse
import json
import random

KNEES = [0.0, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4]
THRESHOLDS = [round(0.02 * i, 2) for i in range(51)]


def supports(path):
    return [(r["support"]["coverage"], r["support"]["score"]) for r in json.load(open(path))["search_results"]]


def value(coverage, score, knee):
    return coverage * (min(1.0, score / knee) if knee > 0 else 1.0)


def rates(inside, outside, knee, threshold):
    answered = sum(value(c, s, knee) >= threshold for c, s in inside) / len(inside)
    declined = sum(value(c, s, knee) < threshold for c, s in outside) / len(outside)
    return answered, declined


def best(inside, outside):
    # Ties go to the lower threshold: declining a question the corpus answers costs the most.
    return max(((k, t) for k in KNEES for t in THRESHOLDS),
               key=lambda kt: (sum(rates(inside, outside, *kt)) / 2, -kt[1], -kt[0]))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("answered", nargs="+", help="answers files of questions the corpus answers")
    parser.add_argument("--out-of-scope", required=True, help="answers file of questions it does not")
    parser.add_argument("--folds", type=int, default=5)
    args = parser.parse_args()
    inside = [s for path in args.answered for s in supports(path)]
    outside = supports(args.out_of_scope)
    rng = random.Random(12)
    rng.shuffle(inside)
    rng.shuffle(outside)
    held = []
    for f in range(args.folds):
        train_in = [s for i, s in enumerate(inside) if i % args.folds != f]
        train_out = [s for i, s in enumerate(outside) if i % args.folds != f]
        test_in = inside[f::args.folds]
        test_out = outside[f::args.folds]
        knee, threshold = best(train_in, train_out)
        answered, declined = rates(test_in, test_out, knee, threshold)
        held.append((answered, declined))
        print(f"fold {f + 1}: knee {knee}, min_support {threshold}; held out: answerable answered "
              f"{answered:.3f} ({len(test_in)}), out of scope declined {declined:.3f} ({len(test_out)})")
    n = len(held)
    print(f"held-out mean: answerable answered {sum(a for a, _ in held) / n:.3f}, "
          f"out of scope declined {sum(d for _, d in held) / n:.3f}")
    knee, threshold = best(inside, outside)
    answered, declined = rates(inside, outside, knee, threshold)
    print(f"on all {len(inside)} + {len(outside)} questions: knee {knee}, min_support {threshold} "
          f"(answerable answered {answered:.3f}, out of scope declined {declined:.3f})")


if __name__ == "__main__":
    main()
