#!/usr/bin/env bash
# Chooses when answers decline (bench/abstention.py): answers the public questions, those of
# bench/out_of_scope.json and those of the everyday facts sets with the pipeline, then
# cross-validates the support's weight cap, knee and threshold on them.
# Usage: bench/abstention.sh [--pipeline configs/default.yaml]
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
# The everyday facts sets: short questions as users ask them, in five languages, some out of scope.
facts=()
for set in tests/answers/everyday_facts.json tests/answers/everyday_facts_heldout.json bench/everyday_en.json \
  bench/everyday_ru.json bench/everyday_fresh.json; do
  build/release/rag answer_dataset --pipeline "$pipeline" --dataset_path "$set" --save_directory "$out" 2>/dev/null
  facts+=(--facts "$out/$(basename "$set")" "$set")
done
python3 bench/abstention.py "$out"/dataset_docs_public.json "$out"/dataset_code_public.json \
  "$out"/Dataset_2025-09-21_valid.json --out-of-scope "$out"/out_of_scope.json "${facts[@]}"
