#!/usr/bin/env bash
# Sluice vs ElasticMQ 1.7.1 on this machine: the same two Gatling simulations against each, one broker at a time.
#
#   load-tests/run-benchmark.sh            # 20 s per measured run (DURATION=20)
#   DURATION=30 USERS=32 PREFILL=100000 load-tests/run-benchmark.sh
#
# Knobs (environment): DURATION seconds per measured run (default 20), USERS virtual users (32),
# PREFILL messages for ReceiveDeleteSimulation (100000), HEAP for both brokers (512m),
# WARMUP seconds of load before measuring (10), SLUICE_PORT (9324), ELASTICMQ_PORT (9325),
# BUILD_BROKER=0 to skip the broker build and measure the broker/target/sluice.jar already there.
#
# It builds broker/target/sluice.jar, copies ElasticMQ and its dependencies from Maven Central (through Maven)
# into load-tests/target/elasticmq/lib, then for each broker: starts it, warms it, runs SendSimulation and
# ReceiveDeleteSimulation, stops it. Results go to load-tests/target/benchmark/<timestamp>/ and the
# side-by-side table is printed at the end (and written to summary.md there).
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
for tool in java mvn flock curl python3 timeout; do
  command -v "$tool" >/dev/null || { echo "run-benchmark: needs $tool on PATH" >&2; exit 2; }
done
mkdir -p "$OUT"

SERVER_PID=""
stop_server() {
  if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  SERVER_PID=""
}
trap stop_server EXIT
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

start_server() { # name port command...
  local name=$1 port=$2; shift 2
  port_free "$port" || { echo "run-benchmark: port $port is already in use; not starting $name" >&2; exit 1; }
  log "starting $name on 127.0.0.1:$port (heap $HEAP)"
  "$@" >"$OUT/$name.server.log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 1 120); do
    kill -0 "$SERVER_PID" 2>/dev/null || { echo "run-benchmark: $name exited, see $OUT/$name.server.log" >&2; tail -20 "$OUT/$name.server.log" >&2; exit 1; }
    if sqs_create_queue "$port" bench-ready; then log "$name is ready"; return 0; fi
    sleep 0.5
  done
  echo "run-benchmark: $name did not answer within 60 s" >&2
  exit 1
}

run_sim() { # broker port simulation label duration users prefill [noReports]
  local broker=$1 port=$2 sim=$3 label=$4 duration=$5 users=$6 prefill=$7 noreports=${8:-false}
  local name="$broker-$label"
  log "  $label: $sim for ${duration}s with $users users"
  if ! timeout --kill-after=10 "$RUN_TIMEOUT" flock "$LOCK" mvn -B -o -P load -pl load-tests -f "$ROOT/pom.xml" \
      gatling:test -Dgatling.simulationClass="io.sluice.load.$sim" \
      -Dsqs.endpoint="http://127.0.0.1:$port" -Dusers="$users" -Dduration="$duration" -Dprefill="$prefill" \
      -Dgatling.results="$OUT/gatling/$name" -Dbench.out="$OUT/$name.properties" \
      -Dgatling.noReports="$noreports" >"$OUT/$name.log" 2>&1; then
    echo "run-benchmark: $sim against $broker failed, see $OUT/$name.log" >&2
    tail -30 "$OUT/$name.log" >&2
    exit 1
  fi
}

bench_broker() { # name port command...
  local name=$1 port=$2; shift 2
  start_server "$name" "$port" "$@"
  log "warming $name for ${WARMUP}s per workload"
  run_sim "$name" "$port" SendSimulation warmup-send "$WARMUP" 8 0 true
  run_sim "$name" "$port" ReceiveDeleteSimulation warmup-receive "$WARMUP" 8 20000 true
  log "measuring $name"
  run_sim "$name" "$port" SendSimulation send "$DURATION" "$USERS" 0
  run_sim "$name" "$port" ReceiveDeleteSimulation receive-delete "$DURATION" "$USERS" "$PREFILL"
  log "stopping $name"
  stop_server
}

log "results in $OUT"
if [[ "$BUILD_BROKER" != 0 ]]; then
  log "building broker/target/sluice.jar"
  (cd "$ROOT" && mvn_prefer_offline "$OUT/build-broker.log" -pl broker -DskipTests package) || {
    echo "run-benchmark: the broker does not build; BUILD_BROKER=0 measures the existing broker/target/sluice.jar" >&2
    exit 1
  }
fi
[[ -f "$ROOT/broker/target/sluice.jar" ]] || { echo "run-benchmark: no broker/target/sluice.jar" >&2; exit 1; }
# Run a copy, so a rebuild of the broker during the benchmark cannot change the jar under the JVM.
cp -p "$ROOT/broker/target/sluice.jar" "$OUT/sluice.jar"
log "sluice.jar built $(date -u -r "$OUT/sluice.jar" '+%Y-%m-%d %H:%M:%SZ' 2>/dev/null || echo '?'), sha256 $(sha256sum "$OUT/sluice.jar" | cut -c1-12)"
log "compiling the simulations"
(cd "$ROOT" && mvn_prefer_offline "$OUT/build-load-tests.log" -P load -pl load-tests test-compile) || exit 1
if ! compgen -G "$EMQ_LIB/elasticmq-server_2.13-*.jar" >/dev/null; then
  log "copying ElasticMQ 1.7.1 and its dependencies into $EMQ_LIB"
  mvn_prefer_offline "$OUT/fetch-elasticmq.log" -f "$HERE/elasticmq/pom.xml" dependency:copy-dependencies || exit 1
fi

JVM_OPTS=(-Xms"$HEAP" -Xmx"$HEAP")
bench_broker sluice "$SLUICE_PORT" \
  java "${JVM_OPTS[@]}" -jar "$OUT/sluice.jar" --host 127.0.0.1 --port "$SLUICE_PORT"
EMQ_CONF="$OUT/elasticmq.conf"
sed -e "s/9325/$ELASTICMQ_PORT/g" "$HERE/elasticmq/elasticmq.conf" >"$EMQ_CONF"
bench_broker elasticmq "$ELASTICMQ_PORT" \
  java "${JVM_OPTS[@]}" -Dconfig.file="$EMQ_CONF" -Dlogback.configurationFile="$HERE/elasticmq/logback.xml" \
  -cp "$EMQ_LIB/*" org.elasticmq.server.Main

python3 - "$OUT" "$DURATION" "$USERS" "$PREFILL" "$HEAP" <<'PY' | tee "$OUT/summary.md"
import glob, html, os, re, sys

out, duration, users, prefill, heap = sys.argv[1:6]

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
lines.append(f"Measured {duration} s per run, {users} users, pre-fill {prefill} messages, heap {heap} for each broker.")
lines.append("")
lines.append("| Simulation | Broker | requests/s | messages/s | p50 ms | p99 ms | requests | KO | seconds |")
lines.append("|---|---|---:|---:|---:|---:|---:|---:|---:|")
detail = []
for sim, label in (("SendSimulation", "send"), ("ReceiveDeleteSimulation", "receive-delete")):
    for broker, shown in (("sluice", "Sluice"), ("elasticmq", "ElasticMQ 1.7.1")):
        name = f"{broker}-{label}"
        p = props(os.path.join(out, name + ".properties"))
        rows = gatling_rows(os.path.join(out, "gatling", name))
        allr = rows["All Requests"]
        secs = float(p["seconds"])
        total = num(allr["total"])
        rps = total / secs if secs > 0 else 0.0
        lines.append(f"| {sim} | {shown} | {rps:,.0f} | {float(p['messagesPerSecond']):,.0f} | "
                     f"{allr['p50']} | {allr['p99']} | {int(total):,} | {allr['ko']} | {secs:.1f} |")
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
print("\n".join(lines))
PY
log "done: $OUT/summary.md"
