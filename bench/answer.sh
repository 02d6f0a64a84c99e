#!/usr/bin/env bash
# Speed of answering on this machine, against the targets of the answers feature:
#   - `rag answer` with the extractive generator: time per question once the index is loaded
#     (retrieval + context + generation, from its own timings; target < 50 ms) and the whole
#     process (median of N runs; target < 300 ms);
#   - `rag answer_dataset` on each public dataset's 100 questions, whole process (target < 2 s);
#   - our own overhead per question with an LLM server (target < 20 ms): `rag answer` against a
#     stand-in Ollama server on 127.0.0.1 that answers at once (python3), so that what is
#     measured is retrieval, context assembly, the HTTP exchange and JSON, plus the stand-in's
#     own time (an upper bound on ours).
# Usage: bench/answer.sh [--pipeline configs/default.yaml] [--runs 5]
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/common.sh
parse_bench_args answer.sh "$@"
rag=build/release/rag
datasets=../shared/data/datasets/UnansweredQuestions
out=$(mktemp -d)
server_pid=
cleanup() {
  [[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null || true
  rm -rf "$out"
}
trap cleanup EXIT

percentiles() { sort -g | awk '{a[NR]=$1} END {printf "p50 %.2f ms, p95 %.2f ms, max %.2f ms (%d questions)\n", a[int(NR*0.5)+1], a[int(NR*0.95)+1], a[NR], NR}'; }
# The first `n` questions of a dataset, one a line.
questions() { python3 -c 'import json,sys; [print(q["question"]) for q in json.load(open(sys.argv[1]))["rag_questions"][:int(sys.argv[2])]]' "$1" "$2"; }
# total_ms of `rag answer` for each question on stdin; arguments: more options of `rag answer`.
answer_times() {
  while IFS= read -r q; do
    "$rag" answer "$q" --pipeline "$pipeline" --format json "$@" 2>/dev/null | grep -o '"total_ms": [0-9.e+-]*' | awk '{print $2}'
  done
}

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr)"
echo "pipeline: $pipeline, $runs runs each, medians"
q="How to configure the OpenAI-compatible server?"
"$rag" answer "$q" --pipeline "$pipeline" >/dev/null  # stops here, saying why, without an index
for _ in $(seq "$runs"); do seconds "$rag" answer "$q" --pipeline "$pipeline"; done | median |
  xargs printf 'answer, whole process              %.3f s\n'
printf 'answer, per question (index loaded)  '
questions "$datasets/dataset_docs_public.json" 30 | answer_times | percentiles

for name in dataset_docs_public.json dataset_code_public.json; do
  "$rag" search_dataset --pipeline "$pipeline" --dataset_path "$datasets/$name" --save_directory "$out/search" >/dev/null 2>&1
  for _ in $(seq "$runs"); do
    seconds "$rag" answer_dataset --pipeline "$pipeline" --student_search_results_path "$out/search/$name" --save_directory "$out/answers"
  done | median | xargs printf "answer_dataset %-26s %.3f s (from its search results)\n" "$name"
  for _ in $(seq "$runs"); do
    seconds "$rag" answer_dataset --pipeline "$pipeline" --dataset_path "$datasets/$name" --save_directory "$out/direct"
  done | median | xargs printf "answer_dataset %-26s %.3f s (searching too)\n" "$name"
done

if ! command -v python3 >/dev/null; then
  echo "LLM overhead: skipped (python3 runs the stand-in server)"
  exit 0
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 - "$port" <<'EOF' &
import http.server, json, sys
class Chat(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # as Ollama's server does
    def do_POST(self):
        json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        body = json.dumps({"model": "qwen3:0.6b", "message": {"role": "assistant", "content": "Use vllm serve [1]."},
                           "done": True}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Chat).serve_forever()
EOF
server_pid=$!
sleep 0.5
# The pipeline with its generator replaced by `ollama` (the index does not depend on it).
ollama="generator={plugin: ollama, options: {base_url: \"http://127.0.0.1:$port\", timeout: 10}}"
printf 'LLM overhead per question (answer)   '
questions "$datasets/dataset_docs_public.json" 30 | answer_times --set "$ollama" | percentiles
"$rag" answer_dataset --pipeline "$pipeline" --set "$ollama" --student_search_results_path "$out/search/dataset_docs_public.json" \
  --save_directory "$out/llm" >/dev/null 2>&1
printf 'LLM exchange per question (dataset)  '
grep -o '"generation_ms": [0-9.e+-]*' "$out/llm/dataset_docs_public.json" | awk '{print $2}' | percentiles
