#!/usr/bin/env bash
# Scale-out: the xapian retriever (configs/xapian.yaml) as 1 local database, N local shards and N
# remote shards (xapian-tcpsrv on loopback ports), side by side with bm25 (configs/default.yaml),
# on every question of the answered datasets: per-query latency p50/p95 (search_time_ms of
# `rag search -`, which opens the index once) and queries/s (questions over the process's wall
# time), medians of --runs runs; then how many top-10 lists of the N-shard layouts are identical to
# the single database's, and recall@5 of each (rag evaluate).
# Usage: bench/scale-out.sh [--runs 5] [--shards 3]
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/common.sh
shards=3
args=()
while (($#)); do
  case "$1" in
    --shards) shards=$2; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
parse_bench_args scale-out.sh "${args[@]}"

rag=build/release/rag
[[ -x $rag ]] || scripts/setup.sh --no-run
answered=../shared/data/datasets/AnsweredQuestions
work=$(mktemp -d)
servers=()
cleanup() {
  for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

for f in "$answered"/*.json; do jq -r '.rag_questions[].question | gsub("\n"; " ")' "$f"; done > "$work/questions.txt"
count=$(wc -l < "$work/questions.txt")

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr)," \
  "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); Xapian $(xapian-config --version | awk '{print $NF}')"
echo "questions: $count (every question of $answered), k 10, median of $runs runs"
echo

echo "==> indexing" >&2
"$rag" index --pipeline default >/dev/null 2>&1
"$rag" index --pipeline xapian --set "retriever.options.shards=$shards" >/dev/null 2>&1
"$rag" index --pipeline xapian --set retriever.options.shards=1 >/dev/null 2>&1
"$rag" index --pipeline default --set retriever.options.file_weight=0 >/dev/null 2>&1
index=$("$rag" check --pipeline xapian --set "retriever.options.shards=$shards" 2>/dev/null | jq -r .index.path)
scripts/xapian-shards.sh "$index" >/dev/null
remotes=()
for ((i = 0; i < shards; ++i)); do
  port=$((20000 + RANDOM % 20000))
  # A session of its own: xapian-tcpsrv, stopped, signals its whole process group, which would
  # be this script's.
  setsid xapian-tcpsrv --interface 127.0.0.1 --port "$port" --timeout 0 --quiet "$index/shard-$i.stub" >/dev/null 2>&1 &
  servers+=($!)
  remotes+=("\"127.0.0.1:$port\"")
done
sleep 0.5
remote_list=$(IFS=,; echo "[${remotes[*]}]")

declare -A settings=(
  [bm25]="--pipeline default"
  [xapian-1]="--pipeline xapian --set retriever.options.shards=1"
  [xapian-local]="--pipeline xapian --set retriever.options.shards=$shards"
  [xapian-remote]="--pipeline xapian --set retriever.options.shards=$shards --set retriever.search.remote=$remote_list"
)
order=(bm25 xapian-1 xapian-local xapian-remote)
printf '| %-22s | %8s | %8s | %9s |\n' layout "p50 ms" "p95 ms" "queries/s"
printf '|%s|%s|%s|%s|\n' ------------------------ ---------- ---------- -----------
for name in "${order[@]}"; do
  read -ra opts <<<"${settings[$name]}"
  p50s=() p95s=() rates=()
  for ((run = 0; run <= runs; ++run)); do  # run 0 warms caches up and is not counted
    start=$(date +%s%N)
    "$rag" search - -k 10 --format json "${opts[@]}" < "$work/questions.txt" > "$work/$name.jsonl"
    wall=$(($(date +%s%N) - start))
    ((run == 0)) && continue
    jq -r '.metrics.search_time_ms' "$work/$name.jsonl" | sort -g > "$work/ms"
    p50s+=("$(awk -v n="$count" 'NR == int(n * 0.50) + 1' "$work/ms")")
    p95s+=("$(awk -v n="$count" 'NR == int(n * 0.95) + 1' "$work/ms")")
    rates+=("$(awk -v n="$count" -v ns="$wall" 'BEGIN {print n / (ns / 1e9)}')")
  done
  label="$name"
  [[ $name == xapian-local ]] && label="xapian, $shards local shards"
  [[ $name == xapian-remote ]] && label="xapian, $shards remote shards"
  [[ $name == xapian-1 ]] && label="xapian, 1 database"
  printf '| %-22s | %8.3f | %8.3f | %9.0f |\n' "$label" "$(printf '%s\n' "${p50s[@]}" | median)" \
    "$(printf '%s\n' "${p95s[@]}" | median)" "$(printf '%s\n' "${rates[@]}" | median)"
  jq -c '[.retrieved_chunks[] | [.file_path, .first_character_index, .last_character_index]]' "$work/$name.jsonl" > "$work/$name.top"
done
echo
for name in xapian-local xapian-remote; do
  echo "$name: top-10 identical to the single database on $(paste -d'\t' "$work/xapian-1.top" "$work/$name.top" |
    awk -F'\t' '$1 == $2' | wc -l) of $count questions"
done
echo
echo "recall (rag compare, the same chunks: A bm25 as the default has it, B xapian, C bm25 without file_weight):"
"$rag" compare default xapian default --set "B:retriever.options.shards=$shards" --set C:retriever.options.file_weight=0 --show 0 \
  --dataset "$answered/dataset_docs_public.json" --dataset "$answered/dataset_code_public.json" \
  --dataset "$answered/Dataset_2025-09-21_valid.json" 2>/dev/null | grep -v '^$'
