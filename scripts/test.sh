#!/usr/bin/env bash
# Runs the test suite: the set-up (packages, grammar, corpus, release build) without the main
# job, then every test with CTest.
#   --sanitize        also build and run the whole suite under AddressSanitizer and
#                     UndefinedBehaviorSanitizer
#   --fuzz [SECONDS]  also build the libFuzzer targets (clang) and run each for SECONDS
#                     (default 20), failing on any crash or broken invariant (fuzz/run.sh)
# CI runs `scripts/test.sh --sanitize --fuzz`.
set -euo pipefail
cd "$(dirname "$0")/.."

sanitize=0
fuzz_seconds=0
while (($#)); do
  case "$1" in
    --sanitize) sanitize=1; shift ;;
    --fuzz)
      fuzz_seconds=20
      if [[ "${2:-}" =~ ^[0-9]+$ ]]; then fuzz_seconds=$2; shift; fi
      shift ;;
    *) echo "usage: scripts/test.sh [--sanitize] [--fuzz [SECONDS]]" >&2; exit 2 ;;
  esac
done

scripts/setup.sh --no-run
ctest --preset release -j2

if ((sanitize)); then
  cmake --preset sanitize >/dev/null
  cmake --build --preset sanitize
  ctest --preset sanitize -j2
fi

if ((fuzz_seconds)); then
  fuzz/run.sh --seconds "$fuzz_seconds"
fi
