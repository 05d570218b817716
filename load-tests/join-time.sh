#!/usr/bin/env bash
# How long a second node takes to join an idle first one and be ready (its /health/ready would answer
# 200: joined, listening, the cluster's backups in place), and the CPU it used, for each Hazelcast
# partition count in PARTITIONS, alternating, ROUNDS times.
#
#   load-tests/join-time.sh
#
# Knobs (environment): PARTITIONS (71 271; both nodes of a pair use the same count, passed as
# -Dhazelcast.partition.count), ROUNDS (3), JAR (broker/target/sluice.jar; build it first:
# mvn -q -B -DskipTests package), HZ_PORT (5801: both nodes get it, the first binds it, the second the next
# free one and finds the first among HZ_PORT..+2), HTTP_PORT (9600, and the next). Both nodes use cluster-config/local.yaml with those ports; no
# other cluster named "sluice" may listen on them.
#
# The second node starts with -Dsluice.exitWhenReady=true: it stops as soon as it is ready (handing its
# partitions back first). "ready" is the time from its launch to its "Sluice ready" log line; "CPU" is
# its user + system time up to its exit, the hand-back included.
set -euo pipefail
cd "$(dirname "$0")/.."
PARTITIONS=${PARTITIONS:-71 271}
ROUNDS=${ROUNDS:-3}
JAR=${JAR:-broker/target/sluice.jar}
HZ_PORT=${HZ_PORT:-5801}
HTTP_PORT=${HTTP_PORT:-9600}
CONFIG=cluster-config/local.yaml
[[ -f $JAR ]] || { echo "no $JAR: build it first (mvn -q -B -DskipTests package)" >&2; exit 1; }
JSA=${JAR%.jar}.jsa
CDS=()
[[ -f $JSA ]] && CDS=(-XX:SharedArchiveFile="$JSA")
LOGS=${KEEP_LOGS:-$(mktemp -d)}
first=
cleanup() { [[ -n $first ]] && kill "$first" 2>/dev/null; [[ -z ${KEEP_LOGS:-} ]] && rm -rf "$LOGS"; }
trap cleanup EXIT

for ((round = 1; round <= ROUNDS; round++)); do
    for pc in $PARTITIONS; do
        java -Xmx256m -Dhazelcast.partition.count="$pc" "${CDS[@]}" -jar "$JAR" --port "$HTTP_PORT" \
            --cluster-config "$CONFIG" --hz-port "$HZ_PORT" > "$LOGS/first.log" 2>&1 &
        first=$!
        for ((i = 0; i < 300; i++)); do
            grep -q "Sluice ready" "$LOGS/first.log" && break
            kill -0 "$first" 2>/dev/null || { cat "$LOGS/first.log" >&2; exit 1; }
            sleep 0.2
        done
        grep -q "Sluice ready" "$LOGS/first.log" || { echo "first node not ready within 60 s" >&2; exit 1; }
        sleep 2 # let the first node settle: the second is timed, not the first one's start
        t0=$(date +%s.%N)
        TIMEFORMAT='%U %S'
        { time java -Xmx256m -Dhazelcast.partition.count="$pc" -Dsluice.exitWhenReady=true "${CDS[@]}" \
            -jar "$JAR" --port $((HTTP_PORT + 1)) --cluster-config "$CONFIG" --hz-port "$HZ_PORT" \
            > "$LOGS/second.log" 2>&1; } 2> "$LOGS/time"
        grep -q "Members {size:2" "$LOGS/second.log" || { echo "the second node did not join the first" >&2; exit 1; }
        readyAt=$(grep -m1 "Sluice ready" "$LOGS/second.log" | cut -c1-23)
        python3 - "$pc" "$round" "$t0" "$readyAt" "$(cat "$LOGS/time")" <<'EOF'
import datetime, sys
pc, rnd, t0, ready, cpu = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4], sys.argv[5].split()
at = datetime.datetime.fromisoformat(ready).timestamp()  # the node logs local time
print(f"round {rnd} partitions {pc}: second node ready {at - t0:.2f} s after launch, "
      f"CPU {float(cpu[0]) + float(cpu[1]):.2f} s")
EOF
        kill "$first"
        wait "$first" 2>/dev/null || true
        first=
    done
done
