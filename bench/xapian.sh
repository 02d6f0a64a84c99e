#!/usr/bin/env bash
# rag next to Xapian, in one run: the chunks of rag's index (exported with `rag chunks --export`)
# indexed by rag's bm25 and by Xapian's BM25, the same questions (every question of the answered
# datasets) on both: build time, index size, p50/p95/p99 query latency, recall@5, and our figures
# as ratios to Xapian's. Then peak memory (RSS) of `rag index` and `rag search_dataset`.
# Everything is a median of --runs runs (default 5).
# Usage: bench/xapian.sh [--pipeline configs/default.yaml] [--runs 5]
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/common.sh
parse_bench_args xapian.sh "$@"

source scripts/debian.sh
ensure_debian_packages time  # Xapian itself comes with scripts/setup.sh (the xapian retriever)

rag=build/release/rag
[[ -x $rag ]] || scripts/setup.sh --no-run
build=build/bench-xapian
echo "==> building the benchmark (release) in $build" >&2
cmake -S bench/xapian -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j2 --target xapian_bench >&2

# Peak resident memory of a command, in MB.
peak_mb() { /usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -1 | awk '{printf "%.0f\n", $1 / 1024}'; }

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr)," \
  "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "pipeline: $pipeline"
echo
index_mb=$(for _ in $(seq "$runs"); do peak_mb "$rag" index --full --pipeline "$pipeline"; done | median)
"$rag" chunks --export "$build/chunks.jsonl" --pipeline "$pipeline" 2>/dev/null

answered=../shared/data/datasets/AnsweredQuestions
"$build/xapian_bench" --chunks "$build/chunks.jsonl" --pipeline "$pipeline" --work "$build/work" --runs "$runs" \
  --dataset "$answered/dataset_docs_public.json" --dataset "$answered/dataset_code_public.json" \
  --dataset "$answered/Dataset_2025-09-21_valid.json"

echo
echo "peak RSS, median of $runs runs:"
printf '  rag index                   %6s MB\n' "$index_mb"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for name in dataset_docs_public.json dataset_code_public.json; do
  mb=$(for _ in $(seq "$runs"); do
    peak_mb "$rag" search_dataset --pipeline "$pipeline" --dataset_path "../shared/data/datasets/UnansweredQuestions/$name" \
      --save_directory "$out" --k 10
  done | median)
  printf '  rag search_dataset %-24s %6s MB\n' "$name" "$mb"
done
