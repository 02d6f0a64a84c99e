#!/usr/bin/env bash
# How rag grows with its corpus. Corpora, built reproducibly under build/scale/: the vLLM tree
# copied N times into one folder (hard links: the same bytes under N paths) for each N of
# --copies, and one corpus that is not vLLM, the Python standard library Debian's python3 ships.
# For each, with the default pipeline:
#   - files and chunks; `rag index --full` time and peak RSS; the index's size on disk;
#   - per-query search latency p50/p99 over the 718 validation questions (search_dataset);
#   - one `rag search` process: wall time and peak RSS, median of --runs;
#   - `rag index` with nothing changed, after one edited file, after 1% of the files edited.
# Writes bench/scale.md (the table) and docs/scale.png (gnuplot). Medians of --runs (the full
# index of copies above 8 once).
# Usage: bench/scale.sh [--copies "1 4 8 30"] [--runs 3]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/debian.sh
source bench/common.sh
ensure_debian_packages gnuplot-nox python3

copies="1 4 8 30"
runs=3
while (($#)); do
  case "$1" in
    --copies) copies=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    *) echo "usage: bench/scale.sh [--copies \"1 4 8 30\"] [--runs N]" >&2; exit 2 ;;
  esac
done
rag=$PWD/build/release/rag
[[ -x $rag ]] || scripts/setup.sh --no-run
source=data/raw/vllm-0.10.1
[[ -d $source ]] || { echo "bench/scale.sh: $source is missing; run scripts/setup.sh" >&2; exit 1; }
questions=../shared/data/datasets/UnansweredQuestions/Dataset_2025-09-21_valid.json
work=$PWD/build/scale
mkdir -p "$work"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# Wall time (s) and peak RSS (MB) of a command: "seconds megabytes".
measure() {
  local start=${EPOCHREALTIME/./} end
  /usr/bin/time -f '%M' -o "$out/time" "$@" >/dev/null 2>"$out/stderr" || { cat "$out/stderr" >&2; exit 1; }
  end=${EPOCHREALTIME/./}
  awk -v us=$((end - start)) '{printf "%.4f %.0f\n", us / 1e6, $1 / 1024}' "$out/time"
}
column_median() { awk -v c="$1" '{print $c}' | median; }

# The corpus folder for a name: N copies of vLLM ("vllm-x8"), or the standard library.
make_corpus() {
  local name=$1 dir=$work/corpora/$1
  if [[ ! -d $dir ]]; then
    mkdir -p "$dir.tmp"
    if [[ $name == python-stdlib ]]; then
      cp -a /usr/lib/python3.*/. "$dir.tmp/"
    else
      for i in $(seq "${name#vllm-x}"); do cp -al "$source" "$dir.tmp/copy-$i"; done
    fi
    mv "$dir.tmp" "$dir"
  fi
  echo "$dir"
}

table=bench/scale.md
{
  echo "# rag at scale ($(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), default pipeline, bench/scale.sh --runs $runs)"
  echo
  echo "| corpus | MB | files | chunks | index --full (s) | peak RSS (MB) | index (MB) | p50 (ms) | p99 (ms) | rag search (s) | its RSS (MB) | no-op (s) | 1 edit (s) | 1% edited (s) |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
} >"$table"
: >"$out/plot"
for name in $(for n in $copies; do echo "vllm-x$n"; done) python-stdlib; do
  dir=$(make_corpus "$name")
  index=$work/index-$name
  set_args=(--set "corpus.root=$dir" --set "index=$index")
  mb=$(du -sml "$dir" | cut -f1)  # hard links counted each time: the copies are that many bytes
  n=$runs
  [[ $name == vllm-x* && ${name#vllm-x} -gt 8 ]] && n=1
  for _ in $(seq "$n"); do measure "$rag" index --full "${set_args[@]}"; done >"$out/build"
  index_s=$(column_median 1 <"$out/build")
  index_mb=$(column_median 2 <"$out/build")
  files=$(python3 -c "import json,sys; m=json.load(open(sys.argv[1])); print(m['corpus']['files'])" "$index/manifest.json")
  chunks=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['chunks'])" "$index/manifest.json")
  size=$(du -sm "$index" | cut -f1)
  "$rag" search_dataset "${set_args[@]}" --dataset_path "$questions" --save_directory "$out/results" --k 10 >/dev/null 2>&1
  read -r p50 p99 < <(grep -o '"search_time_ms": *[0-9.e+-]*' "$out/results/$(basename "$questions")" | cut -d: -f2 | sort -g |
    awk '{a[NR]=$1} END {printf "%.3f %.3f\n", a[int(NR*0.5)+1], a[int(NR*0.99)+1]}')
  for _ in $(seq "$runs"); do measure "$rag" search "${set_args[@]}" --format json -k 10 how does paged attention work; done >"$out/search"
  search_s=$(column_median 1 <"$out/search")
  search_mb=$(column_median 2 <"$out/search")
  noop=$(for _ in $(seq "$runs"); do seconds "$rag" index "${set_args[@]}"; done | median)
  # An edit appends a line to a new copy of the file (the copies are hard links: the others keep
  # their bytes); the original is put back afterwards and the index brought up to date again.
  mapfile -t all < <(cd "$dir" && find . -type f \( -name '*.py' -o -name '*.md' \) | sort)
  edit_one() {
    for f in "$@"; do
      mkdir -p "$out/orig/$(dirname "$f")" && cp -a "$dir/$f" "$out/orig/$f"
      { cat "$dir/$f"; printf '\n# edited\n'; } >"$out/new" && mv "$out/new" "$dir/$f"
    done
  }
  undo() { for f in "$@"; do mv "$out/orig/$f" "$dir/$f"; done; "$rag" index "${set_args[@]}" >/dev/null 2>&1; }
  one=${all[$((${#all[@]} / 2))]}
  single=$(for _ in $(seq "$runs"); do edit_one "$one"; seconds "$rag" index "${set_args[@]}"; undo "$one"; done | median)
  some=()
  for ((i = 0; i < ${#all[@]}; i += 100)); do some+=("${all[$i]}"); done
  percent=$(for _ in $(seq "$runs"); do edit_one "${some[@]}"; seconds "$rag" index "${set_args[@]}"; undo "${some[@]}"; done | median)
  printf '| %s | %s | %s | %s | %.2f | %s | %s | %s | %s | %.3f | %s | %.3f | %.3f | %.3f |\n' "$name" "$mb" "$files" "$chunks" \
    "$index_s" "$index_mb" "$size" "$p50" "$p99" "$search_s" "$search_mb" "$noop" "$single" "$percent" | tee -a "$table"
  [[ $name == vllm-x* ]] && echo "$mb $index_s $index_mb $p50 $p99 $search_s $search_mb" >>"$out/plot"
done

gnuplot <<GNUPLOT
set terminal pngcairo size 1200,420 font "DejaVu Sans,10"
set output "docs/scale.png"
set multiplot layout 1,3 title "rag with the vLLM tree copied 1 to N times ($(nproc) cores, default pipeline; bench/scale.sh)"
set xlabel "corpus (MB of source)"
set key top left
set grid
set title "rag index --full"
set ylabel "seconds"
set y2label "peak RSS (MB)"
set y2tics
set ytics nomirror
plot "$out/plot" using 1:2 with linespoints title "time (s)", "" using 1:3 axes x1y2 with linespoints title "peak RSS (MB)"
unset y2label
unset y2tics
set ytics mirror
set title "search latency (718 questions)"
set ylabel "ms"
plot "$out/plot" using 1:4 with linespoints title "p50", "" using 1:5 with linespoints title "p99"
set title "one rag search, process and all"
set ylabel "seconds"
set y2label "peak RSS (MB)"
set y2tics
set ytics nomirror
plot "$out/plot" using 1:6 with linespoints title "wall (s)", "" using 1:7 axes x1y2 with linespoints title "RSS (MB)"
unset multiplot
GNUPLOT
echo "wrote $table and docs/scale.png"
