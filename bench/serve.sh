#!/usr/bin/env bash
# `rag serve` under load, on loopback, bounded in time (about 3 minutes), with wrk (Debian):
#   - GET /api/search at 1, 16 and 64 connections (requests/s, p50, p99, errors), and at 64
#     with --threads 64 (a connection holds a worker while it is open);
#   - POST /api/answer with the extractive generator at 16 connections;
#   - the time to the first Server-Sent Event (`sources`) of a streamed answer, p50 and p95;
#   - a soak of /api/search sampling the server's RSS every 5 s;
#   - /api/search while `rag index` commits new generations: failed requests must be 0.
# Usage: bench/serve.sh [--pipeline configs/default.yaml] [--seconds 10] [--soak 60]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/debian.sh
ensure_debian_packages wrk python3

pipeline=configs/default.yaml
seconds=10
soak=60
while (($#)); do
  case "$1" in
    --pipeline) pipeline=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --soak) soak=$2; shift 2 ;;
    *) echo "usage: bench/serve.sh [--pipeline FILE] [--seconds N] [--soak N]" >&2; exit 2 ;;
  esac
done
rag=build/release/rag
[[ -x $rag ]] || scripts/setup.sh --no-run
"$rag" index --pipeline "$pipeline" >/dev/null 2>&1
out=$(mktemp -d)
server_pid=
stop_server() {
  if [[ -n "$server_pid" ]]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  server_pid=
}
trap 'stop_server; rm -rf "$out"' EXIT

# Starts `rag serve` with extra options; sets `url` and `server_pid`.
start_server() {
  stop_server
  "$rag" serve --pipeline "$pipeline" --port 0 --log "$out/requests.log" "$@" 2>"$out/stderr" &
  server_pid=$!
  for _ in $(seq 200); do
    url=$(sed -n '1s/^listening on //p' "$out/stderr")
    [[ -n "$url" ]] && return
    sleep 0.05
  done
  echo "rag serve did not start: $(cat "$out/stderr")" >&2
  exit 1
}

# wrk's figures as one line: requests/s, p50, p99, failures (non-2xx responses and socket errors).
load() {
  wrk --latency "$@" >"$out/wrk" 2>&1
  awk '
    /Requests\/sec/ {rps = $2}
    $1 == "50%" {p50 = $2} $1 == "99%" {p99 = $2}
    /Non-2xx/ {failed += $NF}
    /Socket errors/ {for (i = 4; i <= NF; i += 2) failed += $i}
    END {printf "%10.0f req/s   p50 %8s   p99 %8s   failed %d\n", rps, p50, p99, failed}' "$out/wrk"
}

query='q=How+do+I+start+the+OpenAI-compatible+server%3F&k=10'
cat >"$out/answer.lua" <<'LUA'
wrk.method = "POST"
wrk.body = '{"question": "How do I start the OpenAI-compatible server?", "k": 10}'
wrk.headers["Content-Type"] = "application/json"
LUA

echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo); pipeline $pipeline; wrk on the same machine"
start_server
for connections in 1 16 64; do
  printf '/api/search  %2d connections  ' "$connections"
  load -t1 -c"$connections" -d"${seconds}s" "$url/api/search?$query"
done
printf '/api/answer  16 connections  '
load -t1 -c16 -d"${seconds}s" -s "$out/answer.lua" "$url/api/answer"

# The time from sending a streamed answer's request to its first event, 200 times.
python3 - "${url#http://}" <<'PY'
import socket, sys, time
host, port = sys.argv[1].rsplit(":", 1)
body = b'{"question": "How do I start the OpenAI-compatible server?", "k": 10}'
request = (b"POST /api/answer HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\nContent-Type: application/json\r\n"
           b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(body), body))
times = []
for _ in range(200):
    with socket.create_connection((host, int(port))) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        start = time.perf_counter()
        s.sendall(request)
        seen = b""
        while b"event: sources" not in seen:
            seen += s.recv(65536)
        times.append((time.perf_counter() - start) * 1000)
        while s.recv(65536):
            pass
times.sort()
print("first SSE event (sources)      p50 %.2f ms   p95 %.2f ms   (200 answers)" % (times[99], times[189]))
PY

start_server --threads 64
printf '/api/search  64 connections, --threads 64  '
load -t1 -c64 -d"${seconds}s" "$url/api/search?$query"

# Soak: RSS every 5 s under steady load.
start_server
wrk -t1 -c16 -d"${soak}s" "$url/api/search?$query" >/dev/null 2>&1 &
wrk_pid=$!
samples=()
for _ in $(seq $((soak / 5))); do
  sleep 5
  samples+=("$(awk '/VmRSS/ {print $2}' "/proc/$server_pid/status")")
done
wait "$wrk_pid"
printf '%s\n' "${samples[@]}" | awk -v soak="$soak" '
  NR == 1 {first = $1; min = $1; max = $1} {if ($1 < min) min = $1; if ($1 > max) max = $1; last = $1}
  END {printf "soak %d s at 16 connections: RSS %.1f MB first, %.1f MB last, range %.1f%% of the first\n",
       soak, first / 1024, last / 1024, (max - min) * 100 / first}'

# New generations committed under load: no request may fail.
wrk -t1 -c16 -d"$((3 * seconds))s" --latency "$url/api/search?$query" >"$out/wrk" 2>&1 &
wrk_pid=$!
for _ in 1 2; do "$rag" index --full --pipeline "$pipeline" >/dev/null 2>&1; sleep 1; done
wait "$wrk_pid"
switches=$(curl -s "$url/metrics" | awk '/^rag_index_generation_switches_total/ {n += $NF} END {print n + 0}')
printf '/api/search across %d index switches  ' "$switches"
awk '
  /Requests\/sec/ {rps = $2}
  /Non-2xx/ {failed += $NF}
  /Socket errors/ {for (i = 4; i <= NF; i += 2) failed += $i}
  END {printf "%10.0f req/s   failed %d\n", rps, failed}' "$out/wrk"
