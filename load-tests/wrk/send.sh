#!/usr/bin/env bash
# SendMessage throughput and server CPU with wrk (a lighter client than Gatling), one node against three,
# all load through the first node. The three start as the README's "A cluster" starts them
# (cluster-config/local.yaml, --event-loops 1); the one node is the embedded default.
#
#   load-tests/wrk/send.sh [JAR] [NODES]     JAR defaults to broker/target/sluice.jar, NODES to "3 1"
#
# NODES is a node count or several, run in that order each round ("3 1": three nodes, then one). Each run
# starts the nodes afresh on 127.0.0.1:9500, 9510, 9520, creates the queue QUEUE ("bench2") through the
# first, runs wrk (CONNECTIONS in flight) on it for WARMUP seconds (not measured), purges it (so that the
# measured run does not start on a heap full of the warm-up's messages), runs wrk SETTLE seconds more (not
# measured: the purge and the new connections make the JIT recompile the hot path, on three JVMs for 20 s and
# more), then DURATION seconds measured, and prints
# SendMessage/s, the requests the first node forwarded to another (a send stays on the first node when it
# owns any of the queue's partitions, which Hazelcast places by the queue's name: "bench2" keeps every send
# on node 1, "bench" forwards every send), the JVMs' CPU per message by group of threads and thread
# wake-ups (load-tests/wrk/thread-cpu.py), and the host's busy share and steal over the measured window.
#
# Knobs (environment): ROUNDS (1), QUEUE (bench2), PROTOCOL (json or query: send-json.lua or send.lua),
# WARMUP (30), SETTLE (20) and DURATION (20) seconds, IDLE seconds of CPU measured with no load after the run (0: none),
# HEAP (2g, -Xms and -Xmx of every node), JVM_OPTS (none; e.g. -XX:+UseParallelGC), EVENT_LOOPS of each
# clustered node (1), WRK_THREADS (1), CONNECTIONS (32: requests in flight, shared by the wrk threads). A busy
# share well under 100 % means the run was bounded by the latency at that many requests in flight, not by
# the CPU. A send answered with an error counts as failed, not as a message (as compare.sh counts them); the
# script exits 1 after its runs if any send failed. Ports 9500, 9510, 9520 and Hazelcast's 5701-5703 must be
# free. Needs wrk (Debian: apt-get install wrk), curl, python3, java 17.
# Traffic goes to 127.0.0.1 only; every run is bounded (WARMUP + SETTLE + DURATION + IDLE seconds).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
jar=${1:-$root/broker/target/sluice.jar}
node_counts=${2:-3 1}
ROUNDS=${ROUNDS:-1}
QUEUE=${QUEUE:-bench2}
PROTOCOL=${PROTOCOL:-json}
WARMUP=${WARMUP:-30}
SETTLE=${SETTLE:-20}
DURATION=${DURATION:-20}
IDLE=${IDLE:-0}
HEAP=${HEAP:-2g}
JVM_OPTS=${JVM_OPTS:-}
EVENT_LOOPS=${EVENT_LOOPS:-1}
WRK_THREADS=${WRK_THREADS:-1}
CONNECTIONS=${CONNECTIONS:-32}
case "$PROTOCOL" in
  json) lua=$here/send-json.lua ;;
  query) lua=$here/send.lua ;;
  *) echo "send.sh: PROTOCOL must be json or query" >&2; exit 2 ;;
esac
[[ -f $jar ]] || { echo "send.sh: no $jar; build it first: mvn -q -B -DskipTests package" >&2; exit 2; }
for port in 9500 9510 9520 5701 5702 5703; do
  ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null ||
    { echo "send.sh: port $port is in use (needs 9500, 9510, 9520 and 5701-5703)" >&2; exit 2; }
done
archive=()
[[ -f ${jar%.jar}.jsa ]] && archive=(-XX:SharedArchiveFile="${jar%.jar}.jsa")
work=$(mktemp -d)
pids=()
failures=0
stop_nodes() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  pids=()
}
trap 'stop_nodes; rm -rf "$work"' EXIT
tck=$(getconf CLK_TCK)
cpu() { local s=0 p; for p in "${pids[@]}"; do s=$((s + $(awk '{print $14 + $15}' "/proc/$p/stat"))); done; echo "$s"; }
metric() { curl -s --max-time 5 http://127.0.0.1:9500/metrics | awk -v k="$1" '$1 == k { printf "%d", $2; found = 1 } END { if (!found) printf "0" }'; }
# The host's stolen, idle (with iowait) and total ticks since boot.
host_ticks() { awk '/^cpu / { print $9, $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat; }

run() { # nodes round
  local nodes=$1 round=$2 i port cluster=()
  for ((i = 0; i < nodes; i++)); do
    port=$((9500 + 10 * i))
    [[ $nodes -gt 1 ]] && cluster=(--cluster-config "$root/cluster-config/local.yaml" --event-loops "$EVENT_LOOPS")
    # shellcheck disable=SC2086 # JVM_OPTS is a list of options
    java -Xms"$HEAP" -Xmx"$HEAP" "${archive[@]}" $JVM_OPTS -jar "$jar" --host 127.0.0.1 --port "$port" "${cluster[@]}" \
      >"$work/node-$port.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 1 240); do curl -sf -o /dev/null "http://127.0.0.1:$port/health" && break; sleep 0.5; done
    curl -sf -o /dev/null "http://127.0.0.1:$port/health" ||
      { echo "send.sh: node on port $port did not start, see its log:" >&2; tail -20 "$work/node-$port.log" >&2; exit 1; }
  done
  # The warm-up runs on the measured queue (the same placement, so the same code paths are compiled), which
  # is then purged: a send-only load keeps every message, and the measured run should not start on a heap the
  # warm-up filled.
  curl -sf -o /dev/null -X POST -d "Action=CreateQueue&QueueName=$QUEUE&Version=2012-11-05" http://127.0.0.1:9500/
  export QUEUE_URL="http://127.0.0.1:9500/000000000000/$QUEUE"
  wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"${WARMUP}s" -s "$lua" http://127.0.0.1:9500/ >/dev/null
  curl -sf -o /dev/null -X POST --data-urlencode "QueueUrl=$QUEUE_URL" -d "Action=PurgeQueue&Version=2012-11-05" http://127.0.0.1:9500/
  local left
  for _ in $(seq 1 50); do # the queue's count, gathered from every node, reads 0 within 10 s
    left=$(curl -sf -X POST --data-urlencode "QueueUrl=$QUEUE_URL" \
      -d "Action=GetQueueAttributes&AttributeName.1=ApproximateNumberOfMessages&Version=2012-11-05" http://127.0.0.1:9500/ |
      sed -n 's/.*<Value>\([0-9]*\)<\/Value>.*/\1/p')
    [[ $left == 0 ]] && break
    sleep 0.2
  done
  [[ $left == 0 ]] || { echo "send.sh: the purged queue still holds ${left:-?} messages after 10 s" >&2; exit 1; }
  if [[ $SETTLE -gt 0 ]]; then
    wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"${SETTLE}s" -s "$lua" http://127.0.0.1:9500/ >/dev/null
  fi
  local f0 s0 out f1 s1 reqs failed sent
  f0=$(metric sluice_requests_forwarded_total)
  s0=$(host_ticks)
  python3 "$here/thread-cpu.py" snap "$work/before.json" "${pids[@]}"
  out=$(wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"${DURATION}s" -s "$lua" http://127.0.0.1:9500/)
  python3 "$here/thread-cpu.py" snap "$work/after.json" "${pids[@]}"
  s1=$(host_ticks)
  f1=$(metric sluice_requests_forwarded_total)
  reqs=$(echo "$out" | awk '/requests in/ { print $1 }')
  failed=$(echo "$out" | awk '/Non-2xx/ { n = $NF } END { print n + 0 }')
  sent=$((reqs - failed))
  failures=$((failures + failed))
  echo "round $round, $nodes node(s)${JVM_OPTS:+, $JVM_OPTS}, $(date -u +%H:%M:%S) UTC: $(echo "$out" | awk '/Requests\/sec/ { printf "%d", $2 }') SendMessage/s over $PROTOCOL (wrk -t$WRK_THREADS -c$CONNECTIONS);" \
    "$failed failed; node 1 forwarded $((f1 - f0)) of $reqs requests;" \
    "$(echo "$s0 $s1" | awk '$6 > $3 { t = $6 - $3; printf "host busy %.1f %%, steal %.1f %%", 100 * (t - ($5 - $2) - ($4 - $1)) / t, 100 * ($4 - $1) / t }')"
  python3 "$here/thread-cpu.py" diff "$work/before.json" "$work/after.json" "$sent"
  echo "$out" | grep -E "Latency|Non-2xx|Socket errors" || true
  if [[ $IDLE -gt 0 ]]; then
    sleep 5
    local i0 i1
    i0=$(cpu); sleep "$IDLE"; i1=$(cpu)
    echo "  idle after the load: $(( (i1 - i0) * 100 / tck / IDLE )) % of a core (all nodes)"
  fi
  stop_nodes
}

for ((r = 1; r <= ROUNDS; r++)); do
  for n in $node_counts; do
    run "$n" "$r"
  done
done
[[ $failures -eq 0 ]] || { echo "send.sh: $failures sends failed; these figures do not count" >&2; exit 1; }
