#!/usr/bin/env bash
# Sluice (one node, three nodes) vs ElasticMQ 1.7.1 on this machine, with the Gatling simulation SqsSimulation.
#
#   load-tests/run-benchmark.sh                          # the full run: every scenario, both protocols,
#                                                        # sluice, sluice3, elasticmq alternating, 2 rounds,
#                                                        # 60 s warm-up, then the memory measurement
#   QUICK=1 TARGETS=sluice load-tests/run-benchmark.sh   # a short check (a few minutes; figures mean nothing)
#
# Knobs (environment; see load-tests/README.md for the full table):
#   MODE        throughput | memory | all (all)
#   TARGETS     comma-separated from sluice, sluice3, elasticmq (sluice,sluice3,elasticmq); measured in this order
#               in every round, so targets alternate (A B C A B C ...)
#   ROUNDS      rounds of the throughput mode (2); the summary shows the median of the rounds
#   SCENARIOS   send,batch,recvdel,fifo,e2e (all five);  PROTOCOLS json,query (both; e2e uses E2E_PROTOCOL, json)
#   E2E_RATES   producer rates of the e2e scenario in msg/s (300,1000)
#   E2E_WARMUP  seconds the e2e producer runs before latencies count: the Gatling JVM starts cold (45)
#   CLIENT_WARMUP  seconds every send, batch, recvdel and fifo run first warms up its own (cold) Gatling JVM on
#               queues of its own, not measured (45; 0 = measure from the first request)
#   DURATION    seconds per measured run (20);  WARMUP seconds of mixed warm-up load after each start (60)
#   CLUSTER_WARMUP  the same for sluice3, whose three JVMs compile on the same cores (WARMUP per node: 3 x WARMUP)
#   USERS (32), PREFILL (1000000), CONSUMERS (4), FIFO_GROUPS (10), MESSAGE_SIZE (100), HEAP (2g)
#   BROKER_JAVA_OPTS  extra JVM options for every Sluice node, split on spaces (e.g. -XX:+PrintCompilation)
#   CLUSTER_EVENT_LOOPS  --event-loops of each sluice3 node: the three share this machine's cores, so each gets
#               its share (cores / 3, at least 1: 1 on 2 cores); 0 = the node's own default (one per core, at least 2)
#   IDLE_SECONDS  CPU of each idle target measured over this many seconds in round 1 (30; 0 = skip)
#   MEMORY_TARGETS (sluice,sluice3), MEMORY_MESSAGES (1000000), MEMORY_MESSAGE_SIZE (256), MEMORY_HEAP (4g)
#   SLUICE3_LOAD  one (all load through node 1, default) | all (users spread over the three nodes)
#   SLUICE_PORT (9324; sluice3 uses it, +10, +20), ELASTICMQ_PORT (9325), BUILD_BROKER (1; 0 = use the jar there)
#   MVN_ARGS    extra arguments for every mvn call, e.g. MVN_ARGS="-Dmaven.repo.local=/tmp/empty-repo"
#   MVN_LOCK    the lock file every mvn call holds (/tmp/sluice-mvn.lock)
#   QUICK=1     smaller defaults for a check: ROUNDS=1 WARMUP=5 DURATION=5 CLIENT_WARMUP=3 E2E_WARMUP=3 PREFILL=5000 IDLE_SECONDS=5
#               MEMORY_MESSAGES=20000 (any knob given explicitly wins)
#
# Results go to load-tests/target/benchmark/<timestamp>/ (summary.md, one properties file per run, logs, Gatling
# reports). Traffic goes to 127.0.0.1 only; every run is bounded; the brokers this script started are stopped on
# exit, by PID.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$HERE")
if [[ "${QUICK:-0}" == 1 ]]; then
  : "${ROUNDS:=1}" "${WARMUP:=5}" "${DURATION:=5}" "${CLIENT_WARMUP:=3}" "${E2E_WARMUP:=3}" "${PREFILL:=5000}" "${IDLE_SECONDS:=5}" "${MEMORY_MESSAGES:=20000}"
fi
MODE=${MODE:-all}
TARGETS=${TARGETS:-sluice,sluice3,elasticmq}
ROUNDS=${ROUNDS:-2}
SCENARIOS=${SCENARIOS:-send,batch,recvdel,fifo,e2e}
PROTOCOLS=${PROTOCOLS:-json,query}
E2E_PROTOCOL=${E2E_PROTOCOL:-json}
E2E_RATES=${E2E_RATES:-300,1000}
DURATION=${DURATION:-20}
WARMUP=${WARMUP:-60}
USERS=${USERS:-32}
PREFILL=${PREFILL:-1000000}
CONSUMERS=${CONSUMERS:-4}
E2E_WARMUP=${E2E_WARMUP:-45}
CLIENT_WARMUP=${CLIENT_WARMUP:-45}
FIFO_GROUPS=${FIFO_GROUPS:-10}
MESSAGE_SIZE=${MESSAGE_SIZE:-100}
HEAP=${HEAP:-2g}
BROKER_JAVA_OPTS=${BROKER_JAVA_OPTS:-}
CORES=$(nproc)
CLUSTER_EVENT_LOOPS=${CLUSTER_EVENT_LOOPS:-$(( CORES / 3 > 1 ? CORES / 3 : 1 ))}
IDLE_SECONDS=${IDLE_SECONDS:-30}
MEMORY_TARGETS=${MEMORY_TARGETS:-sluice,sluice3}
MEMORY_MESSAGES=${MEMORY_MESSAGES:-1000000}
MEMORY_MESSAGE_SIZE=${MEMORY_MESSAGE_SIZE:-256}
MEMORY_HEAP=${MEMORY_HEAP:-4g}
SLUICE3_LOAD=${SLUICE3_LOAD:-one}
BUILD_BROKER=${BUILD_BROKER:-1}
SLUICE_PORT=${SLUICE_PORT:-9324}
ELASTICMQ_PORT=${ELASTICMQ_PORT:-9325}
MVN_LOCK=${MVN_LOCK:-/tmp/sluice-mvn.lock}
read -r -a MVN_EXTRA <<<"${MVN_ARGS:-}"
CLUSTER_NODES=3
# Each node's JVM compiles on the same cores as the others: WARMUP per node.
CLUSTER_WARMUP=${CLUSTER_WARMUP:-$((CLUSTER_NODES * WARMUP))}
CLUSTER_CONFIG="$ROOT/cluster-config/local.yaml"
OUT="$HERE/target/benchmark/$(date -u +%Y%m%dT%H%M%SZ)"
EMQ_LIB="$HERE/target/elasticmq/lib"
SIM=io.sluice.load.SqsSimulation
# The Gatling plugin by its full coordinates (a prefix needs the plugin in the local repository first), with the
# version the pom declares.
GATLING_PLUGIN_VERSION=$(sed -n 's:.*<gatling-maven-plugin.version>\(.*\)</gatling-maven-plugin.version>.*:\1:p' "$HERE/pom.xml")
GATLING_TEST="io.gatling:gatling-maven-plugin:$GATLING_PLUGIN_VERSION:test"

die() { echo "run-benchmark: $*" >&2; exit 2; }
for n in ROUNDS DURATION WARMUP CLUSTER_WARMUP E2E_WARMUP CLIENT_WARMUP USERS PREFILL CONSUMERS FIFO_GROUPS MESSAGE_SIZE IDLE_SECONDS MEMORY_MESSAGES \
  MEMORY_MESSAGE_SIZE SLUICE_PORT ELASTICMQ_PORT; do
  [[ ${!n} =~ ^[0-9]+$ ]] || die "$n must be a number, got '${!n}'"
done
[[ -n "$GATLING_PLUGIN_VERSION" ]] || die "cannot read gatling-maven-plugin.version from $HERE/pom.xml"
(( ROUNDS >= 1 && ROUNDS <= 20 )) || die "ROUNDS must be 1..20"
(( DURATION >= 3 && DURATION <= 600 )) || die "DURATION must be 3..600"
(( WARMUP <= 1800 && CLUSTER_WARMUP <= 1800 )) || die "WARMUP and CLUSTER_WARMUP must be at most 1800"
(( E2E_WARMUP <= 600 )) || die "E2E_WARMUP must be at most 600"
(( CLIENT_WARMUP <= 600 )) || die "CLIENT_WARMUP must be at most 600"
(( USERS >= 1 && USERS <= 256 )) || die "USERS must be 1..256"
(( PREFILL <= 1000000 )) || die "PREFILL must be at most 1000000"
(( CONSUMERS >= 1 && CONSUMERS <= 64 && FIFO_GROUPS >= 1 && FIFO_GROUPS <= 100 )) || die "CONSUMERS 1..64, FIFO_GROUPS 1..100"
(( MESSAGE_SIZE >= 32 && MESSAGE_SIZE <= 262144 && MEMORY_MESSAGE_SIZE >= 32 && MEMORY_MESSAGE_SIZE <= 262144 )) \
  || die "MESSAGE_SIZE and MEMORY_MESSAGE_SIZE must be 32..262144"
(( IDLE_SECONDS <= 600 )) || die "IDLE_SECONDS must be at most 600"
(( MEMORY_MESSAGES >= 1000 && MEMORY_MESSAGES <= 10000000 )) || die "MEMORY_MESSAGES must be 1000..10000000"
(( SLUICE_PORT >= 1 && SLUICE_PORT + 10 * (CLUSTER_NODES - 1) <= 65535 && ELASTICMQ_PORT >= 1 && ELASTICMQ_PORT <= 65535 )) \
  || die "SLUICE_PORT (+20) and ELASTICMQ_PORT must be TCP ports"
[[ "$MODE" =~ ^(throughput|memory|all)$ ]] || die "MODE must be throughput, memory or all"
[[ "$SLUICE3_LOAD" =~ ^(one|all)$ ]] || die "SLUICE3_LOAD must be one or all"
[[ "$HEAP" =~ ^[0-9]+[mg]$ && "$MEMORY_HEAP" =~ ^[0-9]+[mg]$ ]] || die "HEAP and MEMORY_HEAP look like 512m or 4g"

LIST=()
split_list() { # name value allowed-regex -> LIST: the items; rejects unknown and repeated ones (runs in this shell)
  local name=$1 value=$2 allowed=$3 item seen=" " items=()
  LIST=()
  IFS=',' read -r -a items <<<"$value"
  for item in "${items[@]}"; do
    item=${item//[[:space:]]/}
    [[ -z "$item" ]] && continue
    [[ "$item" =~ ^($allowed)$ ]] || die "unknown '$item' in $name (known: ${allowed//|/, })"
    [[ "$seen" != *" $item "* ]] || die "'$item' is listed twice in $name"
    seen+="$item "
    LIST+=("$item")
  done
}
split_list TARGETS "$TARGETS" 'sluice|sluice3|elasticmq'; TARGET_LIST=("${LIST[@]}")
split_list MEMORY_TARGETS "$MEMORY_TARGETS" 'sluice|sluice3|elasticmq'; MEMORY_LIST=("${LIST[@]}")
split_list SCENARIOS "$SCENARIOS" 'send|batch|recvdel|fifo|e2e'; SCENARIO_LIST=("${LIST[@]}")
split_list PROTOCOLS "$PROTOCOLS" 'json|query'; PROTOCOL_LIST=("${LIST[@]}")
split_list E2E_RATES "$E2E_RATES" '[0-9]+'; RATE_LIST=("${LIST[@]}")
[[ "$E2E_PROTOCOL" =~ ^(json|query)$ ]] || die "E2E_PROTOCOL must be json or query"
for r in "${RATE_LIST[@]}"; do (( r >= 1 && r <= 20000 )) || die "an E2E_RATES rate must be 1..20000"; done
if [[ "$MODE" != memory ]]; then
  (( ${#TARGET_LIST[@]} > 0 && ${#SCENARIO_LIST[@]} > 0 && ${#PROTOCOL_LIST[@]} > 0 )) || die "TARGETS, SCENARIOS and PROTOCOLS must name something"
else
  TARGET_LIST=()
fi
[[ "$MODE" == throughput ]] && MEMORY_LIST=()
(( ${#TARGET_LIST[@]} + ${#MEMORY_LIST[@]} > 0 )) || die "nothing to measure"
uses() { local t x; for t in "${TARGET_LIST[@]}" "${MEMORY_LIST[@]}"; do for x in "$@"; do [[ "$t" == "$x" ]] && return 0; done; done; return 1; }
if uses sluice3; then [[ -f "$CLUSTER_CONFIG" ]] || die "sluice3 needs $CLUSTER_CONFIG"; fi
for tool in java jcmd mvn flock curl python3 timeout getconf sha256sum; do
  command -v "$tool" >/dev/null || die "needs $tool on PATH"
done
CLK_TCK=$(getconf CLK_TCK)
mkdir -p "$OUT/runs" "$OUT/logs"

# ---- processes ----

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

mvn_locked() { flock "$MVN_LOCK" mvn -B -q "${MVN_EXTRA[@]}" "$@"; }

# Offline first (nothing to fetch once the local repository has it); online through Maven Central only if that fails.
mvn_prefer_offline() {
  local logf=$1; shift
  if ! mvn_locked -o "$@" >"$logf" 2>&1; then
    mvn_locked "$@" >>"$logf" 2>&1 || { echo "run-benchmark: mvn $* failed, see $logf" >&2; tail -20 "$logf" >&2; return 1; }
  fi
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

sqs_json() { # port action json-body -> 0 when the broker answered 200
  local code
  code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 -X POST "http://127.0.0.1:$1/" \
    -H "X-Amz-Target: AmazonSQS.$2" -H "Content-Type: application/x-amz-json-1.0" -d "$3" || true)
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

# Starts a target; sets SERVER_PIDS (all its JVMs), ENDPOINTS (where the load goes) and NODE_PORTS.
start_target() { # target heap logname
  local target=$1 heap=$2 logname=$3 port pid logf i
  # Every broker JVM, Sluice's and ElasticMQ's alike, as k8s/ runs Sluice: without the JVM's
  # statistics sampling (20 wakes a second, a sixth of an idle node's CPU on this VM).
  local jvm=(-XX:-UsePerfData -Xmx"$heap")
  [[ "$logname" == memory-* ]] || jvm+=(-Xms"$heap")
  local sluice_jvm=("${jvm[@]}")
  # shellcheck disable=SC2206 # split on spaces on purpose: a list of JVM options
  [[ -z "$BROKER_JAVA_OPTS" ]] || sluice_jvm+=($BROKER_JAVA_OPTS)
  NODE_PORTS=()
  case "$target" in
    sluice) NODE_PORTS=("$SLUICE_PORT") ;;
    sluice3) for ((i = 0; i < CLUSTER_NODES; i++)); do NODE_PORTS+=($((SLUICE_PORT + 10 * i))); done ;;
    elasticmq) NODE_PORTS=("$ELASTICMQ_PORT") ;;
  esac
  for port in "${NODE_PORTS[@]}"; do
    port_free "$port" || { echo "run-benchmark: port $port is already in use; not starting $target" >&2; exit 1; }
  done
  if [[ "$target" == sluice3 ]] && command -v pgrep >/dev/null; then
    # Another cluster started from the same file (same cluster name, same Hazelcast ports) would take our nodes in.
    local others
    others=$(pgrep -f -- "--cluster-config [^ ]*cluster-config/local\.yaml" || true)
    [[ -z "$others" ]] || { echo "run-benchmark: Sluice nodes started with cluster-config/local.yaml are already running (pid $(echo $others)); our nodes would join their cluster" >&2; exit 1; }
  fi
  for ((i = 0; i < ${#NODE_PORTS[@]}; i++)); do
    port=${NODE_PORTS[i]}
    logf="$OUT/logs/$logname-node$((i + 1)).server.log"
    log "starting $target node $((i + 1)) on 127.0.0.1:$port (heap $heap)"
    case "$target" in
      sluice) java "${sluice_jvm[@]}" -jar "$OUT/sluice.jar" --host 127.0.0.1 --port "$port" >"$logf" 2>&1 & ;;
      sluice3) java "${sluice_jvm[@]}" -jar "$OUT/sluice.jar" --host 127.0.0.1 --port "$port" --cluster-config "$CLUSTER_CONFIG" \
          --event-loops "$CLUSTER_EVENT_LOOPS" >"$logf" 2>&1 & ;;
      elasticmq)
        sed -e "s/9325/$port/g" "$HERE/elasticmq/elasticmq.conf" >"$OUT/elasticmq.conf"
        java "${jvm[@]}" -Dconfig.file="$OUT/elasticmq.conf" -Dlogback.configurationFile="$HERE/elasticmq/logback.xml" \
          -cp "$EMQ_LIB/*" org.elasticmq.server.Main >"$logf" 2>&1 & ;;
    esac
    pid=$!
    SERVER_PIDS+=("$pid")
    local ok=0
    for _ in $(seq 1 240); do
      require_alive "$pid" "$logf" "$target node $((i + 1))"
      if [[ "$target" == elasticmq ]]; then
        sqs_json "$port" CreateQueue '{"QueueName":"bench-ready"}' && { ok=1; break; }
      else
        health_ok "$port" && { ok=1; break; }
      fi
      sleep 0.5
    done
    (( ok )) || { echo "run-benchmark: $target node $((i + 1)) did not answer within 120 s, see $logf" >&2; exit 1; }
  done
  # Ready: a queue created through the first node takes a message through every node (for a cluster: one cluster;
  # a node alone refuses messages, split-brain protection needs 2 members).
  local url="http://127.0.0.1:${NODE_PORTS[0]}/000000000000/bench-ready"
  for ((i = 0; i < ${#NODE_PORTS[@]}; i++)); do
    local ok=0
    for _ in $(seq 1 120); do
      local p
      for p in "${SERVER_PIDS[@]}"; do require_alive "$p" "$OUT/logs/$logname-node1.server.log" "$target"; done
      if sqs_json "${NODE_PORTS[0]}" CreateQueue '{"QueueName":"bench-ready"}' \
        && sqs_json "${NODE_PORTS[i]}" SendMessage "{\"QueueUrl\":\"$url\",\"MessageBody\":\"ready\"}"; then ok=1; break; fi
      sleep 0.5
    done
    (( ok )) || { echo "run-benchmark: $target node $((i + 1)) does not store messages of a queue created on node 1 within 60 s" >&2; exit 1; }
  done
  sqs_json "${NODE_PORTS[0]}" DeleteQueue "{\"QueueUrl\":\"$url\"}" || true
  ENDPOINTS="http://127.0.0.1:${NODE_PORTS[0]}"
  if [[ "$target" == sluice3 && "$SLUICE3_LOAD" == all ]]; then
    ENDPOINTS=""
    for port in "${NODE_PORTS[@]}"; do ENDPOINTS+="${ENDPOINTS:+,}http://127.0.0.1:$port"; done
  fi
  log "$target is ready (pid ${SERVER_PIDS[*]}); load goes to $ENDPOINTS"
}

cpu_ticks() { # pid -> utime + stime in clock ticks (fields 14 and 15 of /proc/pid/stat)
  local stat
  stat=$(<"/proc/$1/stat")
  stat=${stat##*) }
  read -r -a f <<<"$stat"
  echo $((f[11] + f[12]))
}

measure_idle() { # target: CPU of its JVMs while nothing talks to them
  local target=$1 before=() after=() i ticks total=0 per=""
  sleep 5
  for pid in "${SERVER_PIDS[@]}"; do before+=("$(cpu_ticks "$pid")"); done
  log "  idle: measuring $target's CPU for ${IDLE_SECONDS}s with no load"
  sleep "$IDLE_SECONDS"
  for pid in "${SERVER_PIDS[@]}"; do after+=("$(cpu_ticks "$pid")"); done
  for ((i = 0; i < ${#SERVER_PIDS[@]}; i++)); do
    ticks=$((after[i] - before[i]))
    total=$((total + ticks))
    per+="${per:+,}$ticks"
  done
  printf 'target=%s\nseconds=%s\nclkTck=%s\nticks=%s\nticksByNode=%s\n' "$target" "$IDLE_SECONDS" "$CLK_TCK" "$total" "$per" \
    >"$OUT/runs/idle-$target.properties"
}

run_sim() { # target name workload protocol duration [-Dkey=value ...]
  local target=$1 name=$2 workload=$3 proto=$4 duration=$5; shift 5
  local timeout_s=$((duration + 400))
  [[ "$workload" == fill ]] && timeout_s=$((MEMORY_MESSAGES / 500 + 600))
  local reports=true
  [[ "$workload" == warmup || "$workload" == fill ]] && reports=false
  log "  $name: $workload over $proto, ${duration}s"
  if ! flock "$MVN_LOCK" timeout --kill-after=10 "$timeout_s" mvn -B -o "${MVN_EXTRA[@]}" -P load -pl load-tests \
      -f "$ROOT/pom.xml" "$GATLING_TEST" -Dgatling.simulationClass="$SIM" \
      -Dworkload="$workload" -Dprotocol="$proto" -Dsqs.endpoints="$ENDPOINTS" -Dduration="$duration" \
      -Dusers="$USERS" -Dconsumers="$CONSUMERS" -De2eWarmup="$E2E_WARMUP" -DclientWarmup="$CLIENT_WARMUP" -Dgroups="$FIFO_GROUPS" -DmessageSize="${RUN_SIZE:-$MESSAGE_SIZE}" \
      -Dprefill="${RUN_PREFILL:-$PREFILL}" -Dbench.serverPids="$(IFS=,; echo "${SERVER_PIDS[*]}")" -Dbench.clkTck="$CLK_TCK" \
      -Dgatling.results="$OUT/gatling/$name" -Dbench.out="$OUT/runs/$name.properties" \
      -Dgatling.noReports="$([[ $reports == true ]] && echo false || echo true)" "$@" >"$OUT/logs/$name.log" 2>&1; then
    echo "run-benchmark: $workload over $proto against $target failed, see $OUT/logs/$name.log" >&2
    tail -30 "$OUT/logs/$name.log" >&2
    exit 1
  fi
  local p
  for p in "${SERVER_PIDS[@]}"; do require_alive "$p" "$OUT/logs/$name.log" "$target"; done
}

# One target in one round: start, (idle), warm up, every scenario, stop.
bench_round() { # target round
  local target=$1 round=$2 s proto rate
  start_target "$target" "$HEAP" "r$round-$target"
  local warmup=$WARMUP
  [[ "$target" == sluice3 ]] && warmup=$CLUSTER_WARMUP
  if (( warmup > 0 )); then
    run_sim "$target" "$target-r$round-warmup" warmup json "$warmup"
  fi
  if (( round == 1 && IDLE_SECONDS > 0 )); then measure_idle "$target"; fi
  for s in "${SCENARIO_LIST[@]}"; do
    case "$s" in
      e2e)
        for rate in "${RATE_LIST[@]}"; do
          run_sim "$target" "$target-r$round-e2e-$E2E_PROTOCOL-$rate" e2e "$E2E_PROTOCOL" "$DURATION" -Drate="$rate"
        done ;;
      *)
        for proto in "${PROTOCOL_LIST[@]}"; do
          run_sim "$target" "$target-r$round-$s-$proto" "$s" "$proto" "$DURATION"
        done ;;
    esac
  done
  log "stopping $target"
  stop_servers
}

heap_live() { # pid -> live heap bytes after a full GC (the Total line of GC.class_histogram, which collects first)
  timeout 300 jcmd "$1" GC.run >/dev/null
  timeout 300 jcmd "$1" GC.class_histogram | awk '$1 == "Total" { print $3 }'
}

heap_used_kib() { # pid -> "used" of GC.heap_info (KiB), for reference
  timeout 60 jcmd "$1" GC.heap_info | sed -n 's/.* heap .*used \([0-9]*\)K.*/\1/p' | head -1
}

bench_memory() { # target: store MEMORY_MESSAGES messages, measure the live heap of every JVM before and after
  local target=$1 i before=() after=() used_before=() used_after=() pid
  start_target "$target" "$MEMORY_HEAP" "memory-$target"
  ENDPOINTS="http://127.0.0.1:${NODE_PORTS[0]}"
  sleep 5
  for pid in "${SERVER_PIDS[@]}"; do before+=("$(heap_live "$pid")"); used_before+=("$(heap_used_kib "$pid")"); done
  log "  memory: empty $target, live heap ${before[*]} bytes"
  RUN_PREFILL=$MEMORY_MESSAGES RUN_SIZE=$MEMORY_MESSAGE_SIZE run_sim "$target" "memory-$target-fill" fill json 1
  for pid in "${SERVER_PIDS[@]}"; do after+=("$(heap_live "$pid")"); used_after+=("$(heap_used_kib "$pid")"); done
  log "  memory: $target with $MEMORY_MESSAGES messages, live heap ${after[*]} bytes"
  local replicas=1
  [[ "$target" == sluice3 ]] && replicas=$(( $(sed -n 's/^ *backup-count: *\([0-9]*\).*/\1/p' "$CLUSTER_CONFIG" | head -1) + 1 ))
  {
    echo "target=$target"
    echo "messages=$MEMORY_MESSAGES"
    echo "messageSize=$MEMORY_MESSAGE_SIZE"
    echo "replicas=$replicas"
    echo "heap=$MEMORY_HEAP"
    echo "liveBefore=$(IFS=,; echo "${before[*]}")"
    echo "liveAfter=$(IFS=,; echo "${after[*]}")"
    echo "usedKiBBefore=$(IFS=,; echo "${used_before[*]}")"
    echo "usedKiBAfter=$(IFS=,; echo "${used_after[*]}")"
    grep -E '^(fillSeconds|fillMessagesPerSecond)=' "$OUT/runs/memory-$target-fill.properties" 2>/dev/null || true
  } >"$OUT/runs/memory-$target.properties"
  log "stopping $target"
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

# ---- preparation ----

START_UTC=$(date -u '+%Y-%m-%d %H:%M')
log "results in $OUT; mode $MODE; targets ${TARGET_LIST[*]:-none}; memory ${MEMORY_LIST[*]:-none}"
if uses sluice sluice3; then
  if [[ "$BUILD_BROKER" != 0 ]]; then
    log "building broker/target/sluice.jar"
    (cd "$ROOT" && mvn_prefer_offline "$OUT/logs/build-broker.log" -pl broker -DskipTests package) || {
      echo "run-benchmark: the broker does not build; BUILD_BROKER=0 measures the existing broker/target/sluice.jar" >&2
      exit 1
    }
  fi
  [[ -f "$ROOT/broker/target/sluice.jar" ]] || { echo "run-benchmark: no broker/target/sluice.jar" >&2; exit 1; }
  # Run a copy, so a rebuild of the broker during the benchmark cannot change the jar under the JVM. Other builds
  # on this machine may be rewriting the jar right now: copy again (for at most 2 minutes) until the copy is whole.
  for attempt in $(seq 1 25); do
    cp -p "$ROOT/broker/target/sluice.jar" "$OUT/sluice.jar" 2>/dev/null && jar_ok "$OUT/sluice.jar" && break
    (( attempt < 25 )) || { echo "run-benchmark: broker/target/sluice.jar is not a complete jar (being rebuilt?)" >&2; exit 1; }
    log "broker/target/sluice.jar is incomplete (a build is writing it?); copying again in 5 s"
    sleep 5
  done
  JAR_INFO="built $(date -u -r "$OUT/sluice.jar" '+%Y-%m-%d %H:%M:%SZ'), sha256 $(sha256sum "$OUT/sluice.jar" | cut -c1-12)"
  log "sluice.jar $JAR_INFO"
else
  JAR_INFO="not used"
fi
# Compiles the simulations and resolves the Gatling plugin (its bound execution runs nothing), exactly what
# `mvn -B -P load verify` does for this module; after this, every gatling:test below runs offline.
log "compiling the simulations and resolving the Gatling plugin"
(cd "$ROOT" && mvn_prefer_offline "$OUT/logs/build-load-tests.log" -P load -pl load-tests verify) || exit 1
if uses elasticmq && ! compgen -G "$EMQ_LIB/elasticmq-server_2.13-*.jar" >/dev/null; then
  log "copying ElasticMQ 1.7.1 and its dependencies into $EMQ_LIB"
  mvn_prefer_offline "$OUT/logs/fetch-elasticmq.log" -f "$HERE/elasticmq/pom.xml" dependency:copy-dependencies || exit 1
fi

# ---- measurements ----

for ((round = 1; round <= (${#TARGET_LIST[@]} > 0 ? ROUNDS : 0); round++)); do
  log "round $round of $ROUNDS"
  for target in "${TARGET_LIST[@]}"; do
    bench_round "$target" "$round"
  done
done
for target in "${MEMORY_LIST[@]}"; do
  log "memory: $target, $MEMORY_MESSAGES messages of $MEMORY_MESSAGE_SIZE bytes"
  bench_memory "$target"
done
END_UTC=$(date -u '+%H:%M')

# ---- summary ----

{
  echo "started=$START_UTC"
  echo "ended=$END_UTC"
  echo "command=$(printf '%q ' "$0")"
  echo "knobs=MODE=$MODE TARGETS=$TARGETS ROUNDS=$ROUNDS SCENARIOS=$SCENARIOS PROTOCOLS=$PROTOCOLS E2E_RATES=$E2E_RATES E2E_WARMUP=$E2E_WARMUP CLIENT_WARMUP=$CLIENT_WARMUP DURATION=$DURATION WARMUP=$WARMUP CLUSTER_WARMUP=$CLUSTER_WARMUP USERS=$USERS PREFILL=$PREFILL CONSUMERS=$CONSUMERS FIFO_GROUPS=$FIFO_GROUPS MESSAGE_SIZE=$MESSAGE_SIZE HEAP=$HEAP IDLE_SECONDS=$IDLE_SECONDS SLUICE3_LOAD=$SLUICE3_LOAD CLUSTER_EVENT_LOOPS=$CLUSTER_EVENT_LOOPS MEMORY_TARGETS=$MEMORY_TARGETS MEMORY_MESSAGES=$MEMORY_MESSAGES MEMORY_HEAP=$MEMORY_HEAP${BROKER_JAVA_OPTS:+ BROKER_JAVA_OPTS='$BROKER_JAVA_OPTS'}"
  echo "machine=$CORES cores ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), $(java -version 2>&1 | head -1)"
  echo "jar=$JAR_INFO"
  echo "scenarios=$(IFS=,; echo "${SCENARIO_LIST[*]}")"
  echo "protocols=$(IFS=,; echo "${PROTOCOL_LIST[*]}")"
  echo "e2eProtocol=$E2E_PROTOCOL"
  echo "rates=$(IFS=,; echo "${RATE_LIST[*]}")"
  echo "targets=$(IFS=,; echo "${TARGET_LIST[*]}")"
  echo "memoryTargets=$(IFS=,; echo "${MEMORY_LIST[*]}")"
  echo "rounds=$ROUNDS"
} >"$OUT/run.properties"
python3 "$HERE/summarize.py" "$OUT" | tee "$OUT/summary.md"
log "done: $OUT/summary.md"
