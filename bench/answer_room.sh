#!/usr/bin/env bash
# How much room the extractive generator's answers get, measured as docs/answers.md (stop 39)
# chose it: for each `max_chars` x `max_units` given, the facts accepted on the sets answering was
# shaped on (summed), on the blind sets (each set's count, and how many verdicts moved against the
# first setting given; never which: their misses are not read) and ROUGE-L on the public datasets
# from results files (search_dataset --k 10 first).
# Usage: bench/answer_room.sh [--pipeline FILE] [CHARSxUNITS ...]   (default: 300x3 600x3 600x5)
set -euo pipefail
cd "$(dirname "$0")/.."
pipeline=configs/default.yaml
if [[ ${1:-} == --pipeline ]]; then pipeline=$2; shift 2; fi
settings=("$@")
((${#settings[@]})) || settings=(300x3 600x3 600x5)
rag=build/release/rag
datasets=../shared/data/datasets
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# Runs a command quietly; when it fails, shows what it said and stops.
quiet() { "$@" >/dev/null 2>"$out/stderr" || { cat "$out/stderr" >&2; exit 1; }; }
seen=(tests/answers/everyday_facts.json tests/answers/everyday_facts_heldout.json bench/everyday_en.json
  bench/everyday_en2.json bench/everyday_en3.json bench/everyday_fresh.json bench/everyday_ru.json
  bench/everyday_ml.json bench/everyday_ml_en.json bench/everyday_ml2.json bench/everyday_ml2_en.json
  bench/everyday_ml3.json bench/everyday_ml3_en.json bench/everyday_ml4.json bench/everyday_ml4_en.json)
blind=(bench/everyday_en4.json bench/everyday_en5.json bench/everyday_en6.json bench/everyday_en7.json bench/everyday_en8.json bench/everyday_ru2.json)
public=(dataset_docs_public dataset_code_public Dataset_2025-09-21_valid)
for name in "${public[@]}"; do
  quiet "$rag" search_dataset --pipeline "$pipeline" --dataset_path "$datasets/UnansweredQuestions/$name.json" --k 10 \
    --save_directory "$out/search"
done
# accepted SETTING_DIR SET: answers SET and prints how many of its questions are accepted, leaving
# the verdicts in SETTING_DIR/<set>.pq.json.
accepted() {
  local dir=$1 set=$2 base
  base=$(basename "$set" .json)
  "$rag" evaluate_answers "$dir/$base.json" --facts "$set" --per_question "$dir/$base.pq.json" --json |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["accepted"])'
}
printf '%-10s %-8s %-22s %-14s %s\n' setting seen "blind (each)" "blind moved" "ROUGE-L docs / code / valid"
first=""
for setting in "${settings[@]}"; do
  chars=${setting%x*} units=${setting#*x}
  dir="$out/$setting"
  options=(--pipeline "$pipeline" --set "generator.options.max_chars=$chars" --set "generator.options.max_units=$units")
  seen_total=0
  for set in "${seen[@]}"; do
    quiet "$rag" answer_dataset "${options[@]}" --dataset_path "$set" --save_directory "$dir"
    seen_total=$((seen_total + $(accepted "$dir" "$set")))
  done
  blind_counts=()
  for set in "${blind[@]}"; do
    quiet "$rag" answer_dataset "${options[@]}" --dataset_path "$set" --save_directory "$dir"
    blind_counts+=("$(accepted "$dir" "$set")")
  done
  rouge=()
  for name in "${public[@]}"; do
    quiet "$rag" answer_dataset "${options[@]}" --student_search_results_path "$out/search/$name.json" \
      --save_directory "$dir/public"
    rouge+=("$("$rag" evaluate_answers "$dir/public/$name.json" "$datasets/AnsweredQuestions/$name.json" --json |
      python3 -c 'import json, sys; print("%.4f" % json.load(sys.stdin)["rouge_l"]["mean"])')")
  done
  moved=""
  if [[ -n $first ]]; then
    moved=$(python3 - "$out/$first" "$dir" "${blind[@]}" <<'EOF'
import json, os, sys
before, after, sets = sys.argv[1], sys.argv[2], sys.argv[3:]
gained = lost = 0
for s in sets:
    name = os.path.basename(s)[:-5] + ".pq.json"
    a = {q["question_id"]: q["accepted"] for q in json.load(open(os.path.join(before, name)))}
    b = {q["question_id"]: q["accepted"] for q in json.load(open(os.path.join(after, name)))}
    gained += sum(1 for k in a if b[k] and not a[k])
    lost += sum(1 for k in a if a[k] and not b[k])
print(f"+{gained} -{lost}")
EOF
)
  else
    first=$setting
  fi
  printf '%-10s %-8s %-22s %-14s %s\n' "$setting" "$seen_total" "${blind_counts[*]}" "$moved" "${rouge[*]}"
done
