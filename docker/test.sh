#!/usr/bin/env bash
# Builds docker/'s images and runs its compose cluster for real, with podman, and checks what a user would look for.
#
#   ./mvnw package -DskipTests && docker/test.sh          (as root; about 4 minutes, the first time 6)
#
# 1. Stand-in base images, where the ones the files name cannot be pulled (no registry reachable): Debian bookworm
#    (debootstrap) with Debian's packages, tagged with the names the files use, so that the Dockerfiles and the
#    compose file run unchanged: eclipse-temurin:17-jre (openjdk-17-jre-headless, curl), haproxy:2.8 (Debian's
#    HAProxy 2.6), prom/prometheus:v2.55.1 (Debian's Prometheus 2.42, wget). Made once, kept in podman's store.
#    Grafana is not packaged by Debian: its service is not started here.
# 2. The project's images, built by podman-compose from docker/compose.yaml (--pull=never).
# 3. The cluster up (HAProxy, the coordinator, three backends, Prometheus), every healthcheck passing, then the
#    compose file's load generator through HAProxy for 30 s at 200 requests/s.
# 4. The checks: three members at the coordinator; every collection of the serving backends (from the load's start
#    on, as Prometheus scraped them) forced inside a grant, none escaped; the coordinator drained a backend in HAProxy
#    and put it back (seen in HAProxy's own runtime API during the load); no failed request at the load generator;
#    Prometheus scraping the coordinator and the three backends.
# Everything it started is stopped and removed at the end, also on failure or Ctrl-C (the images stay).
#
# Exit status: 0 all checks passed; 1 a check failed (the line says which); 3 this machine cannot run containers
# (said why; CI runs on). Environment: KEEP=1 leaves the cluster up for a look (docker/test.sh stops nothing then).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PROJECT=bladetest
COMPOSE=(podman-compose -p "$PROJECT" -f docker/compose.yaml)
SERVICES=(haproxy coordinator backend1 backend2 backend3 prometheus)
TOKEN=blade-demo-token
WORK="$(mktemp -d /tmp/blade-docker-test.XXXXXX)"
STAND_IN_CACHE=/var/cache/blade-stand-in

say() { echo "docker/test: $*" >&2; }
fail() { say "FAILED: $*"; exit 1; }
cannot() { say "cannot run containers on this machine: $*"; exit 3; }

# --- prerequisites ---------------------------------------------------------------------------------------------------
missing=()
for tool in podman podman-compose runc debootstrap; do
    command -v "$tool" > /dev/null || missing+=("$tool")
done
if [ "${#missing[@]}" -gt 0 ]; then
    [ "$(id -u)" -eq 0 ] || cannot "${missing[*]} missing (apt-get install podman podman-compose runc debootstrap)"
    say "installing ${missing[*]} with apt-get"
    apt-get install -y -q podman podman-compose runc debootstrap > "$WORK/apt.log" 2>&1 \
        || cannot "apt-get install podman podman-compose runc debootstrap failed (see $WORK/apt.log)"
fi
for jar in agent/target/blade-agent-0.1.0-SNAPSHOT.jar coordinator/target/blade-coordinator.jar \
        benchmarks/demo/target/blade-demo-0.1.0-SNAPSHOT.jar benchmarks/loadgen/target/blade-loadgen.jar; do
    [ -f "$jar" ] || fail "$jar is missing: run ./mvnw package -DskipTests first"
done

# crun, podman's default runtime, refuses this machine's hybrid cgroups; runc runs them. The rlimits podman asks for
# by default exceed what some machines allow: give them explicitly.
cat > "$WORK/containers.conf" << 'EOF'
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=4096:4096"]
[engine]
runtime = "runc"
EOF
export CONTAINERS_CONF="$WORK/containers.conf"
export BUILDAH_FORMAT=docker # keep the Dockerfiles' HEALTHCHECK (the OCI format has none)

# --- 1. stand-in base images -----------------------------------------------------------------------------------------
has_image() { podman image exists "$1"; }

debian_root() {
    if [ ! -f "$STAND_IN_CACHE/bookworm.tar" ]; then
        say "debootstrap bookworm (once, kept in $STAND_IN_CACHE)"
        mkdir -p "$STAND_IN_CACHE"
        rm -rf "$WORK/rootfs"
        debootstrap --variant=minbase bookworm "$WORK/rootfs" http://deb.debian.org/debian > "$WORK/debootstrap.log" \
            2>&1 || cannot "debootstrap failed (see $WORK/debootstrap.log)"
        tar -C "$WORK/rootfs" -cf "$STAND_IN_CACHE/bookworm.tar.part" . && mv "$STAND_IN_CACHE/bookworm.tar.part" \
            "$STAND_IN_CACHE/bookworm.tar"
        rm -rf "$WORK/rootfs"
    fi
}

# stand_in TAG "PACKAGES" "SETUP" CHANGE...: Debian with PACKAGES and the shell commands SETUP run after them,
# imported as TAG with the Dockerfile instructions CHANGE
stand_in() {
    local tag="$1" packages="$2" setup="$3"
    shift 3
    has_image "$tag" && return 0
    debian_root
    say "stand-in $tag: Debian bookworm with $packages"
    local root="$WORK/stand-in"
    rm -rf "$root" && mkdir -p "$root"
    tar -C "$root" -xf "$STAND_IN_CACHE/bookworm.tar"
    mount -t proc proc "$root/proc"
    local status=0
    chroot "$root" sh -c "apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
        --no-install-recommends $packages && apt-get clean && rm -rf /var/lib/apt/lists/* && $setup" \
        > "$WORK/stand-in.log" \
        2>&1 || status=$?
    umount "$root/proc"
    [ "$status" -eq 0 ] || cannot "installing $packages for $tag failed (see $WORK/stand-in.log)"
    local changes=()
    for c in "$@"; do
        changes+=(--change "$c")
    done
    tar -C "$root" -c . | podman import "${changes[@]}" - "$tag" > /dev/null
    rm -rf "$root"
}

stand_in docker.io/library/eclipse-temurin:17-jre "openjdk-17-jre-headless curl ca-certificates" true \
    'ENV JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64' 'CMD ["jshell"]'
stand_in docker.io/library/haproxy:2.8 "haproxy" true 'USER haproxy' 'WORKDIR /var/lib/haproxy' \
    'CMD ["haproxy", "-W", "-db", "-f", "/usr/local/etc/haproxy/haproxy.cfg"]'
# the official image keeps its data in /prometheus; Debian's binary defaults to /var/lib/prometheus/metrics2: both
# writable by nobody
stand_in docker.io/prom/prometheus:v2.55.1 "prometheus wget" \
    "mkdir -p /prometheus /var/lib/prometheus/metrics2 && chown -R nobody:nogroup /prometheus /var/lib/prometheus" \
    'USER nobody' 'WORKDIR /prometheus' \
    'ENTRYPOINT ["/usr/bin/prometheus"]' \
    'CMD ["--config.file=/etc/prometheus/prometheus.yml", "--storage.tsdb.path=/prometheus"]'

podman run --rm docker.io/library/eclipse-temurin:17-jre java -version > "$WORK/probe.log" 2>&1 \
    || cannot "podman could not start a container: $(tail -1 "$WORK/probe.log")"

# --- 2. the project's images -----------------------------------------------------------------------------------------
say "building the images (podman-compose build)"
# the images of an earlier run go first, so that none can stand in for one that fails to build now
podman rmi -f blade-backend:0.1.0-SNAPSHOT blade-coordinator:0.1.0-SNAPSHOT > /dev/null 2>&1 || true
"${COMPOSE[@]}" build > "$WORK/build.log" 2>&1 || fail "podman-compose build failed: $(tail -3 "$WORK/build.log")"
# podman-compose 1.0.3 exits 0 although a podman build it ran failed: read each build's exit code in its log
if grep -q '^exit code: [1-9]' "$WORK/build.log"; then
    fail "an image did not build: $(grep -m1 '^Error' "$WORK/build.log" || grep -m1 '^exit code: [1-9]' "$WORK/build.log")"
fi

# --- 3. the cluster up, healthy, under load --------------------------------------------------------------------------
down() {
    if [ "${KEEP:-0}" = 1 ]; then
        say "KEEP=1: the cluster stays up; stop it with: ${COMPOSE[*]} down"
        return
    fi
    "${COMPOSE[@]}" down -t 5 > "$WORK/down.log" 2>&1 || say "podman-compose down: $(tail -1 "$WORK/down.log")"
    podman network rm -f "${PROJECT}_default" > /dev/null 2>&1 || true
}
trap down EXIT
trap 'exit 130' INT TERM

say "starting ${SERVICES[*]}"
"${COMPOSE[@]}" up -d "${SERVICES[@]}" > "$WORK/up.log" 2>&1 || fail "podman-compose up failed: $(tail -3 "$WORK/up.log")"

container() { echo "${PROJECT}_$1_1"; }

# podman runs the images' and the compose file's healthchecks only under systemd: run them here until they pass
for service in coordinator backend1 backend2 backend3 prometheus; do
    ok=0
    for _ in $(seq 1 60); do
        if podman healthcheck run "$(container "$service")" > /dev/null 2>&1; then
            ok=1
            break
        fi
        sleep 1
    done
    [ "$ok" = 1 ] || fail "$service's healthcheck did not pass within 60 s ($(podman logs --tail 3 "$(container \
        "$service")" 2>&1 | tr '\n' ' '))"
    say "$service healthy"
done

cluster() {
    curl -fsS -H "Authorization: Bearer $TOKEN" http://127.0.0.1:7070/v1/cluster
}

# query EXPR [TIME]: the value of EXPR now, or as Prometheus had it at TIME (Unix seconds)
query() {
    curl -fsS --data-urlencode "query=$1" ${2:+--data-urlencode "time=$2"} http://127.0.0.1:9090/api/v1/query \
        | python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(" ".join(x["value"][1] for x in r))'
}

members=0
for _ in $(seq 1 30); do
    members=$(cluster | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["members"]))' 2>/dev/null || echo 0)
    [ "$members" -ge 3 ] && break
    sleep 1
done
[ "$members" -eq 3 ] || fail "the coordinator lists $members members, not 3: $(cluster 2>&1 | head -c 600)"
say "the coordinator lists 3 members"
# HAProxy puts a server in rotation after two passed checks 2 s apart
served=0
for _ in $(seq 1 30); do
    curl -fsS -o /dev/null http://127.0.0.1:8080/work 2> /dev/null && served=1 && break
    sleep 1
done
[ "$served" = 1 ] || fail "http://127.0.0.1:8080/work (HAProxy) did not answer 200 within 30 s"

# the collections counted from the load's start on are those of a serving cluster: wait until Prometheus has scraped
# the three backends' counters, and one scrape more (every 5 s), so that it holds their values from before the load
for _ in $(seq 1 30); do
    [ "$(query 'count(blade_node_collections_total)')" = 3 ] && break
    sleep 1
done
[ "$(query 'count(blade_node_collections_total)')" = 3 ] \
    || fail "Prometheus has not scraped the three backends' blade_node_collections_total within 30 s"
sleep 6
# HAProxy's own view during the load, from inside the compose network (its runtime API is not published): bash's
# /dev/tcp in a backend container, every 50 ms for 40 s from the load's start (a drain
# lasts some tens of milliseconds; started earlier, a slow start-up left it too little of the load)
podman exec "$(container backend1)" bash -c 'for i in $(seq 1 800); do
        exec 3<>/dev/tcp/haproxy/9999 && echo "show stat" >&3 && cat <&3; exec 3<&-; sleep 0.05; done' 2> /dev/null \
    | awk -F, '$1 == "app" && $2 ~ /^s[0-9]$/ { print $2, $18 }' > "$WORK/haproxy-states.txt" &
sampler=$!

load_from=$(date +%s.%N)
say "load: 200 requests/s through HAProxy for 30 s (the compose file's load generator)"
"${COMPOSE[@]}" run --rm loadgen http://haproxy:8080/work --rate 200 --warmup 5s --duration 30s --connections 32 \
    > "$WORK/load.txt" 2> "$WORK/load.err" || fail "the load generator failed: $(tail -3 "$WORK/load.err")"
wait "$sampler" || true
cat "$WORK/load.txt" >&2
# every collection waits for one of the coordinator's answers: how often its CPU quota held it back (cgroup v2 or v1)
throttled=$(podman exec "$(container coordinator)" sh -c 'cat /sys/fs/cgroup/cpu.stat /sys/fs/cgroup/cpu/cpu.stat \
    /sys/fs/cgroup/cpu,cpuacct/cpu.stat 2> /dev/null' 2> /dev/null \
    | awk '$1 == "nr_periods" || $1 == "nr_throttled" || $1 ~ /^throttled_/ { printf "%s %s, ", $1, $2 }' || true)
say "the coordinator's CPU quota since it started: ${throttled:-not readable}"

# --- 4. the checks ---------------------------------------------------------------------------------------------------
# a row of the load generator's table: "<name>   |   <value>" (lines end in CR LF: podman-compose runs it on a tty)
row() {
    awk -F'|' -v r="$1" '{ gsub(/\r/, ""); k = $1; gsub(/^ +| +$/, "", k) }
        k == r { v = $2; gsub(/^ +| +$/, "", v); print v; exit }' "$WORK/load.txt"
}
[ "$(row 'other status')" = 0 ] || fail "requests answered with another status than 2xx: $(row 'other status')"
[ "$(row 'errors + timeouts')" = "0 + 0" ] || fail "failed requests (errors + timeouts): $(row 'errors + timeouts')"
[ "$(row 'unfinished')" = 0 ] || fail "unfinished requests: $(row 'unfinished')"
[ "$(row 'shed 503 (%)')" = 0.00 ] || fail "503s reached the client: $(row 'shed 503 (%)') %"
[ -n "$(row '2xx')" ] && [ "$(row '2xx')" -gt 5000 ] || fail "only $(row '2xx') requests answered 2xx"
say "load served: $(row '2xx') requests 2xx, none failed"

# Prometheus: every target up, and the backends' collection counters as it scraped them
sleep 6 # one more scrape after the load
up=$(query 'sum(up)')
[ "$up" = 4 ] || fail "Prometheus has $up of 4 targets up: $(curl -fsS http://127.0.0.1:9090/api/v1/targets | head -c 800)"
say "Prometheus scrapes the coordinator and the three backends"
# Collections while the servers start (a demo server builds its live set before it listens) come before any request
# can be inside them; an agent armed from the start counts those it did not force as escaped. Judged: the collections
# of the serving cluster, from the load's start on (the counters as Prometheus last scraped them before it).
since_load() { # since_load METRIC: its sum now less its sum at the load's start, a whole number
    python3 -c 'import sys; a, b = (float(x or 0) for x in sys.argv[1:]); print(int(a - b))' \
        "$(query "sum($1)")" "$(query "sum($1)" "$load_from")"
}
collections=$(since_load blade_node_collections_total)
forced=$(since_load blade_node_forced_total)
escaped=$(since_load blade_node_escaped_total)
grants=$(since_load blade_coordinator_grants_total)
at_start=$(query 'sum(blade_node_collections_total)' "$load_from")
escaped_at_start=$(query 'sum(blade_node_escaped_total)' "$load_from")
lb_errors=$(query 'sum(blade_coordinator_lb_errors_total)')
lb_errors=${lb_errors:-0} # no series until a call fails
say "backends, serving: $collections collections, $forced forced, $escaped escaped; coordinator: $grants grants," \
    "$lb_errors load-balancer errors (before the load, while starting: ${at_start:-0} collections," \
    "${escaped_at_start:-0} of them outside a grant)"
for service in backend1 backend2 backend3; do
    podman logs "$(container "$service")" > "$WORK/$service.log" 2>&1 || true
done
drained=$(awk '$2 == "DRAIN" { print $1 }' "$WORK/haproxy-states.txt" | sort -u | xargs)
[ -n "$drained" ] || fail "HAProxy never showed a backend in DRAIN during the load ($(sort "$WORK/haproxy-states.txt" \
    | uniq -c | tr '\n' ';'))"
for s in $drained; do
    last=$(awk -v s="$s" '$1 == s { st = $2 } END { print st }' "$WORK/haproxy-states.txt")
    [ "$last" != DRAIN ] || fail "$s stayed in DRAIN"
done
say "HAProxy showed $drained in DRAIN and back UP"

[ "${forced%.*}" -gt 0 ] || fail "no collection was forced"
if [ "${escaped%.*}" != 0 ]; then
    # the agent says what each of its first escapes looked like (cause, eden, whether Blade had asked yet)
    grep -h "collected on its own" "$WORK"/backend?.log | sed 's/^/    /' >&2 || true
    fail "$escaped collections escaped (ran outside a grant; the backends' logs: $WORK/backend?.log)"
fi
[ "${lb_errors%.*}" = 0 ] || fail "the coordinator's calls to HAProxy failed $lb_errors times"
say "all checks passed"
