#!/usr/bin/env bash
# Runs the test suite: the set-up (packages, grammar, corpus, release build) without the main
# job, then every test with CTest. --sanitize also builds and runs the whole suite under
# AddressSanitizer and UndefinedBehaviorSanitizer (what CI does).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh --no-run
ctest --preset release -j2

if [[ "${1:-}" == "--sanitize" ]]; then
  cmake --preset sanitize >/dev/null
  cmake --build --preset sanitize
  ctest --preset sanitize -j2
fi
