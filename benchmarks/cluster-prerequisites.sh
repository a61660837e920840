# Sourced by demo.sh and run.sh (not run on its own): what the cluster runs need before they start.

# find_haproxy WHO HINT: sets HAPROXY to the haproxy binary; as root installs it with apt-get when missing,
# otherwise says how (WHO prefixes the message, HINT ends it) and exits 1. Debian's package installs it to
# /usr/sbin, which is not on every user's PATH.
find_haproxy() {
    HAPROXY="$(command -v haproxy || { [ -x /usr/sbin/haproxy ] && echo /usr/sbin/haproxy; } || true)"
    [ -n "$HAPROXY" ] && return 0
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "$1: haproxy is missing; installing it (apt-get install haproxy)" >&2
        apt-get update -q && apt-get install -y -q haproxy
        HAPROXY="$(command -v haproxy || echo /usr/sbin/haproxy)"
    else
        echo "$1: haproxy (2.2 or newer) is missing; install it, e.g. sudo apt-get install haproxy${2:+; $2}" >&2
        exit 1
    fi
}

# find_wrk WHO: makes sure wrk is on the PATH; as root installs it with apt-get when missing, otherwise says how and
# exits 1.
find_wrk() {
    command -v wrk >/dev/null 2>&1 && return 0
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "$1: wrk is missing; installing it (apt-get install wrk)" >&2
        apt-get update -q && apt-get install -y -q wrk
    else
        echo "$1: wrk is missing; install it, e.g. sudo apt-get install wrk" >&2
        exit 1
    fi
}

# build_once WHO: builds with the Maven wrapper unless SKIP_BUILD=1, checks the jars and the runtime classpath
# are there, and sets CP to the benchmarks' classpath. Needs AGENT_JAR and COORDINATOR_JAR.
build_once() {
    if [ "${SKIP_BUILD:-0}" != 1 ]; then
        echo "$1: building (./mvnw -B -q -DskipTests install)" >&2
        ./mvnw -B -q -DskipTests install
    fi
    local f
    for f in benchmarks/suite/target/classpath.txt "$AGENT_JAR" "$COORDINATOR_JAR"; do
        if [ ! -f "$f" ]; then
            echo "$1: $f is missing; build first (drop SKIP_BUILD=1)" >&2
            exit 1
        fi
    done
    CP="benchmarks/suite/target/classes:$(cat benchmarks/suite/target/classpath.txt)"
}
