#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (into build/fuzz) and runs each for a while, starting
# from the seeds in fuzz/corpus/<target>/ and what earlier runs added in build/fuzz/corpus/.
#   fuzz/run.sh                     every target, 60 s each
#   fuzz/run.sh --seconds 20        shorter (CI)
#   fuzz/run.sh query_fuzzer ...    only these targets
# Prints the executions of each run; exits non-zero when a target found a crash or a broken
# invariant (the input is saved in build/fuzz/artifacts/, the log beside it).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=60
targets=()
while (($#)); do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    *) targets+=("$1"); shift ;;
  esac
done
((${#targets[@]})) || targets=(python_chunker_fuzzer cpp_chunker_fuzzer markdown_chunker_fuzzer text_chunker_fuzzer
  pipeline_fuzzer dataset_fuzzer query_fuzzer extractive_fuzzer translation_fuzzer)

# clang and its fuzzer runtime come from Debian; the rest of the stack from scripts/setup.sh.
source scripts/debian.sh
ensure_debian_packages clang libclang-rt-14-dev

build=build/fuzz
echo "==> building the fuzz targets (clang, ASan+UBSan) in $build" >&2
cmake -S fuzz -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ >/dev/null
cmake --build "$build" -j2 --target "${targets[@]}"

mkdir -p "$build/artifacts"
failed=0
printf '%-26s %12s %8s %s\n' target executions "exec/s" result
# The fixtures written for the unit tests and the shipped pipelines seed the fuzzers too, next
# to the seeds of fuzz/corpus/ (libFuzzer reads seed folders recursively).
test_seeds() {
  case "$1" in
    python_chunker_fuzzer) echo tests/fixtures/python ;;
    cpp_chunker_fuzzer) echo tests/fixtures/cpp ;;
    markdown_chunker_fuzzer) echo tests/fixtures/markdown tests/fixtures/repo/docs ;;
    pipeline_fuzzer) echo configs ;;
  esac
}
for target in "${targets[@]}"; do
  seeds=fuzz/corpus/${target%_fuzzer}
  work=$build/corpus/${target%_fuzzer}
  log=$build/artifacts/$target.log
  mkdir -p "$work"
  status=0
  # New inputs go to the work corpus, never to the checked-in seeds.
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$build/$target" -max_total_time="$seconds" -max_len=8192 -timeout=20 -rss_limit_mb=4096 \
    -artifact_prefix="$build/artifacts/$target-" -print_final_stats=1 "$work" "$seeds" $(test_seeds "$target") >"$log" 2>&1 || status=$?
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  speed=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  if ((status == 0)); then
    result=ok
  else
    result="FOUND A PROBLEM (exit $status): see $log"
    failed=1
    grep -m1 -E 'invariant broken|ERROR: AddressSanitizer|runtime error|deadly signal|ERROR: libFuzzer' "$log" >&2 || true
  fi
  printf '%-26s %12s %8s %s\n' "$target" "$runs" "$speed" "$result"
done
exit $failed
