#!/usr/bin/env bash
# The quality figures of README's "How good the answers are, and how fast", measured again:
#   - ROUGE-L, token F1 and cited sources holding the truth on the three public datasets, from
#     results files (search_dataset --k 10, then answer_dataset --student_search_results_path)
#     and with the pipeline's own retrieval (answer_dataset --dataset_path), with the declined;
#   - the facts sets: accepted and out-of-scope cited (answer_dataset --dataset_path, then
#     evaluate_answers --facts), each set on one line, and bench/out_of_scope_near.json (questions
#     near the domain that the corpus does not answer: "accepted" are those declined).
# Usage: bench/answer_quality.sh [--pipeline configs/default.yaml]
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/common.sh
parse_bench_args answer_quality.sh "$@"
rag=build/release/rag
datasets=../shared/data/datasets
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# "rouge_l token_f1 cites_truth declined" of an answers file against its answered dataset.
scores() {
  "$rag" evaluate_answers "$1" "$2" --json | python3 -c 'import json, sys
d = json.load(sys.stdin)
print("ROUGE-L %.4f  token F1 %.4f  cited truth %.3f  declined %d" % (d["rouge_l"]["mean"], d["token_f1"]["mean"], d["cites_truth"], d["declined"]))'
}
echo "pipeline: $pipeline"
for name in dataset_docs_public dataset_code_public Dataset_2025-09-21_valid; do
  "$rag" search_dataset --pipeline "$pipeline" --dataset_path "$datasets/UnansweredQuestions/$name.json" --k 10 \
    --save_directory "$out/search" >/dev/null 2>&1
  "$rag" answer_dataset --pipeline "$pipeline" --student_search_results_path "$out/search/$name.json" \
    --save_directory "$out/from_results" >/dev/null 2>&1
  "$rag" answer_dataset --pipeline "$pipeline" --dataset_path "$datasets/UnansweredQuestions/$name.json" \
    --save_directory "$out/own_retrieval" >/dev/null 2>&1
  printf '%-30s results file    %s\n' "$name" "$(scores "$out/from_results/$name.json" "$datasets/AnsweredQuestions/$name.json")"
  printf '%-30s own retrieval   %s\n' "" "$(scores "$out/own_retrieval/$name.json" "$datasets/AnsweredQuestions/$name.json")"
done
for set in tests/answers/everyday_facts.json tests/answers/everyday_facts_heldout.json bench/everyday_*.json bench/out_of_scope_near.json; do
  "$rag" answer_dataset --pipeline "$pipeline" --dataset_path "$set" --save_directory "$out/facts" >/dev/null 2>&1
  printf '%-45s %s\n' "$set" "$("$rag" evaluate_answers "$out/facts/$(basename "$set")" --facts "$set" | head -1)"
done
