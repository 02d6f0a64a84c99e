#!/usr/bin/env bash
# Speed of the main jobs on this machine, median of N runs (default 5):
#   - `rag index --full` of the whole corpus with the pipeline (from scratch),
#   - `rag search_dataset` on each public dataset, process start and index load included,
#   - per-query search latency (p50, p95) read from the results files.
# Usage: bench/speed.sh [--pipeline configs/default.yaml] [--runs 5]
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/common.sh
parse_bench_args speed.sh "$@"
rag=build/release/rag
datasets=../shared/data/datasets/UnansweredQuestions
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT


echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr)"
echo "pipeline: $pipeline, $runs runs each, medians"
for _ in $(seq "$runs"); do seconds "$rag" index --full --pipeline "$pipeline"; done | median | xargs printf "index --full          %.3f s\n"
# The floor under it: tree-sitter parsing every Python and C/C++/CUDA file, CPU seconds on one
# core (bench/parse_benchmark.cpp, medians of the runs, or the one run), and that spread over
# every core. A failed benchmark (no corpus) is reported and the rest goes on.
if [[ -x build/release/bench/parse_benchmark ]]; then
  build/release/bench/parse_benchmark --benchmark_repetitions="$runs" --benchmark_report_aggregates_only="$((runs > 1))" \
    --benchmark_format=csv 2>/dev/null | awk -F, -v cores="$(nproc)" '
      function seconds(t, unit) { return t / (unit == "s" ? 1 : unit == "ms" ? 1e3 : unit == "us" ? 1e6 : 1e9) }
      NR == 1 || $1 ~ /_(mean|stddev|cv)"?$/ {next}
      $9 == "true" {failed = failed " " $1 ": " $10; next}
      $1 ~ /_median"?$/ {median += seconds($4, $5); medians++; next}
      {single += seconds($4, $5)}
      END {
        if (failed != "") {print "  tree-sitter parsing alone: benchmark failed:" failed; exit}
        cpu = medians ? median : single
        if (cpu == 0) {print "  tree-sitter parsing alone: no figure (see build/release/bench/parse_benchmark)"; exit}
        printf "  of which tree-sitter parsing alone: %.3f CPU s, at best %.3f s on %d cores\n", cpu, cpu / cores, cores
      }' || true
fi
for name in dataset_docs_public.json dataset_code_public.json; do
  for _ in $(seq "$runs"); do
    seconds "$rag" search_dataset --pipeline "$pipeline" --dataset_path "$datasets/$name" --save_directory "$out" --k 10
  done | median | xargs printf "search_dataset %-28s %.3f s\n" "$name"
  grep -o '"search_time_ms": *[0-9.e+-]*' "$out/$name" | cut -d: -f2 | sort -g |
    awk '{a[NR]=$1} END {printf "  per query: p50 %.3f ms, p95 %.3f ms\n", a[int(NR*0.5)+1], a[int(NR*0.95)+1]}'
done
