#!/usr/bin/env bash
# A semantic signal trained here (issue 15): fastText skipgram vectors (subwords 3-6, 100
# dimensions, 5 epochs) trained on the corpus's Python and Markdown, identifiers cut into words;
# each question word expanded with its nearest corpus words (bench/fasttext_expansion.py), then
# recall@5 of the pipeline on the three public datasets, as they are and expanded at cosine >= 0.8
# and >= 0.7. Installs Debian's `fasttext` when missing. Usage: bench/fasttext_expansion.sh [--pipeline FILE]
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/common.sh
source scripts/debian.sh
ensure_debian_packages fasttext python3
parse_bench_args fasttext_expansion.sh "$@"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
corpus=$(build/release/rag check --pipeline "$pipeline" --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["corpus"]["folder"])')
find -L "$corpus" -type f \( -name '*.py' -o -name '*.md' \) -print0 | xargs -0 cat |
  sed -E 's/([a-z])([A-Z])/\1 \2/g; s/_/ /g' | tr 'A-Z' 'a-z' | tr -cs 'a-z0-9' ' ' | fold -w 8000 -s > "$out/corpus.txt"
seconds fasttext skipgram -input "$out/corpus.txt" -output "$out/vectors" -dim 100 -minn 3 -maxn 6 -epoch 5 \
  -thread "$(nproc)" -minCount 3 | xargs printf "training: %.1f s\n"
unanswered=../shared/data/datasets/UnansweredQuestions
answered=../shared/data/datasets/AnsweredQuestions
names="dataset_docs_public dataset_code_public Dataset_2025-09-21_valid"
for cosine in none 0.8 0.7; do
  questions=$unanswered
  if [ "$cosine" != none ]; then
    questions=$out/q$cosine
    python3 bench/fasttext_expansion.py "$out/vectors.bin" "$questions" --min-cosine "$cosine" \
      $(for n in $names; do echo "$unanswered/$n.json"; done)
  fi
  printf "expansion %-5s" "$cosine"
  for n in $names; do
    build/release/rag search_dataset --pipeline "$pipeline" --dataset_path "$questions/$n.json" \
      --save_directory "$out/r$cosine" --k 10 >/dev/null 2>&1
    build/release/rag evaluate "$out/r$cosine/$n.json" "$answered/$n.json" --k 5 --json |
      python3 -c 'import json,sys; print("  %.3f" % json.load(sys.stdin)["recall@5"], end="")'
  done
  echo "  (recall@5: docs, code, validation)"
done
