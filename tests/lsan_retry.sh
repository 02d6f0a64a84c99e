#!/usr/bin/env bash
# Runs a test under the sanitizers (the CROSSCOMPILING_EMULATOR of the test executables when
# RAG_SANITIZE is on), and runs it once more when it failed only because LeakSanitizer's own
# stop-the-world tracer crashed ("Tracer caught signal 11 ... LeakSanitizer has encountered a
# fatal error"): a known intermittent fault of the sanitizer runtime (google/sanitizers#1353), not
# of the code. A test that fails for any other reason, a leak report included, fails as it is.
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$@" >"$out" 2>&1
status=$?
if ((status != 0)) && grep -q "LeakSanitizer has encountered a fatal error" "$out" &&
   ! grep -q "ERROR: LeakSanitizer: detected memory leaks\|ERROR: AddressSanitizer\|runtime error:" "$out"; then
  echo "lsan_retry.sh: LeakSanitizer's tracer crashed; running the test once more" >&2
  exec "$@"
fi
cat "$out"
exit "$status"
