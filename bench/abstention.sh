#!/usr/bin/env bash
# Chooses when answers decline (bench/abstention.py): answers the public questions and those of
# bench/out_of_scope.json with the pipeline, then cross-validates the support's knee and
# threshold on them. Usage: bench/abstention.sh [--pipeline configs/default.yaml]
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/common.sh
parse_bench_args abstention.sh "$@"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
datasets=../shared/data/datasets/UnansweredQuestions
for name in dataset_docs_public dataset_code_public Dataset_2025-09-21_valid; do
  build/release/rag answer_dataset --pipeline "$pipeline" --dataset_path "$datasets/$name.json" --save_directory "$out" 2>/dev/null
done
build/release/rag answer_dataset --pipeline "$pipeline" --dataset_path bench/out_of_scope.json --save_directory "$out" 2>/dev/null
python3 bench/abstention.py "$out"/dataset_docs_public.json "$out"/dataset_code_public.json \
  "$out"/Dataset_2025-09-21_valid.json --out-of-scope "$out"/out_of_scope.json
