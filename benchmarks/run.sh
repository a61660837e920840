#!/usr/bin/env bash
# The benchmark suite: builds once, runs one scenario's arms (repetitions interleaved), writes a markdown table,
# the client's raw histograms and a latency plot.
#
#   benchmarks/run.sh http-cluster            3 repetitions, 60 s measured per arm (generational ZGC and
#                                             Shenandoah also on twice HEAP: genzgc-x2, shenandoah-x2), then the
#                                             highest rate with p99.9 < 10 ms for G1 and Blade (about 65 minutes);
#                                             results in benchmarks/results/<date>-http-cluster/
#   benchmarks/run.sh http-cluster --quick    1 repetition, 6 s measured (under 5 minutes);
#                                             results in benchmarks/target/suite/<time>-http-cluster-quick/
#   benchmarks/run.sh single-node             one DemoServer, no balancer, the filter off and on (Parallel, G1);
#                                             3 repetitions, 60 s measured per arm (about 20 minutes)
#   benchmarks/run.sh memory-pressure         per heap ratio (8, 4, 2, 1.5, 1.25 x the live footprint) and arm (G1,
#                                             Parallel, Blade on each; on the JDK 21+ generational ZGC, Shenandoah
#                                             and Blade on G1) the highest rate with p99 < 10 ms; at the first
#                                             window's rate (RATE) p99.9, CPU per 1,000 requests, peak RSS and
#                                             concurrent-collector stalls beside Epsilon's; per arm the smallest heap
#                                             with p99.9 <= 2x Epsilon's (about 2 hours with every arm; ARMS)
#   benchmarks/run.sh raft-kv                 three Ratis key-value peers (KvServer, linearizable reads under the
#                                             leader lease), 500,000 keys, open-loop gets and puts (3:1), every call
#                                             on one shared Ratis client: G1, Parallel with Blade for Raft (the
#                                             agent), Epsilon; 3 repetitions per arm interleaved, 30 s warm-up and
#                                             120 s measured each (about 30 minutes); quick: 1 repetition, 50,000 keys,
#                                             5 s + 20 s (about 3 minutes)
#   benchmarks/run.sh raft-kv-heavy           raft-kv with 1,500,000 keys (quick: 150,000), every put rewriting 1,024
#                                             of them in one log entry: a live set of small objects near 40 % of
#                                             the heap, where G1 marks and runs mixed collections; 150 requests/s
#                                             (same arms and windows as raft-kv, about 40 minutes)
#   benchmarks/run.sh raft-counter            raft-kv as the service a Ratis user ran: 1,000 keys, every peer
#                                             allocating 24 MiB/s kept 4 s besides (KvServer --garbage), 512 MiB
#                                             heaps, 100 requests/s; goals: Blade's p99.9 at most G1's, hand-offs that
#                                             pay (same arms and windows as raft-kv, about 30 minutes)
#   benchmarks/run.sh raft-memory-pressure    paper 001 on Raft: per heap ratio (8, 2, 1.25 x the live footprint of
#                                             raft-kv-heavy's store) and arm (G1, generational ZGC on a JDK 21+,
#                                             Blade on G1, Blade on Parallel) the highest rate with p99 < 20 ms, from
#                                             50 requests/s (about 40 minutes)
#   benchmarks/run.sh load-sweep              G1 alone and Blade from moderate load to past saturation: one cluster
#                                             per arm (ARMS, default g1,blade-g1,blade-parallel; parallel too), all
#                                             up at once, windows interleaved over 8 rounds: per round and arm a
#                                             closed loop with wrk (16 connections, 10 s), then open-loop windows at
#                                             25-110 % of G1's calibrated saturation (RATE, default 7100/s), each
#                                             after 5 s of saturating wrk load (the heaps fill in step), 12 s
#                                             measured; pooled p99.9 with bootstrap intervals; up to 16 rounds at
#                                             the rates whose goals the intervals have not decided (about 60 minutes
#                                             with three arms, up to 2 hours with the extra rounds); needs wrk (as
#                                             root it is installed with apt-get when missing)
#   benchmarks/run.sh collection-rate         one DemoServer (the demo's heap: 128 MiB eden) at 50 MB/s, 500 MB/s and
#                                             2 GB/s of allocation, Parallel alone and with Blade one after the other
#                                             at each: collections per 1,000 requests served (goal: Blade at most
#                                             1.10x); 3 repetitions, 60 s measured (about 25 minutes)
#   benchmarks/run.sh grpc-cluster            three gRPC backends (GrpcBackend: 64 KiB of garbage per unary call,
#                                             Blade's interceptor), no balancer: a grpc-java client in the runner
#                                             (round_robin, retry on UNAVAILABLE after grpc-retry-pushback-ms),
#                                             open-loop unary calls: G1, Parallel with Blade coordinated (generic
#                                             coordinator, K = 1), Epsilon; 3 repetitions, 15 s warm-up and 60 s
#                                             measured per arm (about 15 minutes); quick: 1 repetition, 10 s + 10 s
#                                             (about 2 minutes besides the build)
#   ... --quick                               any scenario in under 5 minutes, build included;
#                                             results in benchmarks/target/suite/<time>-<scenario>-quick/
#
# Environment: SKIP_BUILD [0] 1 = use the existing build; RATE [600] requests/s (through HAProxy for http-cluster, to
# the one server for single-node, the rate search's first window for memory-pressure and raft-memory-pressure
# (default 50), to the Raft group for raft-kv and raft-counter (default 100, the BLADE paper's rate) and raft-kv-heavy
# (default 150); for load-sweep G1's closed-loop saturation, of which the sweep's rates are shares (default 7100);
# for grpc-cluster unary calls
# over its three backends, 200/s each, as http-cluster's 600/s through HAProxy); JAVA [java]; ARMS (http-cluster,
# memory-pressure, raft-kv, raft-kv-heavy, raft-counter, load-sweep) a comma-separated list of its arms to run, e.g.
# ARMS=g1,blade-parallel,blade-g1,epsilon; HEAP (http-cluster, load-sweep) every backend's heap but Epsilon's, as
# -Xmx takes it [1g]; WORKLOAD (http-cluster, load-sweep) what every backend does per request: cache-churn [default;
# 64 KiB of the 384 MiB live set replaced per request] or request-scoped [8 KiB replaced, the rest dies with the
# request]; GC_THREADS (http-cluster, load-sweep) every backend's -XX:ParallelGCThreads [1; 2 is the JVM's own choice
# on two cores]; BACKEND_CPUS (load-sweep) each backend held to this many cores, as a replica with a CPU limit (its
# own CPU control group; needs root) [no limit]; OUT overrides the results directory.
# The runner (io.bladegc.benchmarks.suite.SuiteMain) starts every process itself and stops each by pid when its arm
# ends, also on failure and on SIGTERM or Ctrl-C. It needs haproxy (on the PATH or in /usr/sbin): as root it is
# installed with apt-get when missing (the raft scenarios, collection-rate and grpc-cluster do not use it).
# Generational ZGC and Shenandoah run on the first JDK 21+ under /usr/lib/jvm (skipped with a note when there is
# none).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

usage() {
    echo "usage: benchmarks/run.sh SCENARIO [--quick], SCENARIO one of: http-cluster single-node memory-pressure" \
        "raft-kv raft-kv-heavy raft-counter raft-memory-pressure load-sweep collection-rate grpc-cluster" >&2
    exit 2
}
SCENARIO="${1:-}"
QUICK=""
case "${2:-}" in
    "") ;;
    --quick) QUICK="--quick" ;;
    *) usage ;;
esac
case "$SCENARIO" in
    http-cluster|single-node|memory-pressure|raft-kv|raft-kv-heavy|raft-counter|raft-memory-pressure\
    |load-sweep|collection-rate|grpc-cluster) ;;
    *) usage ;;
esac

JAVA="${JAVA:-java}"
DEFAULT_RATE=600
case "$SCENARIO" in
    raft-kv|raft-counter) DEFAULT_RATE=100 ;;
    raft-kv-heavy) DEFAULT_RATE=150 ;; # 54,000 requests in three windows: p99.99 rests on 5 of them
    raft-memory-pressure) DEFAULT_RATE=50 ;; # G1 misses p99 < 20 ms at raft-kv-heavy's 150/s
    # G1's closed-loop saturation, calibrated once: the median of G1's closed loops in the 13 sweeps of 2026-11-26
    # (6,372-7,950 /s); every sweep runs the same absolute rates, shares of it, and shows what G1's closed loop did.
    load-sweep) DEFAULT_RATE=7100 ;;
esac
VERSION="$(awk -F'[<>]' '/<version>/ { print $3; exit }' pom.xml)"
AGENT_JAR="agent/target/blade-agent-${VERSION}.jar"
COORDINATOR_JAR="coordinator/target/blade-coordinator.jar"

. benchmarks/cluster-prerequisites.sh
if [ "$SCENARIO" = raft-kv ] || [ "$SCENARIO" = raft-kv-heavy ] || [ "$SCENARIO" = raft-counter ] \
    || [ "$SCENARIO" = raft-memory-pressure ] || [ "$SCENARIO" = collection-rate ] \
    || [ "$SCENARIO" = grpc-cluster ]; then
    HAPROXY=haproxy # not used
else
    find_haproxy run
fi
[ "$SCENARIO" = load-sweep ] && find_wrk run
build_once run

if [ -n "$QUICK" ]; then
    OUT="${OUT:-benchmarks/target/suite/$(date +%Y%m%d-%H%M%S)-$SCENARIO-quick}"
else
    OUT="${OUT:-benchmarks/results/$(date +%F)-$SCENARIO}"
fi
echo "run: $SCENARIO ${QUICK:-(full)}, results in $OUT" >&2

# The command line the table names: the environment that chose the arms and the backends, then the script.
COMMAND="${ARMS:+ARMS=$ARMS }${HEAP:+HEAP=$HEAP }${WORKLOAD:+WORKLOAD=$WORKLOAD }${GC_THREADS:+GC_THREADS=$GC_THREADS }${BACKEND_CPUS:+BACKEND_CPUS=$BACKEND_CPUS }"
COMMAND+="benchmarks/run.sh $*"

# The load generator runs in the SuiteMain JVM: a young generation large enough that it does not collect during an
# arm. exec: SuiteMain stops its children itself (by pid, also on failure and on SIGTERM).
exec "$JAVA" -XX:+UseParallelGC -Xms1g -Xmx1g -Xmn900m -XX:ParallelGCThreads=1 -XX:+AlwaysPreTouch -cp "$CP" \
    io.bladegc.benchmarks.suite.SuiteMain "$SCENARIO" $QUICK --agent-jar "$AGENT_JAR" \
    --coordinator-jar "$COORDINATOR_JAR" --haproxy "$HAPROXY" --rate "${RATE:-$DEFAULT_RATE}" --out "$OUT" \
    ${ARMS:+--arms "$ARMS"} ${HEAP:+--heap "$HEAP"} ${WORKLOAD:+--workload "$WORKLOAD"} \
    ${GC_THREADS:+--gc-threads "$GC_THREADS"} ${BACKEND_CPUS:+--backend-cpus "$BACKEND_CPUS"} --command "$COMMAND"
