#!/usr/bin/env bash
# SendMessage throughput and server CPU with wrk (a lighter client than Gatling), on one node or
# a 3-node cluster (cluster-config/local.yaml), all load through the first node:
#
#   load-tests/wrk/send.sh [JAR] [NODES]     JAR defaults to broker/target/sluice.jar, NODES to 3
#
# Starts NODES nodes on 127.0.0.1:9500, 9510, 9520, creates the queue $QUEUE ("bench"), runs
# `wrk -t1 -c32 -d20s` twice (a warm-up, then the measured run), prints req/s and the nodes' CPU
# (utime + stime from /proc/PID/stat) per message and how many requests the first node forwarded to
# another, then 20 s of idle CPU, and stops the nodes. A send stays on the first node when it owns
# any of the queue's partitions, which Hazelcast places by the queue's name (QUEUE=...).
# Needs wrk (Debian: apt-get install wrk), curl, java 17. Every run is bounded (2 × 20 s of load).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
jar=${1:-$root/broker/target/sluice.jar}
nodes=${2:-3}
queue=${QUEUE:-bench}
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT
for ((i = 0; i < nodes; i++)); do
  port=$((9500 + 10 * i))
  if curl -s -o /dev/null "http://127.0.0.1:$port/health"; then echo "port $port is in use" >&2; exit 1; fi
  if [[ $nodes -gt 1 ]]; then
    java -Xms512m -Xmx512m -jar "$jar" --host 127.0.0.1 --port "$port" \
      --cluster-config "$root/cluster-config/local.yaml" > "/tmp/wrk-send-$port.log" 2>&1 &
  else
    java -Xms512m -Xmx512m -jar "$jar" --host 127.0.0.1 --port "$port" > "/tmp/wrk-send-$port.log" 2>&1 &
  fi
  pids+=($!)
  for _ in $(seq 1 240); do curl -sf -o /dev/null "http://127.0.0.1:$port/health" && break; sleep 0.5; done
done
curl -sf -o /dev/null -X POST -d "Action=CreateQueue&QueueName=$queue&Version=2012-11-05" http://127.0.0.1:9500/
export QUEUE_URL="http://127.0.0.1:9500/000000000000/$queue"
cpu() { local s=0; for p in "${pids[@]}"; do s=$((s + $(awk '{print $14 + $15}' "/proc/$p/stat"))); done; echo "$s"; }
wrk -t1 -c32 -d20s -s "$here/send.lua" http://127.0.0.1:9500/ > /dev/null
forwarded() { curl -s --max-time 5 http://127.0.0.1:9500/metrics | awk '/^sluice_requests_forwarded_total / { printf "%d", $2 }'; }
f0=$(forwarded)
t0=$(cpu)
out=$(wrk -t1 -c32 -d20s -s "$here/send.lua" http://127.0.0.1:9500/)
t1=$(cpu)
f1=$(forwarded)
reqs=$(echo "$out" | awk '/requests in/ {print $1}')
tck=$(getconf CLK_TCK)
echo "$nodes node(s): $(echo "$out" | awk '/Requests\/sec/ {print $2}') SendMessage/s, server CPU $(( (t1 - t0) * 1000000 / tck / reqs )) µs per message"
echo "queue $queue: the first node forwarded $((f1 - f0)) of $reqs requests"
echo "$out" | grep -E "Latency|Non-2xx|Socket errors" || true
sleep 5; i0=$(cpu); sleep 20; i1=$(cpu)
echo "idle after the load: $(( (i1 - i0) * 100 / tck / 20 )) % of a core (all nodes)"
