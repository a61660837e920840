#!/usr/bin/env bash
# The load generator checked against wrk (Debian's wrk 4.1) on the same endpoint: one DemoServer without Blade, then
#   1. wrk, closed loop, 2 threads x 64 connections: the most the server answers on this machine;
#   2. OpenLoopLoad asked for 1.25x that rate with 64 connections: how close it gets (it cannot send faster than the
#      server answers with 64 connections in flight; the rest waits in its queue, and the table says how long);
#   3. wrk with 1 connection, and OpenLoopLoad at a light rate: the latency each reports when nothing queues.
# OpenLoopLoad runs under Epsilon (no collector at all, 1 GB heap): it allocates nothing per request, so it never
# pauses and never runs out of heap.
#
# Usage: benchmarks/loadgen-vs-wrk.sh            (after ./mvnw -DskipTests install; SECONDS_PER_RUN [20])
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
DURATION="${SECONDS_PER_RUN:-20}"
JAVA="${JAVA:-java}"
CP="benchmarks/suite/target/classes:$(cat benchmarks/suite/target/classpath.txt)"
OUT="benchmarks/target/loadgen-vs-wrk/$(date +%Y%m%d-%H%M%S)"
mkdir -p "$OUT"

command -v wrk >/dev/null || { echo "wrk is missing: apt-get install -y wrk" >&2; exit 2; }

SERVER_PID=""
cleanup() { [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null || true; }
trap cleanup EXIT

"$JAVA" -XX:+UseParallelGC -Xms512m -Xmx512m -Xmn256m -cp "$CP" io.bladegc.benchmarks.demo.DemoServer \
    --port 0 --live-mb 16 --garbage-kb 16 --churn-kb 0 --threads 32 > "$OUT/server.out" 2> "$OUT/server.log" &
SERVER_PID=$!
for _ in $(seq 300); do
    grep -q '^LISTENING ' "$OUT/server.out" 2>/dev/null && break
    sleep 0.1
done
PORT="$(awk '/^LISTENING / { print $2 }' "$OUT/server.out")"
[ -n "$PORT" ] || { echo "the server did not start; see $OUT/server.log" >&2; exit 1; }
URL="http://127.0.0.1:$PORT/work"

load() { # rate connections file
    "$JAVA" -XX:+UnlockExperimentalVMOptions -XX:+UseEpsilonGC -Xms1g -Xmx1g -XX:+AlwaysPreTouch -cp "$CP" \
        io.bladegc.benchmarks.load.OpenLoopLoad "$URL" --rate "$1" --connections "$2" \
        --warmup 5s --duration "${DURATION}s" > "$3" 2>&1
}

echo "warming the server up (wrk, 10 s)"
wrk -t2 -c64 -d10s "$URL" > /dev/null
echo "1. wrk -t2 -c64 -d${DURATION}s"
wrk -t2 -c64 -d"${DURATION}s" --latency "$URL" | tee "$OUT/wrk-c64.txt"
MAX="$(awk '/^Requests\/sec:/ { printf "%d", $2 }' "$OUT/wrk-c64.txt")"
RATE=$(( MAX * 5 / 4 ))
echo "2. OpenLoopLoad at $RATE/s (1.25 x wrk), 64 connections"
load "$RATE" 64 "$OUT/openloop-max.txt"
cat "$OUT/openloop-max.txt"
echo "3a. wrk -t1 -c1 -d${DURATION}s"
wrk -t1 -c1 -d"${DURATION}s" --latency "$URL" | tee "$OUT/wrk-c1.txt"
LIGHT=$(( MAX / 10 ))
echo "3b. OpenLoopLoad at $LIGHT/s (a tenth of wrk's), 64 connections"
load "$LIGHT" 64 "$OUT/openloop-light.txt"
cat "$OUT/openloop-light.txt"
echo "results in $OUT"
