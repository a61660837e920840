#!/usr/bin/env bash
# What Tomcat's `Connection: close` after every 503 costs behind HAProxy: Tomcat and Jetty side by side.
#
#   benchmarks/tomcat-503.sh [OUT_DIR]            (default /tmp/blade-tomcat503-<time>; SKIP_BUILD=1 skips the build)
#
# Three arms, two backends each, every backend with the agent (single-node mode: it drains and sheds with 503 around
# each of its collections) and Blade's filter: "tomcat" (Tomcat 10.1, TomcatDemoServer from the test sources, with
# maxKeepAliveRequests=-1, so that only the 503s close connections), "tomcat100" (the same with Tomcat's default
# maxKeepAliveRequests=100: it also closes every connection after 100 requests) and "jetty" (Jetty 12, DemoServer).
# One HAProxy with a frontend per arm (fe_<arm> -> backend <arm>), each backend with the project's settings
# (benchmarks/.../cluster/Haproxy.java: round robin, retry-on 503 ..., retries 3, option redispatch 1). Then, for each
# HAProxy variant below (HAProxy restarted with fresh counters, the backends kept running), the same open-loop load
# hits every frontend at once (one OpenLoopLoad process per arm, RATE each, for DURATION) and it records:
#   - HAProxy's `show stat` per backend: connect (connections opened to the servers), reuse (requests sent on an
#     existing one), wretr/wredis (retries, redispatches: here a 503 retried on the other server), econ/eresp;
#   - HAProxy's per-request log (%rc retries, %Ta total time in HAProxy): latency (Ta) of retried vs not retried
#     requests, and of a retried one the time before its last attempt (Ta - Tr - Tc: the attempts that got 503);
#   - the load generator's client-side latency and any 503 or error a client saw;
#   - each backend's collections and their pause time (jstat YGC + FGC, GCT) over the window.
# A discarded warm-up window comes first. RATE (default 200), DURATION (30s), WARMUP (20s), ROUNDS (1) and VARIANTS
# (default: all five) from the environment. Needs HAProxy 2.2+ and a JDK (jstat). Every process it starts is stopped
# by pid, also on failure. Summary: OUT_DIR/summary.txt; each window's files in OUT_DIR/<round>-<variant>/.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUT=${1:-/tmp/blade-tomcat503-$(date +%Y%m%d-%H%M%S)}
RATE=${RATE:-200}
DURATION=${DURATION:-30s}
WARMUP=${WARMUP:-20s}
ROUNDS=${ROUNDS:-1}
read -r -a VARIANTS <<<"${VARIANTS:-project reuse-always reuse-never server-close retry-503-only}"
ARMS=(tomcat tomcat100 jetty)
declare -A SERVERS=([tomcat]="t1 t2" [tomcat100]="d1 d2" [jetty]="j1 j2")
mkdir -p "$OUT"

if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
    ./mvnw -o -q package -DskipTests -pl benchmarks/system-tests -am
fi
AGENT=$(ls agent/target/blade-agent-*.jar | grep -v original | head -1)
TOMCAT_VERSION=$(sed -n 's:.*<tomcat.version>\(.*\)</tomcat.version>.*:\1:p' pom.xml)
M2=$HOME/.m2/repository/org/apache/tomcat
TOMCAT_JARS=$M2/embed/tomcat-embed-core/$TOMCAT_VERSION/tomcat-embed-core-$TOMCAT_VERSION.jar
TOMCAT_JARS=$TOMCAT_JARS:$M2/tomcat-annotations-api/$TOMCAT_VERSION/tomcat-annotations-api-$TOMCAT_VERSION.jar
CP=$ROOT/benchmarks/suite/target/classes:$(cat benchmarks/suite/target/classpath.txt)
CP_TOMCAT=$ROOT/benchmarks/system-tests/target/test-classes:$CP:$TOMCAT_JARS
JVM=(-javaagent:"$ROOT/$AGENT" -XX:+UseParallelGC -XX:-UseAdaptiveSizePolicy -Xms256m -Xmx256m -Xmn32m
     -XX:MetaspaceSize=64m)
DEMO_ARGS=(--port 0 --live-mb 32 --garbage-kb 512 --blade on --threads 32)

PIDS=()
stop_all() {
    for pid in "${PIDS[@]}"; do
        kill "$pid" 2>/dev/null || true
    done
    for pid in "${PIDS[@]}"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null || true
    done
    PIDS=()
}
trap stop_all EXIT

# start_backend NAME CLASSPATH MAIN [JVM FLAG]: starts a backend, waits up to 60 s for its LISTENING line
declare -A PORT_OF PID_OF
start_backend() {
    : >"$OUT/$1.out"
    java "${JVM[@]}" ${4:+"$4"} -cp "$2" "$3" "${DEMO_ARGS[@]}" >"$OUT/$1.out" 2>"$OUT/$1.err" &
    PID_OF[$1]=$!
    PIDS+=("$!")
    for _ in $(seq 600); do
        PORT_OF[$1]=$(sed -n 's/^LISTENING \([0-9]*\).*/\1/p' "$OUT/$1.out")
        [[ -n "${PORT_OF[$1]}" ]] && return 0
        kill -0 "${PID_OF[$1]}" 2>/dev/null || break
        sleep 0.1
    done
    echo "backend $1 did not start; see $OUT/$1.err" >&2
    exit 1
}
for s in t1 t2; do start_backend $s "$CP_TOMCAT" io.bladegc.benchmarks.demo.TomcatDemoServer -DmaxKeepAliveRequests=-1; done
for s in d1 d2; do start_backend $s "$CP_TOMCAT" io.bladegc.benchmarks.demo.TomcatDemoServer; done
for s in j1 j2; do start_backend $s "$CP" io.bladegc.benchmarks.demo.DemoServer; done

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
declare -A FRONTEND_PORT
for arm in "${ARMS[@]}"; do FRONTEND_PORT[$arm]=$(free_port); done
SOCK_DIR=$(mktemp -d /tmp/blade-h503.XXXX)
SOCK=$SOCK_DIR/admin.sock

# haproxy_config VARIANT: the project's configuration (Haproxy.java) with the variant's change, a frontend per arm
haproxy_config() {
    local retry="retry-on 503 conn-failure empty-response response-timeout" extra=""
    case "$1" in
        project) ;;
        reuse-always) extra="http-reuse always" ;;
        reuse-never) extra="http-reuse never" ;;
        server-close) extra="option http-server-close" ;;
        retry-503-only) retry="retry-on 503" ;;
        *) echo "unknown variant $1" >&2; exit 2 ;;
    esac
    cat <<EOF
global
  stats socket $SOCK mode 600 level admin
  maxconn 2000
  log stdout format raw local0
defaults
  mode http
  log global
  log-format "%b %s %ST %rc %Tc %Tr %Ta"
  timeout connect 1s
  timeout client 30s
  timeout server 5s
  timeout http-keep-alive 30s
EOF
    for arm in "${ARMS[@]}"; do
        printf 'frontend fe_%s\n  bind 127.0.0.1:%s\n  default_backend %s\n' "$arm" "${FRONTEND_PORT[$arm]}" "$arm"
        printf 'backend %s\n  balance roundrobin\n  %s\n  retries 3\n  option redispatch 1\n' "$arm" "$retry"
        [[ -n "$extra" ]] && printf '  %s\n' "$extra"
        for s in ${SERVERS[$arm]}; do
            printf '  server %s 127.0.0.1:%s\n' "$s" "${PORT_OF[$s]}"
        done
    done
}

collections() { # PID -> "YGC+FGC GCT-in-ms"
    jstat -gc "$1" | awk 'NR==1 {for (i=1;i<=NF;i++) h[$i]=i} NR==2 {printf "%d %d\n", $h["YGC"] + $h["FGC"], $h["GCT"] * 1000}'
}

show_stat() {
    python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"show stat\n")
out = b""
while True:
    b = s.recv(65536)
    if not b: break
    out += b
sys.stdout.write(out.decode())' "$SOCK"
}

# window NAME VARIANT DURATION: HAProxy with the variant, the load on every frontend at once
window() {
    local dir=$OUT/$1
    mkdir -p "$dir"
    haproxy_config "$2" >"$dir/haproxy.cfg"
    haproxy -db -f "$dir/haproxy.cfg" >"$dir/haproxy.log" 2>&1 &
    local hpid=$!
    PIDS+=("$hpid")
    for _ in $(seq 100); do [[ -S "$SOCK" ]] && break; sleep 0.1; done
    [[ -S "$SOCK" ]] || { echo "HAProxy did not start; see $dir/haproxy.log" >&2; exit 1; }
    declare -A before
    for s in "${!PID_OF[@]}"; do before[$s]=$(collections "${PID_OF[$s]}"); done
    local loads=()
    for arm in "${ARMS[@]}"; do
        java -cp "$CP" io.bladegc.benchmarks.load.OpenLoopLoad "http://127.0.0.1:${FRONTEND_PORT[$arm]}/work" \
            --rate "$RATE" --duration "$3" --warmup 0s --connections 32 >"$dir/load-$arm.txt" 2>&1 &
        loads+=("$!")
        PIDS+=("$!")
    done
    wait "${loads[@]}"
    for s in "${!PID_OF[@]}"; do
        echo "$s ${before[$s]} $(collections "${PID_OF[$s]}")" | awk '{print $1, $4 - $2, $5 - $3}'
    done >"$dir/collections.txt"
    show_stat >"$dir/stat.csv"
    kill "$hpid"
    wait "$hpid" 2>/dev/null || true
    rm -f "$SOCK"
}

# summary NAME: one line per arm
summary() {
    local dir=$OUT/$1 arm stat colls load ta
    for arm in "${ARMS[@]}"; do
        stat=$(awk -F, -v be="$arm" 'NR==1 {sub(/^# /,""); for (i=1;i<=NF;i++) h[$i]=i; next}
            $1==be && $2=="BACKEND" {printf "connect %d reuse %d wretr %d wredis %d econ %d eresp %d", $h["connect"],
                $h["reuse"], $h["wretr"], $h["wredis"], $h["econ"], $h["eresp"]}' "$dir/stat.csv")
        colls=$(awk -v servers=" ${SERVERS[$arm]} " 'index(servers, " " $1 " ") {n+=$2; t+=$3}
            END {printf "%d (%d ms of pauses)", n, t}' "$dir/collections.txt")
        load=$(awk '/^p50 \(ms\)/ {p50=$NF} /^p99 \(ms\)/ {p99=$NF} /^p99.9 \(ms\)/ {p999=$NF}
            /^max \(ms\)/ {mx=$NF} /^shed 503/ {shed=$NF} /^errors \+ timeouts/ {err=$(NF-2)"+"$NF}
            END {printf "client p50 %s p99 %s p99.9 %s max %s ms, client 503 %% %s, errors %s", p50, p99, p999,
                mx, shed, err}' "$dir/load-$arm.txt")
        ta=$(awk -v be="$arm" '$1==be && $3 ~ /^[0-9]+$/ {print ($4=="0") ? "not-retried" : "retried", $7
                if ($4!="0") print "failed-attempts", $7 - $6 - $5}' \
                "$dir/haproxy.log" | sort -k1,1 -k2,2n | awk '
            {v[$1, ++n[$1]] = $2}
            function at(k, q,   i) {i = int(n[k] * q) + 1; if (i > n[k]) i = n[k]; return v[k, i]}
            END {for (k in n) printf "%s n=%d p50 %d p99 %d p99.9 %d max %d ms; ", k, n[k], at(k, 0.5),
                 at(k, 0.99), at(k, 0.999), at(k, 1)}')
        echo "$1 $arm: collections $colls, $stat; $load; HAProxy $ta"
    done
}

echo "machine: $(nproc) cores, $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg) at start" | tee "$OUT/summary.txt"
echo "$(haproxy -v | head -1); Tomcat $TOMCAT_VERSION; $RATE/s per arm, $DURATION per window" | tee -a "$OUT/summary.txt"
window warmup project "$WARMUP"
for round in $(seq "$ROUNDS"); do
    for v in "${VARIANTS[@]}"; do
        window "r$round-$v" "$v" "$DURATION"
        summary "r$round-$v" | tee -a "$OUT/summary.txt"
    done
done
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end; results in $OUT" | tee -a "$OUT/summary.txt"
rmdir "$SOCK_DIR"
