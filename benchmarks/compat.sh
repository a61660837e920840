#!/usr/bin/env bash
# Blade's JDK x collector compatibility table.
#
# For every JDK under /usr/lib/jvm (symlinks deduplicated with readlink -f; JDKs whose `java -version` fails are
# skipped) and every collector flag set below, runs io.bladegc.benchmarks.compat.CompatibilityCheck in its own child
# JVM, one at a time, bounded with `timeout`, and prints a markdown table:
#   JDK | collector flags | Blade's classification | mode | collections | inside quiet windows (%) | forced | escaped
#   | refused | notes
# "collections" (once the request threads started: those while the 60 MB live set is built, before any request,
# are in the notes) and "inside quiet windows" come from the check's own GC notification listener (beans ending in
# " Cycles" excluded), not from Blade; forced/escaped/refused are Blade's counters (MBean io.bladegc:type=Node).
# The table also goes to benchmarks/results/compat-<date>.md with uname -a, nproc and the exact command; each run's
# stdout/stderr stays in benchmarks/target/compat/<time>/.
#
# Flag sets: Serial, Parallel, G1, ZGC (on JDK 21-22 also generational ZGC; on 23+ ZGC is generational only),
# Shenandoah (noted and skipped when the JVM rejects the flag), Epsilon (with a heap for the whole run, as it never
# frees anything), and G1 and Parallel with -XX:+DisableExplicitGC.
#
# Usage (from anywhere; builds once with the Maven wrapper when benchmarks/suite/target/classes is missing):
#   benchmarks/compat.sh
#   DURATION=15 benchmarks/compat.sh
# Environment (defaults in brackets):
#   DURATION [8] seconds of load per run   HEAP ["-Xms256m -Xmx256m"]   EPSILON_HEAP ["-Xmx<1024 + 200 x DURATION>m"]
#   JVM_OPTS ["-XX:ParallelGCThreads=1 -XX:ConcGCThreads=1"]   JDK_ROOT [/usr/lib/jvm]
#   OUT [benchmarks/target/compat/<time>] per-run logs   RESULTS [benchmarks/results/compat-<date>.md]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
COMMAND="$0${*:+ $*}"
for v in DURATION HEAP EPSILON_HEAP JVM_OPTS JDK_ROOT OUT RESULTS; do
    if [[ -n "${!v+x}" ]]; then COMMAND="$v=\"${!v}\" $COMMAND"; fi
done

DURATION="${DURATION:-8}"
HEAP="${HEAP:--Xms256m -Xmx256m}"
# Epsilon never frees: the load allocates about 160 MB/s, so 1 GB plus 200 MB per second of load
EPSILON_HEAP="${EPSILON_HEAP:--Xmx$(( 1024 + DURATION * 200 ))m}"
JVM_OPTS="${JVM_OPTS:--XX:ParallelGCThreads=1 -XX:ConcGCThreads=1}"
JDK_ROOT="${JDK_ROOT:-/usr/lib/jvm}"
OUT="${OUT:-benchmarks/target/compat/$(date +%Y%m%d-%H%M%S)}"
RESULTS="${RESULTS:-benchmarks/results/compat-$(date +%Y-%m-%d).md}"
LIMIT=$(( ${DURATION%.*} + 60 ))
MAIN=io.bladegc.benchmarks.compat.CompatibilityCheck
CP_SHOWN='benchmarks/suite/target/classes:$(cat benchmarks/suite/target/classpath.txt)'

if [[ ! -d benchmarks/suite/target/classes || ! -f benchmarks/suite/target/classpath.txt ]]; then
    echo "compat: building (./mvnw -B -q -DskipTests install)" >&2
    ./mvnw -B -q -DskipTests install
fi
CP="benchmarks/suite/target/classes:$(cat benchmarks/suite/target/classpath.txt)"
mkdir -p "$OUT" "$(dirname "$RESULTS")"

kv() { # key line: the value of key=value in a result line, '_' turned back into spaces
    awk -v k="$1" '{ for (i = 1; i <= NF; i++) { p = index($i, "="); if (substr($i, 1, p - 1) == k) print substr($i, p + 1) } }' \
        <<< "$2" | tr '_' ' '
}

feature_of() { # "17.0.15" -> 17, "1.8.0_402" -> 8
    local v="$1"
    if [[ "$v" == 1.* ]]; then v="${v#1.}"; fi
    echo "${v%%[.+-]*}"
}

ROWS=()
row() { ROWS+=("| $1 | \`$2\` | $3 | $4 | $5 | $6 | $7 | $8 | $9 | ${10} |"); echo "${ROWS[-1]}" >&2; }

declare -A SEEN=()
for java in "$JDK_ROOT"/*/bin/java; do
    [[ -x "$java" ]] || continue
    real="$(readlink -f "$java")"
    [[ -z "${SEEN[$real]+x}" ]] || continue
    SEEN[$real]=1
    if ! version_out="$("$real" -version 2>&1)"; then
        echo "compat: skipping $java: java -version failed" >&2
        continue
    fi
    version="$(sed -n 's/.*version "\([^"]*\)".*/\1/p' <<< "$version_out" | head -n 1)"
    feature="$(feature_of "$version")"
    home="$(basename "$(dirname "$(dirname "$real")")")"
    jdk="$version ($home)"
    if (( feature < 17 )); then
        row "$jdk" "-" "-" "-" "-" "-" "-" "-" "-" "skipped: the check is compiled for Java 17"
        continue
    fi

    SETS=("-XX:+UseSerialGC" "-XX:+UseParallelGC" "-XX:+UseG1GC" "-XX:+UseZGC")
    if (( feature >= 21 && feature <= 22 )); then SETS+=("-XX:+UseZGC -XX:+ZGenerational"); fi
    SETS+=("-XX:+UseShenandoahGC" "-XX:+UnlockExperimentalVMOptions -XX:+UseEpsilonGC"
           "-XX:+UseG1GC -XX:+DisableExplicitGC" "-XX:+UseParallelGC -XX:+DisableExplicitGC")

    for flags in "${SETS[@]}"; do
        heap="$HEAP"
        [[ "$flags" == *UseEpsilonGC* ]] && heap="$EPSILON_HEAP"
        # shellcheck disable=SC2086 # flag sets are word lists
        if ! probe="$("$real" $heap $JVM_OPTS $flags -version 2>&1)"; then
            row "$jdk" "$flags" "-" "-" "-" "-" "-" "-" "-" \
                "skipped: JVM rejects the flags ($(grep -m1 -iE 'error|unrecognized' <<< "$probe" | tr -d '|' || true))"
            continue
        fi
        log="$OUT/${home}_$(tr -c 'A-Za-z0-9\n' '_' <<< "$flags")"
        echo "compat: $jdk $flags" >&2
        rc=0
        # shellcheck disable=SC2086
        timeout -k 10 "$LIMIT" "$real" $heap $JVM_OPTS $flags -cp "$CP" "$MAIN" "$DURATION" \
            > "$log.out" 2> "$log.err" || rc=$?
        line="$(grep -m1 '^java.version=' "$log.out" || true)"
        notes=()
        if (( rc == 124 || rc == 137 )); then notes+=("timed out after ${LIMIT} s"); elif (( rc != 0 )); then notes+=("exit $rc"); fi
        if grep -q 'OutOfMemoryError' "$log.out" "$log.err"; then notes+=("died of OutOfMemoryError"); fi
        # JVM warnings and Blade's warnings and errors, first clause only (full text in the .err log); per-collection
        # drain-timeout warnings are counted below instead
        while IFS= read -r w; do
            if [[ "$w" == *"][warning"* ]]; then
                notes+=("JVM warning: $(sed -E 's/^(\[[^]]*\])+ *//' <<< "$w" | cut -c1-110 | tr -d '|')")
                continue
            fi
            if [[ "$w" == *"VM warning: "* ]]; then who="JVM warning"; else who="Blade ${w%%:*}"; fi
            notes+=("$who: $(sed -E 's/^[^:]*: //; s/^Blade: //; /unknown collector/! s/(: |; ).*//; s/(\)).*/\1/' \
                <<< "$w" | cut -c1-110 | tr -d '|')")
        done < <({ grep -hE '^([A-Za-z0-9 ()-]*VM warning|WARNING|SEVERE): ' "$log.err" | grep -v 'Blade GC #'
                   grep -hE '^\[[^]]*\]\[warning *\]' "$log.out" "$log.err"; } | sort -u || true)
        if [[ -z "$line" ]]; then
            notes+=("no result line (see $log.err)")
            row "$jdk" "$flags" "-" "-" "-" "-" "-" "-" "-" "$(IFS=';'; echo "${notes[*]}" | sed 's/;/; /g')"
            continue
        fi
        collections="$(kv collections "$line")"; collections="${collections:-0}"
        quiet="$(kv quiet "$line")"; quiet="${quiet:-0}"
        if (( collections > 0 )); then
            pct="$quiet ($(awk -v q="$quiet" -v c="$collections" 'BEGIN { printf "%.0f", 100 * q / c }') %)"
        else
            pct="n/a"
        fi
        before="$(kv beforeLoad "$line")"; before="${before:-0}"
        (( before == 0 )) || notes+=("$before more while the live set was built, before any request (not counted, in Blade's forced/escaped)")
        other="$(kv otherPauses "$line")"; other="${other:-0}"
        (( other == 0 )) || notes+=("$other remark/cleanup pauses (not collections, not counted, $(kv otherPausesQuiet "$line") of them inside quiet windows)")
        dt="$(kv drainTimeouts "$line")"; dt="${dt:-0}"
        (( dt == 0 )) || notes+=("$dt drain timeouts")
        notes+=("GCs by bean: $(kv perBean "$line" | sed 's/:/ /g; s/,/, /g')")
        notes+=("causes: $(kv causes "$line" | sed 's/:/ /g; s/,/, /g')")
        notes+=("upcalls $(kv requests "$line"), shed $(kv shed "$line") of $(( $(kv shed "$line") + $(kv admitted "$line") ))")
        row "$jdk" "$flags" "$(kv collector "$line")" "$(kv mode "$line")" "$collections" "$pct" \
            "$(kv forced "$line")" "$(kv escaped "$line")" "$(kv refused "$line")" \
            "$(IFS=';'; echo "${notes[*]}" | sed 's/;/; /g')"
    done
done

TABLE="$(
    echo "| JDK | collector flags | Blade's classification | mode | collections | inside quiet windows (%) | forced | escaped | refused | notes |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    printf '%s\n' "${ROWS[@]}"
)"
# whether the tree differed from its commit, read before the results file is written (it would count itself)
DIRTY="$([[ -z "$(git status --porcelain 2>/dev/null)" ]] || echo ' with uncommitted changes')"
{
    echo "# Blade JDK x collector compatibility, $(date +%Y-%m-%d)"
    echo
    echo "Command: \`$COMMAND\` (from the repository root, git $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$DIRTY)"
    echo
    echo "Each run: \`timeout -k 10 $LIMIT <jdk>/bin/java $HEAP $JVM_OPTS <collector flags> -cp $CP_SHOWN $MAIN $DURATION\`"
    echo "(Epsilon: \`$EPSILON_HEAP\` instead of \`$HEAP\`). Load: 4 request threads, 2,500 requests/s in total, 64 KiB"
    echo "of garbage per request, a 60 MB live set. Collections and quiet windows are counted by the check's own GC"
    echo "notification listener (beans ending in \" Cycles\" excluded) from the moment the request threads start (the"
    echo "collections while the live set is built, with no request to protect, are in the notes); forced/escaped/refused"
    echo "are Blade's counters, from its start. G1's remark and cleanup pauses (bean \"G1 Concurrent GC\", JDK 20 and"
    echo "later; JDK 17 reports them nowhere) are not collections and come when concurrent marking ends: Blade does not"
    echo "plan them; the notes count them and say how many fell inside quiet windows anyway."
    echo
    echo "- \`uname -a\`: $(uname -a)"
    echo "- \`nproc\`: $(nproc)"
    echo
    echo "$TABLE"
} > "$RESULTS"
echo
echo "$TABLE"
echo
echo "compat: table written to $RESULTS, logs in $OUT" >&2
