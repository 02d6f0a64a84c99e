#!/usr/bin/env bash
# How many of the field's common words a question in Russian gets read as: each word of
# bench/ru_field_words.tsv asked as "Что такое <word>?" through `rag search` (the default
# pipeline's dictionaries and glossary, and its index's counts), and its translated query
# checked for the English word. Prints the words read otherwise, then the share read right.
# Usage: bench/field_words.sh [--pipeline configs/default.yaml]
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/common.sh
parse_bench_args field_words.sh "$@"
rag=build/release/rag
total=0
wrong=0
while IFS=$'\t' read -r russian english; do
  [[ -z $russian || $russian == \#* ]] && continue
  total=$((total + 1))
  read_as=$("$rag" search "Что такое $russian?" --k 1 --format json --pipeline "$pipeline" |
    python3 -c 'import json, sys; print(json.load(sys.stdin).get("translated_query", ""))')
  if ! tr '|' ' ' <<<" $read_as " | grep -qi "[^a-z]$english"; then
    wrong=$((wrong + 1))
    printf '%s -> %s (wants %s)\n' "$russian" "$read_as" "$english"
  fi
done <bench/ru_field_words.tsv
echo "read right: $((total - wrong)) of $total"
