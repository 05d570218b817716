#!/usr/bin/env bash
# Three Sluice nodes on one machine, as the README's "A cluster" starts them (cluster-config/local.yaml,
# --event-loops 1), with the load spread over the nodes as a load balancer would spread it: a queue
# filled through all three nodes, then ReceiveMessage (10) + DeleteMessageBatch through DRAIN_PORTS at
# once. Prints the messages received per second, the three JVMs' CPU per message and the partition
# requests the nodes forwarded to each other.
#
#   load-tests/wrk/spread.sh                      # drained through all three nodes
#   DRAIN_PORTS=9324 load-tests/wrk/spread.sh     # drained through node 1 only
#
# Knobs (environment): ROUNDS (1), PREFILL messages stored before the measured run (450000), WARMUP
# seconds of receive + delete on a first fill of PREFILL/2 messages (30), DURATION seconds measured (25,
# or until the queue is drained), CONNECTIONS in all, shared by the draining nodes (30), PROTOCOL (json),
# HEAP (2g), JVM_OPTS (none), JAR (broker/target/sluice.jar; build it first: mvn -q -B -DskipTests
# package). Ports 9324, 9334, 9344 and Hazelcast's 5701-5703 must be free. Fills use fill.lua
# (SendMessageBatch, 10 connections per node), the drain recvdel.lua (its rate: messages received over
# the longest drainer's window from first receive to last delete). Each round starts the three nodes
# afresh. Needs wrk, curl, java 17. Traffic goes to 127.0.0.1 only; every load is bounded.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
ROUNDS=${ROUNDS:-1}
PREFILL=${PREFILL:-450000}
WARMUP=${WARMUP:-30}
DURATION=${DURATION:-25}
CONNECTIONS=${CONNECTIONS:-30}
PROTOCOL=${PROTOCOL:-json}
HEAP=${HEAP:-2g}
JVM_OPTS=${JVM_OPTS:-}
JAR=${JAR:-$root/broker/target/sluice.jar}
DRAIN_PORTS=${DRAIN_PORTS:-9324 9334 9344}
PORTS=(9324 9334 9344)
QUEUE=bench-spread
[[ -f $JAR ]] || { echo "spread.sh: no $JAR; build it first: mvn -q -B -DskipTests package" >&2; exit 2; }
for port in "${PORTS[@]}" 5701 5702 5703; do
  ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null ||
    { echo "spread.sh: port $port is in use (the three nodes need 9324, 9334, 9344 and 5701-5703)" >&2; exit 2; }
done
work=$(mktemp -d)
pids=()
stop_nodes() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do while kill -0 "$p" 2>/dev/null; do sleep 0.2; done; done
  pids=()
}
trap 'stop_nodes; rm -rf "$work"' EXIT

start_nodes() {
  for port in "${PORTS[@]}"; do
    # shellcheck disable=SC2086
    java -Xms"$HEAP" -Xmx"$HEAP" $JVM_OPTS -jar "$JAR" --host 127.0.0.1 --port "$port" \
      --cluster-config "$root/cluster-config/local.yaml" --event-loops 1 >"$work/node-$port.log" 2>&1 &
    pids+=($!)
    disown $! # stopped with kill -9 at the end of the round: no job report
    for _ in $(seq 1 240); do
      [[ $(curl -s -o /dev/null -w '%{http_code}' -m 1 "127.0.0.1:$port/health" || true) == 200 ]] && break
      sleep 0.5
    done
    [[ $(curl -s -o /dev/null -w '%{http_code}' -m 1 "127.0.0.1:$port/health" || true) == 200 ]] ||
      { echo "spread.sh: node on $port not ready; its log: $work/node-$port.log" >&2; tail -20 "$work/node-$port.log" >&2; exit 1; }
  done
}

cpu_ticks() {
  local t=0 s
  for p in "${pids[@]}"; do
    read -r -a s < <(cut -d' ' -f14,15 "/proc/$p/stat")
    t=$((t + s[0] + s[1]))
  done
  echo "$t"
}

forwarded() {
  local t=0 v
  for port in "${PORTS[@]}"; do
    v=$(curl -s -m 3 "127.0.0.1:$port/metrics" | awk '/^sluice_requests_forwarded_total/{print int($2)}' || true)
    t=$((t + ${v:-0}))
  done
  echo "$t"
}

fill_one() { # port count
  local stop="$work/fill-stop-$1" w
  rm -f "$stop"
  QUEUE_URL="http://127.0.0.1:$1/000000000000/$QUEUE" FILL_MESSAGES=$2 STOP_FILE=$stop \
    wrk -t1 -c10 -d300s -s "$here/fill.lua" "http://127.0.0.1:$1/" >/dev/null 2>&1 &
  w=$!
  for _ in $(seq 1 3000); do [[ -e $stop ]] && break; kill -0 "$w" 2>/dev/null || break; sleep 0.1; done
  kill -INT "$w" 2>/dev/null || true
  wait "$w" 2>/dev/null || true
}

fill() { # total, spread over the three nodes
  local ws=() port
  for port in "${PORTS[@]}"; do
    fill_one "$port" $(($1 / 3)) &
    ws+=($!)
  done
  wait "${ws[@]}"
}

drain() { # seconds, output prefix
  local ws=() port n
  read -r -a drainers <<<"$DRAIN_PORTS"
  n=${#drainers[@]}
  for port in "${drainers[@]}"; do
    rm -f "$work/drain-stop-$port"
    QUEUE_URL="http://127.0.0.1:$port/000000000000/$QUEUE" PROTOCOL=$PROTOCOL STOP_FILE="$work/drain-stop-$port" \
      wrk -t1 -c$((CONNECTIONS / n)) -d"$1"s -s "$here/recvdel.lua" "http://127.0.0.1:$port/" >"$2-$port.txt" 2>&1 &
    ws+=($!)
  done
  wait "${ws[@]}"
}

echo "| round | drained through | messages/s | CPU µs/msg (three JVMs) | received | failed | requests forwarded |"
echo "|---:|---|---:|---:|---:|---:|---:|"
hz=$(getconf CLK_TCK)
for round in $(seq 1 "$ROUNDS"); do
  start_nodes
  curl -s -m 5 -X POST 127.0.0.1:9324/ -H 'Content-Type: application/x-amz-json-1.0' \
    -H 'X-Amz-Target: AmazonSQS.CreateQueue' -d "{\"QueueName\":\"$QUEUE\"}" >/dev/null
  fill $((PREFILL / 2))
  drain "$WARMUP" "$work/warm"
  fill "$PREFILL"
  c0=$(cpu_ticks)
  f0=$(forwarded)
  drain "$DURATION" "$work/measured"
  c1=$(cpu_ticks)
  f1=$(forwarded)
  received=0
  failed=0
  longest=0
  for port in $DRAIN_PORTS; do
    line=$(grep '^recvdel' "$work/measured-$port.txt" || true)
    r=$(grep -o 'received=[0-9]*' <<<"$line" | cut -d= -f2 || true)
    f=$(grep -o 'failed=[0-9]*' <<<"$line" | cut -d= -f2 || true)
    d=$(grep -o 'duration_us=[0-9]*' <<<"$line" | cut -d= -f2 || true)
    received=$((received + ${r:-0}))
    failed=$((failed + ${f:-0}))
    if ((${d:-0} > longest)); then longest=${d:-0}; fi
  done
  rate=$((received * 1000000 / (longest > 0 ? longest : 1)))
  cpu_us=$(((c1 - c0) * 1000000 / hz / (received > 0 ? received : 1)))
  echo "| $round | $DRAIN_PORTS | $rate | $cpu_us | $received | $failed | $((f1 - f0)) |"
  stop_nodes
done
