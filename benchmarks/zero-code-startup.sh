#!/usr/bin/env bash
# What the agent's instrumentation costs at start-up: Tomcat 10 (embedded) deploys the zero-code test's WAR, answers
# one request and exits (WarServer ... once), as a whole process, in rounds that take the arms in turn:
#   agent            the agent with its defaults (instrument=none, explicitGc=pass: Byte Buddy never runs)
#   servlet          instrument=servlet
#   explicit-gc      explicitGc=coordinate
#   both             instrument=servlet,explicitGc=coordinate
# Prints each arm's median wall time and peak RSS (GNU time's %e and %M), and the ratio of the medians to "agent".
#
# Usage: benchmarks/zero-code-startup.sh   (after ./mvnw -DskipTests install and one
#        ./mvnw -pl benchmarks/system-tests verify -Dit.test=ZeroCodeServletIT, which builds the WAR; ROUNDS [10])
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
ROUNDS="${ROUNDS:-10}"
JAVA="${JAVA:-java}"
AGENT="$ROOT/agent/target/blade-agent-0.1.0-SNAPSHOT.jar"
WAR="$ROOT/benchmarks/system-tests/target/zerocode/app.war"
[ -f "$WAR" ] || { echo "no $WAR: run ./mvnw -pl benchmarks/system-tests verify -Dit.test=ZeroCodeServletIT first" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "GNU time is missing: apt-get install -y time" >&2; exit 2; }
OUT="benchmarks/target/zero-code-startup/$(date +%Y%m%d-%H%M%S)"
mkdir -p "$OUT"
./mvnw -q -o -pl benchmarks/system-tests dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$ROOT/$OUT/cp.txt"
# Tomcat bundles the Jakarta servlet API: the jakarta.servlet-api jar (Jetty's) stays off the class path
CP="benchmarks/system-tests/target/test-classes:$(tr ':' '\n' < "$OUT/cp.txt" \
    | grep -v '/jakarta.servlet-api-' | paste -sd:)"

declare -A ARGS=([agent]="" [servlet]="=instrument=servlet" [explicit-gc]="=explicitGc=coordinate"
    [both]="=instrument=servlet,explicitGc=coordinate")
ARMS=(agent servlet explicit-gc both)
for round in $(seq "$ROUNDS"); do
    for arm in "${ARMS[@]}"; do
        /usr/bin/time -a -o "$OUT/$arm.time" -f '%e %M' "$JAVA" "-javaagent:$AGENT${ARGS[$arm]}" \
            -XX:+UseParallelGC -XX:ParallelGCThreads=1 -Xmx256m -cp "$CP" io.bladegc.benchmarks.WarServer \
            tomcat "$WAR" once > "$OUT/$arm.out" 2> "$OUT/$arm.log"
        grep -q '^FIRST ANSWER 200$' "$OUT/$arm.out" || { echo "$arm did not answer; see $OUT/$arm.log" >&2; exit 1; }
    done
done

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
BASE="$(awk '{ print $1 }' "$OUT/agent.time" | median)"
printf '%-12s %10s %10s %14s\n' arm "wall s" "x agent" "peak RSS MiB"
for arm in "${ARMS[@]}"; do
    WALL="$(awk '{ print $1 }' "$OUT/$arm.time" | median)"
    RSS="$(awk '{ print $2 / 1024 }' "$OUT/$arm.time" | median)"
    printf '%-12s %10.2f %10.2f %14.0f\n' "$arm" "$WALL" "$(echo "$WALL / $BASE" | bc -l)" "$RSS"
done | tee "$OUT/table.txt"
echo "rounds: $ROUNDS; files: $OUT"
