#!/usr/bin/env bash
# Sluice vs ElasticMQ 1.7.1 on this machine: the same two Gatling simulations against each target, one at a time.
#
#   load-tests/run-benchmark.sh            # Sluice (1 node) and ElasticMQ, 20 s per measured run (DURATION=20)
#   TARGETS=sluice,sluice3,elasticmq load-tests/run-benchmark.sh    # adds a 3-node Sluice cluster
#   DURATION=30 USERS=32 PREFILL=100000 load-tests/run-benchmark.sh
#
# Knobs (environment): TARGETS comma-separated, from sluice (one node), sluice3 (a 3-node Sluice cluster on this
# machine, driven through all three nodes) and elasticmq (default sluice,elasticmq), DURATION seconds per
# measured run (default 20), USERS virtual users (32), PREFILL messages for ReceiveDeleteSimulation (100000),
# HEAP for every broker JVM, each cluster node included (512m), WARMUP seconds of load before measuring (10),
# SLUICE_PORT (9324; sluice3 uses it, +10 and +20), ELASTICMQ_PORT (9325),
# BUILD_BROKER=0 to skip the broker build and measure the broker/target/sluice.jar already there.
#
# It builds broker/target/sluice.jar, copies ElasticMQ and its dependencies from Maven Central (through Maven)
# into load-tests/target/elasticmq/lib, then for each target: starts it, warms it, runs SendSimulation and
# ReceiveDeleteSimulation, stops it. Results go to load-tests/target/benchmark/<timestamp>/ and the
# side-by-side table (a row per target) is printed at the end (and written to summary.md there).
# Every Maven call takes the shared lock /tmp/sluice-mvn.lock. Traffic goes to 127.0.0.1 only.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$HERE")
DURATION=${DURATION:-20}
USERS=${USERS:-32}
PREFILL=${PREFILL:-100000}
HEAP=${HEAP:-512m}
WARMUP=${WARMUP:-10}
BUILD_BROKER=${BUILD_BROKER:-1}
SLUICE_PORT=${SLUICE_PORT:-9324}
ELASTICMQ_PORT=${ELASTICMQ_PORT:-9325}
TARGETS=${TARGETS:-sluice,elasticmq}
CLUSTER_NODES=3
CLUSTER_CONFIG="$ROOT/cluster-config/local.yaml"
LOCK=/tmp/sluice-mvn.lock
OUT="$HERE/target/benchmark/$(date -u +%Y%m%dT%H%M%SZ)"
EMQ_LIB="$HERE/target/elasticmq/lib"
# Hard bound for one Gatling run: its own maxDuration is DURATION+15 s, plus JVM start, pre-fill and reports.
RUN_TIMEOUT=$((DURATION + 300))

for n in DURATION USERS PREFILL WARMUP SLUICE_PORT ELASTICMQ_PORT; do
  [[ ${!n} =~ ^[0-9]+$ ]] || { echo "run-benchmark: $n must be a number, got '${!n}'" >&2; exit 2; }
done
(( DURATION >= 5 && DURATION <= 600 )) || { echo "run-benchmark: DURATION must be 5..600" >&2; exit 2; }
(( USERS >= 1 && USERS <= 256 )) || { echo "run-benchmark: USERS must be 1..256" >&2; exit 2; }
(( PREFILL <= 1000000 )) || { echo "run-benchmark: PREFILL must be at most 1000000" >&2; exit 2; }
(( SLUICE_PORT >= 1 && SLUICE_PORT + 10 * (CLUSTER_NODES - 1) <= 65535 && ELASTICMQ_PORT >= 1 && ELASTICMQ_PORT <= 65535 )) \
  || { echo "run-benchmark: SLUICE_PORT (+20) and ELASTICMQ_PORT must be TCP ports" >&2; exit 2; }
TARGET_LIST=()
IFS=',' read -r -a _targets <<<"$TARGETS"
for t in "${_targets[@]}"; do
  t=${t//[[:space:]]/}
  [[ -z "$t" ]] && continue
  case "$t" in
    sluice | sluice3 | elasticmq) ;;
    *) echo "run-benchmark: unknown target '$t' in TARGETS (known: sluice, sluice3, elasticmq)" >&2; exit 2 ;;
  esac
  for seen in "${TARGET_LIST[@]}"; do
    [[ "$seen" != "$t" ]] || { echo "run-benchmark: target '$t' is listed twice in TARGETS" >&2; exit 2; }
  done
  TARGET_LIST+=("$t")
done
(( ${#TARGET_LIST[@]} > 0 )) || { echo "run-benchmark: TARGETS names no target" >&2; exit 2; }
wants() { local t; for t in "${TARGET_LIST[@]}"; do [[ "$t" == "$1" ]] && return 0; done; return 1; }
WANTS_SLUICE=0
if wants sluice || wants sluice3; then WANTS_SLUICE=1; fi
if wants sluice3; then
  [[ -f "$CLUSTER_CONFIG" ]] || { echo "run-benchmark: sluice3 needs $CLUSTER_CONFIG" >&2; exit 2; }
fi
for tool in java mvn flock curl python3 timeout; do
  command -v "$tool" >/dev/null || { echo "run-benchmark: needs $tool on PATH" >&2; exit 2; }
done
mkdir -p "$OUT"

# The broker JVMs this script started (one, or the nodes of a cluster), stopped by PID, last started first.
SERVER_PIDS=()
stop_servers() {
  local i pid
  for ((i = ${#SERVER_PIDS[@]} - 1; i >= 0; i--)); do
    pid=${SERVER_PIDS[i]}
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
      kill -9 "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
  done
  SERVER_PIDS=()
}
trap stop_servers EXIT
trap 'echo "run-benchmark: interrupted" >&2; exit 130' INT TERM

log() { printf '%s %s\n' "$(date -u +%H:%M:%S)" "$*"; }

mvn_locked() { flock "$LOCK" mvn -B -q "$@"; }

# Offline first (nothing to fetch once ~/.m2 has it); online through Maven Central only if that fails.
mvn_prefer_offline() {
  local logf=$1; shift
  if ! mvn_locked -o "$@" >"$logf" 2>&1; then
    mvn_locked "$@" >>"$logf" 2>&1 || { echo "run-benchmark: mvn $* failed, see $logf" >&2; tail -20 "$logf" >&2; return 1; }
  fi
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

sqs_create_queue() { # port name -> 0 when the broker answered 200
  local code
  code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 -X POST "http://127.0.0.1:$1/" \
    -H "X-Amz-Target: AmazonSQS.CreateQueue" -H "Content-Type: application/x-amz-json-1.0" \
    -d "{\"QueueName\":\"$2\"}" || true)
  [[ "$code" == 200 ]]
}

sqs_send() { # port queueUrl -> 0 when the broker stored the message (200)
  local code
  code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 -X POST "http://127.0.0.1:$1/" \
    -H "X-Amz-Target: AmazonSQS.SendMessage" -H "Content-Type: application/x-amz-json-1.0" \
    -d "{\"QueueUrl\":\"$2\",\"MessageBody\":\"ready\"}" || true)
  [[ "$code" == 200 ]]
}

health_ok() { # port -> 0 when GET /health answered 200
  [[ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$1/health" || true)" == 200 ]]
}

require_alive() { # pid log name: ends the script if the broker process has exited
  kill -0 "$1" 2>/dev/null && return 0
  echo "run-benchmark: $3 exited, see $2" >&2
  tail -20 "$2" >&2
  exit 1
}

start_server() { # name port command...
  local name=$1 port=$2 pid; shift 2
  port_free "$port" || { echo "run-benchmark: port $port is already in use; not starting $name" >&2; exit 1; }
  log "starting $name on 127.0.0.1:$port (heap $HEAP)"
  "$@" >"$OUT/$name.server.log" 2>&1 &
  pid=$!
  SERVER_PIDS+=("$pid")
  for _ in $(seq 1 120); do
    require_alive "$pid" "$OUT/$name.server.log" "$name"
    if sqs_create_queue "$port" bench-ready; then log "$name is ready"; return 0; fi
    sleep 0.5
  done
  echo "run-benchmark: $name did not answer within 60 s" >&2
  exit 1
}

# A Sluice cluster of CLUSTER_NODES nodes on this machine: HTTP ports SLUICE_PORT, +10, +20, ...; each joins
# the others through cluster-config/local.yaml (Hazelcast finds its ports itself). Started one after the other,
# each one only once the previous answers GET /health.
start_cluster() { # name
  local name=$1 i port pid logf queue_url
  local ports=() pids=() logs=()
  for ((i = 0; i < CLUSTER_NODES; i++)); do ports+=($((SLUICE_PORT + 10 * i))); done
  for port in "${ports[@]}"; do
    port_free "$port" || { echo "run-benchmark: port $port is already in use; not starting $name" >&2; exit 1; }
  done
  # Another cluster started from the same file (same cluster name, same Hazelcast ports) would take our nodes in.
  if command -v pgrep >/dev/null; then
    local others
    others=$(pgrep -f -- "--cluster-config [^ ]*cluster-config/local\.yaml" || true)
    [[ -z "$others" ]] || { echo "run-benchmark: Sluice nodes started with cluster-config/local.yaml are already running (pid $(echo $others)); our nodes would join their cluster" >&2; exit 1; }
  fi
  for ((i = 0; i < CLUSTER_NODES; i++)); do
    port=${ports[i]}
    logf="$OUT/$name-node$((i + 1)).server.log"
    log "starting $name node $((i + 1)) on 127.0.0.1:$port (heap $HEAP, cluster-config/local.yaml)"
    java "${JVM_OPTS[@]}" -jar "$OUT/sluice.jar" --host 127.0.0.1 --port "$port" --cluster-config "$CLUSTER_CONFIG" \
      >"$logf" 2>&1 &
    pid=$!
    SERVER_PIDS+=("$pid")
    pids+=("$pid")
    logs+=("$logf")
    local ok=0
    for _ in $(seq 1 240); do
      require_alive "$pid" "$logf" "$name node $((i + 1))"
      if health_ok "$port"; then ok=1; break; fi
      sleep 0.5
    done
    (( ok )) || { echo "run-benchmark: $name node $((i + 1)) did not answer GET /health within 120 s, see $logf" >&2; exit 1; }
    log "$name node $((i + 1)) answers /health"
  done
  # One cluster: a queue created through the first node takes a message through every node. A node alone (not
  # joined) refuses messages (split-brain protection needs 2 members) or does not know the queue.
  for _ in $(seq 1 120); do
    if sqs_create_queue "${ports[0]}" bench-ready; then break; fi
    sleep 0.5
  done
  queue_url="http://127.0.0.1:${ports[0]}/000000000000/bench-ready"
  for ((i = 0; i < CLUSTER_NODES; i++)); do
    local ok=0
    for _ in $(seq 1 120); do
      local j
      for ((j = 0; j < CLUSTER_NODES; j++)); do require_alive "${pids[j]}" "${logs[j]}" "$name node $((j + 1))"; done
      if sqs_send "${ports[i]}" "$queue_url"; then ok=1; break; fi
      sleep 0.5
    done
    (( ok )) || { echo "run-benchmark: $name node $((i + 1)) does not store messages of a queue created on node 1 within 60 s (not one cluster?), see $OUT/$name-node$((i + 1)).server.log" >&2; exit 1; }
  done
  log "$name is ready: $CLUSTER_NODES nodes, one cluster"
}

run_sim() { # target endpoints simulation label duration users prefill [noReports]
  local broker=$1 endpoints=$2 sim=$3 label=$4 duration=$5 users=$6 prefill=$7 noreports=${8:-false}
  local name="$broker-$label"
  log "  $label: $sim for ${duration}s with $users users"
  if ! timeout --kill-after=10 "$RUN_TIMEOUT" flock "$LOCK" mvn -B -o -P load -pl load-tests -f "$ROOT/pom.xml" \
      gatling:test -Dgatling.simulationClass="io.sluice.load.$sim" \
      -Dsqs.endpoint="${endpoints%%,*}" -Dsqs.endpoints="$endpoints" \
      -Dusers="$users" -Dduration="$duration" -Dprefill="$prefill" \
      -Dgatling.results="$OUT/gatling/$name" -Dbench.out="$OUT/$name.properties" \
      -Dgatling.noReports="$noreports" >"$OUT/$name.log" 2>&1; then
    echo "run-benchmark: $sim against $broker failed, see $OUT/$name.log" >&2
    tail -30 "$OUT/$name.log" >&2
    exit 1
  fi
}

bench_target() { # target: start it, warm it, measure it, stop it
  local name=$1 endpoints i
  case "$name" in
    sluice)
      start_server sluice "$SLUICE_PORT" \
        java "${JVM_OPTS[@]}" -jar "$OUT/sluice.jar" --host 127.0.0.1 --port "$SLUICE_PORT"
      endpoints="http://127.0.0.1:$SLUICE_PORT"
      ;;
    sluice3)
      start_cluster sluice3
      endpoints=""
      for ((i = 0; i < CLUSTER_NODES; i++)); do endpoints+="${endpoints:+,}http://127.0.0.1:$((SLUICE_PORT + 10 * i))"; done
      ;;
    elasticmq)
      local emq_conf="$OUT/elasticmq.conf"
      sed -e "s/9325/$ELASTICMQ_PORT/g" "$HERE/elasticmq/elasticmq.conf" >"$emq_conf"
      start_server elasticmq "$ELASTICMQ_PORT" \
        java "${JVM_OPTS[@]}" -Dconfig.file="$emq_conf" -Dlogback.configurationFile="$HERE/elasticmq/logback.xml" \
        -cp "$EMQ_LIB/*" org.elasticmq.server.Main
      endpoints="http://127.0.0.1:$ELASTICMQ_PORT"
      ;;
  esac
  log "warming $name for ${WARMUP}s per workload (endpoints $endpoints)"
  run_sim "$name" "$endpoints" SendSimulation warmup-send "$WARMUP" 8 0 true
  run_sim "$name" "$endpoints" ReceiveDeleteSimulation warmup-receive "$WARMUP" 8 20000 true
  log "measuring $name"
  run_sim "$name" "$endpoints" SendSimulation send "$DURATION" "$USERS" 0
  run_sim "$name" "$endpoints" ReceiveDeleteSimulation receive-delete "$DURATION" "$USERS" "$PREFILL"
  log "stopping $name"
  stop_servers
}

jar_ok() { # path -> 0 when it is a complete jar with a Main-Class (not one a concurrent build is rewriting)
  python3 - "$1" <<'PY'
import sys, zipfile
try:
    with zipfile.ZipFile(sys.argv[1]) as z:
        ok = z.testzip() is None and b"Main-Class:" in z.read("META-INF/MANIFEST.MF")
except Exception:
    ok = False
sys.exit(0 if ok else 1)
PY
}

log "results in $OUT; targets ${TARGET_LIST[*]}"
if [[ "$WANTS_SLUICE" == 1 && "$BUILD_BROKER" != 0 ]]; then
  log "building broker/target/sluice.jar"
  (cd "$ROOT" && mvn_prefer_offline "$OUT/build-broker.log" -pl broker -DskipTests package) || {
    echo "run-benchmark: the broker does not build; BUILD_BROKER=0 measures the existing broker/target/sluice.jar" >&2
    exit 1
  }
fi
if [[ "$WANTS_SLUICE" == 1 ]]; then
  [[ -f "$ROOT/broker/target/sluice.jar" ]] || { echo "run-benchmark: no broker/target/sluice.jar" >&2; exit 1; }
  # Run a copy, so a rebuild of the broker during the benchmark cannot change the jar under the JVM. Other builds
  # on this machine may be rewriting the jar right now: copy again (for at most 2 minutes) until the copy is whole.
  for attempt in $(seq 1 25); do
    cp -p "$ROOT/broker/target/sluice.jar" "$OUT/sluice.jar" 2>/dev/null && jar_ok "$OUT/sluice.jar" && break
    (( attempt < 25 )) || { echo "run-benchmark: broker/target/sluice.jar is not a complete jar (being rebuilt?)" >&2; exit 1; }
    log "broker/target/sluice.jar is incomplete (a build is writing it?); copying again in 5 s"
    sleep 5
  done
  log "sluice.jar built $(date -u -r "$OUT/sluice.jar" '+%Y-%m-%d %H:%M:%SZ' 2>/dev/null || echo '?'), sha256 $(sha256sum "$OUT/sluice.jar" | cut -c1-12)"
fi
log "compiling the simulations"
(cd "$ROOT" && mvn_prefer_offline "$OUT/build-load-tests.log" -P load -pl load-tests test-compile) || exit 1
if wants elasticmq && ! compgen -G "$EMQ_LIB/elasticmq-server_2.13-*.jar" >/dev/null; then
  log "copying ElasticMQ 1.7.1 and its dependencies into $EMQ_LIB"
  mvn_prefer_offline "$OUT/fetch-elasticmq.log" -f "$HERE/elasticmq/pom.xml" dependency:copy-dependencies || exit 1
fi

JVM_OPTS=(-Xms"$HEAP" -Xmx"$HEAP")
for target in "${TARGET_LIST[@]}"; do
  bench_target "$target"
done

python3 - "$OUT" "$DURATION" "$USERS" "$PREFILL" "$HEAP" "$(IFS=,; echo "${TARGET_LIST[*]}")" <<'PY' | tee "$OUT/summary.md"
import glob, html, os, re, sys

out, duration, users, prefill, heap, targets = sys.argv[1:7]
targets = targets.split(",")
SHOWN = {"sluice": "Sluice", "sluice3": "Sluice, 3 nodes", "elasticmq": "ElasticMQ 1.7.1"}

def props(path):
    d = {}
    with open(path) as f:
        for line in f:
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                d[k] = v
    return d

ROW = re.compile(r'<tr id="([^"]+)"[^>]*>(.*?)</tr>', re.S)
NAME = re.compile(r'class="ellipsed-name">([^<]*)<')
CELL = re.compile(r'<td class="value [a-z]+ col-(\d+)">([^<]*)</td>')

def gatling_rows(run_dir):
    """Rows of the statistics table in Gatling's index.html: name -> {total, ok, ko, rps, p50, p99, ...}."""
    pages = glob.glob(os.path.join(run_dir, "*", "index.html"))
    if not pages:
        raise SystemExit("no Gatling report under " + run_dir)
    with open(max(pages, key=os.path.getmtime)) as f:
        text = f.read()
    cols = {2: "total", 3: "ok", 4: "ko", 6: "rps", 7: "min", 8: "p50", 9: "p75", 10: "p95", 11: "p99", 12: "max", 13: "mean"}
    rows = {}
    for rid, body in ROW.findall(text):
        m = NAME.search(body)
        cells = {cols[int(c)]: v.strip() for c, v in CELL.findall(body) if int(c) in cols}
        if m and cells:
            rows["All Requests" if rid == "ROOT" else html.unescape(m.group(1))] = cells
    return rows

def num(s):
    return float(s.replace(",", "")) if s not in ("", "-") else 0.0

lines = []
lines.append(f"Measured {duration} s per run, {users} users, pre-fill {prefill} messages, heap {heap} for each broker JVM"
             + (" (each node of a cluster)." if "sluice3" in targets else "."))
lines.append("")
lines.append("| Simulation | Broker | requests/s | messages/s | p50 ms | p99 ms | requests | KO | seconds |")
lines.append("|---|---|---:|---:|---:|---:|---:|---:|---:|")
detail = []
spread = []
for sim, label in (("SendSimulation", "send"), ("ReceiveDeleteSimulation", "receive-delete")):
    for broker in targets:
        shown = SHOWN[broker]
        name = f"{broker}-{label}"
        p = props(os.path.join(out, name + ".properties"))
        rows = gatling_rows(os.path.join(out, "gatling", name))
        allr = rows["All Requests"]
        secs = float(p["seconds"])
        total = num(allr["total"])
        rps = total / secs if secs > 0 else 0.0
        lines.append(f"| {sim} | {shown} | {rps:,.0f} | {float(p['messagesPerSecond']):,.0f} | "
                     f"{allr['p50']} | {allr['p99']} | {int(total):,} | {allr['ko']} | {secs:.1f} |")
        if int(p.get("endpoints", "1")) > 1:
            spread.append(f"| {sim} | {shown} | {p.get('usersByEndpoint', '?').replace(',', ' / ')} | "
                          f"{' / '.join(f'{int(x):,}' for x in p.get('messagesByEndpoint', '0').split(','))} |")
        for req, r in rows.items():
            if req != "All Requests" and len(rows) > 2:
                detail.append(f"| {sim} | {shown} | {req} | {int(num(r['total'])):,} | {r['p50']} | {r['p95']} | {r['p99']} | {r['max']} |")
lines.append("")
lines.append("requests/s and messages/s are divided by 'seconds', the time from the first request to the last completed one")
lines.append("(a ReceiveDelete run ends early when the pre-filled queue is drained);")
lines.append("p50/p99 are Gatling's, over all requests of the run (ReceiveMessage and DeleteMessageBatch together).")
if detail:
    lines.append("")
    lines.append("| Simulation | Broker | request | count | p50 ms | p95 ms | p99 ms | max ms |")
    lines.append("|---|---|---|---:|---:|---:|---:|---:|")
    lines.extend(detail)
if spread:
    lines.append("")
    lines.append("Load per node of a cluster (node 1 / node 2 / ...; each user is pinned to one node, round-robin):")
    lines.append("")
    lines.append("| Simulation | Broker | users per node | messages per node |")
    lines.append("|---|---|---|---:|")
    lines.extend(spread)
print("\n".join(lines))
PY
log "done: $OUT/summary.md"
