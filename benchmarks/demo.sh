#!/usr/bin/env bash
# Blade demo: the same service under the same open-loop load, G1 alone, Parallel alone and Blade, latency side by side.
#
#   benchmarks/demo.sh            the cluster demo (the default; same as "benchmarks/demo.sh cluster")
#   benchmarks/demo.sh single     the single-node comparison (one DemoServer per arm, no load balancer)
#
# Cluster demo (io.bladegc.benchmarks.cluster.ClusterDemo): three DemoServer backends behind HAProxy (retry-on 503,
# option redispatch), once per arm, the arms one after another under the same open-loop rate through HAProxy:
#   arm "G1 alone":       -XX:+UseG1GC, no agent, no filter
#   arm "Parallel alone": -XX:+UseParallelGC -XX:-UseAdaptiveSizePolicy -Xmn96m, no agent, no filter (what Blade hides)
#   arm "Blade":          Parallel as above, the servlet filter, the agent in coordinated mode and the coordinator
#                         (K = 1, a second slot for a node about to collect: --k-due 2) taking each collecting
#                         node out of HAProxy's rotation
# Backends: -Xms1g -Xmx1g -XX:MetaspaceSize=64m, one GC thread, live set 384 MiB of 64-byte arrays, 32 KiB garbage and
# 64 KiB of the live set replaced per request (the benchmark suite's http-cluster workload).
# Prints a progress line every 5 s, then the table, Blade's ratios to the other arms, one sentence saying what the run
# showed, and where the two pictures are (latency.png: percentiles; timeline.png: latency over time, GC pauses,
# grants). The load generator runs in the ClusterDemo JVM (a 900 MB young generation, so it does not collect during a
# run). It needs haproxy (on the PATH or in /usr/sbin): when it is missing the script installs it with apt-get if it
# runs as root, else says how. Environment (defaults in brackets):
#   RATE [600] requests/s   DURATION [45] measured s   WARMUP [15] s   ARMS ["g1 parallel blade"] (repeats allowed,
#   e.g. "g1 blade blade g1")   OUT [benchmarks/target/cluster-demo/<time>]   SKIP_BUILD [0] 1 = use the existing build
#   JAVA [java]
#
# Single-node demo:
#   arm "G1 alone":       DemoServer --blade off, -XX:+UseG1GC
#   arm "Parallel alone": DemoServer --blade off, -XX:+UseParallelGC -XX:-UseAdaptiveSizePolicy
#   arm "Blade":          DemoServer --blade on (servlet filter) + -javaagent:agent/target/blade-agent-<version>.jar,
#                         -XX:+UseParallelGC -XX:-UseAdaptiveSizePolicy (a plain stop-the-world collector with a
#                         fixed eden: Blade schedules its pauses)
#
# Each arm: start the server (heap 512 MB, young 160 MB, live set 200 MB), run open-loop load at a constant rate
# (latency measured from each request's intended send time, so no coordinated omission), reset the server's GC record
# when the warm-up ends, fetch it when the measured window ends, stop the server by pid. Then print one table,
# Blade's ratios to the other arms, one sentence computed from the run, and where latency.png is.
#
# Usage (from anywhere; builds the project once with the Maven wrapper):
#   benchmarks/demo.sh single
#   RATE=500 DURATION=60 WARMUP=10 benchmarks/demo.sh single
# Environment (defaults in brackets):
#   RATE [1000] requests/s   DURATION [30] measured s   WARMUP [10] s   TIMEOUT [10] per-request s
#   LIVE_MB [200]  GARBAGE_KB [32]  CHURN_KB [4]  OBJECT_BYTES [8192]  THREADS [32]  (DemoServer settings)
#   HEAP ["-Xms512m -Xmx512m -Xmn160m"]  SERVER_OPTS [""] extra server JVM flags
#   ARMS ["g1 parallel blade"] which arms to run (g1, parallel = Parallel without the filter, blade)
#   SKIP_BUILD [0] 1 = use the existing build   JAVA [java]
#   OUT [benchmarks/target/demo/<time>] where logs and results go
# Two cores are plenty but not more: the load generator shares the machine with the server, and so does anything
# else running; the "max send lag" row shows when the load generator itself fell behind.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

MODE="${1:-cluster}"
case "$MODE" in
    cluster|single) ;;
    *) echo "usage: benchmarks/demo.sh [cluster|single]" >&2; exit 2 ;;
esac
SKIP_BUILD="${SKIP_BUILD:-0}"
JAVA="${JAVA:-java}"
VERSION="$(awk -F'[<>]' '/<version>/ { print $3; exit }' pom.xml)"
AGENT_JAR="agent/target/blade-agent-${VERSION}.jar"
COORDINATOR_JAR="coordinator/target/blade-coordinator.jar"

. benchmarks/cluster-prerequisites.sh
HAPROXY=""
if [ "$MODE" = cluster ]; then
    find_haproxy demo "or run the single-node demo: benchmarks/demo.sh single"
fi
build_once demo

# The load generator gets a young generation large enough not to collect during a run: its own pauses would show
# up as latency (correctly so, since it times from the intended send time, but they are not the server's).
LOAD_JVM=(-XX:+UseParallelGC -Xms1g -Xmx1g -Xmn900m -XX:ParallelGCThreads=1 -XX:+AlwaysPreTouch)

if [ "$MODE" = cluster ]; then
    OUT="${OUT:-benchmarks/target/cluster-demo/$(date +%Y%m%d-%H%M%S)}"
    # exec: the ClusterDemo JVM starts and stops every child itself (by pid, also on failure and on SIGTERM)
    exec "$JAVA" "${LOAD_JVM[@]}" -cp "$CP" io.bladegc.benchmarks.cluster.ClusterDemo \
        --agent-jar "$AGENT_JAR" --coordinator-jar "$COORDINATOR_JAR" --arms "${ARMS:-g1 parallel blade}" \
        --rate "${RATE:-600}" --warmup "${WARMUP:-15}s" --duration "${DURATION:-45}s" --haproxy "$HAPROXY" \
        --out "$OUT"
fi

# Single-node demo from here on.
RATE="${RATE:-1000}"
DURATION="${DURATION:-30}"
WARMUP="${WARMUP:-10}"
TIMEOUT="${TIMEOUT:-10}"
LIVE_MB="${LIVE_MB:-200}"
GARBAGE_KB="${GARBAGE_KB:-32}"
CHURN_KB="${CHURN_KB:-4}"
OBJECT_BYTES="${OBJECT_BYTES:-8192}"
THREADS="${THREADS:-32}"
HEAP="${HEAP:--Xms512m -Xmx512m -Xmn160m}"
SERVER_OPTS="${SERVER_OPTS:-}"
ARMS="${ARMS:-g1 parallel blade}"
OUT="${OUT:-benchmarks/target/demo/$(date +%Y%m%d-%H%M%S)}"

SERVER_PID=""
LOAD_PID=""

stop_pid() { # pid: SIGTERM, wait up to 10 s, then SIGKILL
    local pid="$1" i
    kill -0 "$pid" 2>/dev/null || return 0
    kill "$pid" 2>/dev/null || true
    for i in $(seq 100); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        echo "demo: pid $pid ignored SIGTERM, killing it" >&2
        kill -9 "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
}

cleanup() {
    if [ -n "$LOAD_PID" ]; then stop_pid "$LOAD_PID"; LOAD_PID=""; fi
    if [ -n "$SERVER_PID" ]; then stop_pid "$SERVER_PID"; SERVER_PID=""; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir -p "$OUT"

start_server() { # name, then server JVM flags; sets SERVER_PID and PORT
    local name="$1" blade="$2" i
    shift 2
    # shellcheck disable=SC2086 # HEAP and SERVER_OPTS are lists of flags
    "$JAVA" "$@" $HEAP -XX:ParallelGCThreads=1 -XX:ConcGCThreads=1 -XX:+AlwaysPreTouch \
        -Xlog:gc*:file="$OUT/$name.gc.log" $SERVER_OPTS \
        -cp "$CP" io.bladegc.benchmarks.demo.DemoServer --port 0 --live-mb "$LIVE_MB" \
        --garbage-kb "$GARBAGE_KB" --churn-kb "$CHURN_KB" --object-bytes "$OBJECT_BYTES" --threads "$THREADS" --blade "$blade" \
        >"$OUT/$name.server.out" 2>"$OUT/$name.server.log" &
    SERVER_PID=$!
    PORT=""
    for i in $(seq 600); do
        PORT="$(awk '/^LISTENING [0-9]+$/ { print $2; exit }' "$OUT/$name.server.out")"
        [ -n "$PORT" ] && break
        if ! kill -0 "$SERVER_PID" 2>/dev/null; then
            echo "demo: the $name server exited before listening:" >&2
            cat "$OUT/$name.server.log" >&2
            exit 1
        fi
        sleep 0.1
    done
    if [ -z "$PORT" ]; then
        echo "demo: the $name server did not print LISTENING within 60 s; see $OUT/$name.server.log" >&2
        exit 1
    fi
}

run_arm() { # name, title, blade on|off, then server JVM flags
    local name="$1" title="$2" blade="$3"
    shift 3
    echo "demo: arm \"$title\": $* (server log $OUT/$name.server.log)" >&2
    start_server "$name" "$blade" "$@"
    "$JAVA" "${LOAD_JVM[@]}" -cp "$CP" io.bladegc.benchmarks.demo.DemoArm --base "http://127.0.0.1:$PORT" \
        --rate "$RATE" --warmup "${WARMUP}s" --duration "${DURATION}s" --timeout "${TIMEOUT}s" \
        --out "$OUT/$name" >"$OUT/$name.load.txt" 2>"$OUT/$name.load.log" &
    LOAD_PID=$!
    if ! wait "$LOAD_PID"; then
        LOAD_PID=""
        echo "demo: the load generator failed:" >&2
        cat "$OUT/$name.load.log" >&2
        exit 1
    fi
    LOAD_PID=""
    stop_server_now
    COLUMNS_ARGS+=("$title" "$OUT/$name")
}

stop_server_now() {
    stop_pid "$SERVER_PID"
    SERVER_PID=""
}

COLUMNS_ARGS=()
for arm in $ARMS; do
    case "$arm" in
        g1)
            run_arm g1 "G1 alone" off -XX:+UseG1GC
            ;;
        parallel)
            run_arm parallel "Parallel alone" off -XX:+UseParallelGC -XX:-UseAdaptiveSizePolicy
            ;;
        blade)
            # Fixed eden (no adaptive resizing of eden vs survivors): young collections come at a steady pace,
            # comparable with the G1 arm's fixed young generation.
            run_arm blade "Blade" on "-javaagent:$AGENT_JAR" -XX:+UseParallelGC -XX:-UseAdaptiveSizePolicy
            ;;
        *)
            echo "demo: unknown arm $arm (use g1, parallel, blade)" >&2
            exit 2
            ;;
    esac
done

echo
echo "Open-loop load: $RATE req/s, ${WARMUP} s warm-up, ${DURATION} s measured; heap $HEAP, live set ${LIVE_MB} MB," \
    "garbage ${GARBAGE_KB} KB and churn ${CHURN_KB} KB per request; results in $OUT"
"$JAVA" -cp "$CP" io.bladegc.benchmarks.demo.DemoTable "${COLUMNS_ARGS[@]}" | tee "$OUT/table.txt"
