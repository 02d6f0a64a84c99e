#!/usr/bin/env bash
# A learned re-ranker over lexical features of BM25's top 50, measured on held-out folds (issue
# 15, item 5; docs/retrieval.md, "A learned re-ranker"). Not shipped: it lost on held-out folds.
#   1. the default pipeline's top 50 for every question of the three public datasets,
#   2. labels (same path, IoU > 0.05 with a truth) and 38 features per candidate (features.py),
#   3. pointwise and pairwise logistic models, 5 folds grouped by truth file (rerank_cv.py),
#   4. held-out recall@5 against BM25's order, with paired bootstrap intervals (report.py).
# Pure Python 3; about 20 minutes on 2 cores. Usage: bench/learned_rerank/run.sh [WORK_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
export RERANK_DIR=$(realpath -m "${1:-/tmp/learned_rerank}") RAG_SHARED=$(realpath ../shared)
mkdir -p "$RERANK_DIR/top50"
for d in dataset_docs_public dataset_code_public Dataset_2025-09-21_valid; do
  python3 -c "
import json, sys
for q in json.load(open(sys.argv[1]))['rag_questions']: print(q['question'])
" "$RAG_SHARED/data/datasets/UnansweredQuestions/$d.json" |
    build/release/rag search - -k 50 --json > "$RERANK_DIR/top50/$d.jsonl"
done
here=bench/learned_rerank
python3 "$here/features.py"
python3 "$here/rerank_cv.py"
python3 "$here/report.py" | tee "$RERANK_DIR/report.txt"
