#!/usr/bin/env bash
# Sluice (one node, the embedded default) against ElasticMQ 1.7.1 with wrk, a client that costs the
# shared cores far less than Gatling: SendMessage, SendMessageBatch ×10, ReceiveMessage (10) +
# DeleteMessageBatch, and the end-to-end latency of SendMessage → long-poll ReceiveMessage at a steady
# rate, over AWS Query and AWS JSON 1.0, 256-byte bodies, 32 connections, the two brokers alternating
# (A B A B), medians of the rounds.
#
#   load-tests/wrk/compare.sh
#
# Knobs (environment): SCENARIOS (send,batch,recvdel,e2e), PROTOCOLS (query,json), ROUNDS (2), WARMUP
# seconds of the same load before each measured run (60), DURATION seconds measured (20), CONNECTIONS
# (32), WRK_THREADS wrk's threads for send, batch and recvdel (1 for send and batch, 2 for recvdel,
# whose client parses every answer for receipt handles: with one thread that client set Sluice's pace;
# fills and e2e always use one), PREFILL messages stored before recvdel's measured run (600000), E2E_RATE messages/s of e2e's
# producer (1000), E2E_PRODUCERS and E2E_CONSUMERS its connections (8 and 4), HEAP (2g, -Xms and -Xmx
# of both), JAR (broker/target/sluice.jar; build it first: mvn -q -B -DskipTests package), SLUICE_PORT
# (9500), ELASTICMQ_PORT (9525): both must be free.
#
# Each round starts each broker afresh. A send-only load keeps every message, so the warm-up goes to
# queues that are deleted every 15 s (heap for the measured run) and the measured run to a queue of its
# own. recvdel stores PREFILL messages first (fill.lua: SendMessageBatch over Query, not measured),
# then receives and deletes for DURATION seconds or until the queue is drained, whichever comes first;
# its rate is the messages deleted over the time from the first receive to the last delete
# (recvdel.lua); its warm-up repeats the same with 100,000 messages at a time. e2e runs two wrk at once
# (e2e.lua): a producer sending E2E_RATE messages/s for WARMUP + DURATION seconds and long-polling
# consumers (WaitTimeSeconds=20) that delete what they get and keep on 3 s longer, on one queue; the
# first WARMUP seconds are its warm-up and go untimed (a warm-up on other queues and connections made
# the JIT drop compiled request code just as the measured run began: load-tests/README.md, stop 62).
# Its rate is the messages timed over DURATION, and it reports the latency from send to receive of those
# (p50, p90, p99, p99.9, max) and the messages lost over the whole run (answered as sent and not
# received; the few sends still in flight when the producer stops are received without being counted as
# sent, so a loss smaller than E2E_PRODUCERS can hide).
# Server CPU: utime + stime of the broker's JVM (/proc/PID/stat) over the measured run; client CPU:
# wrk's own (both wrk, for e2e). Host steal: the share of the machine's CPU time its hypervisor gave to
# others over the measured run (/proc/stat); where it is more than a few per cent, the broker ran slower
# than on the machine alone, and rounds taken at different steal do not compare. ElasticMQ comes from
# Maven Central into load-tests/target/elasticmq/lib, as run-benchmark.sh fetches it. Needs wrk (Debian:
# apt-get install wrk), curl, java 17, mvn. Traffic goes to 127.0.0.1 only; every run is bounded (WARMUP + DURATION seconds of load, plus recvdel's fills
# and e2e's 3 s tails).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
SCENARIOS=${SCENARIOS:-send,batch,recvdel,e2e}
PROTOCOLS=${PROTOCOLS:-query,json}
ROUNDS=${ROUNDS:-2}
WARMUP=${WARMUP:-60}
DURATION=${DURATION:-20}
CONNECTIONS=${CONNECTIONS:-32}
WRK_THREADS=${WRK_THREADS:-}
PREFILL=${PREFILL:-600000}
E2E_RATE=${E2E_RATE:-1000}
E2E_PRODUCERS=${E2E_PRODUCERS:-8}
E2E_CONSUMERS=${E2E_CONSUMERS:-4}
E2E_TAIL=3
WARM_FILL=100000
HEAP=${HEAP:-2g}
JAR=${JAR:-$root/broker/target/sluice.jar}
SLUICE_PORT=${SLUICE_PORT:-9500}
ELASTICMQ_PORT=${ELASTICMQ_PORT:-9525}
IFS=, read -r -a scenario_list <<<"$SCENARIOS"
IFS=, read -r -a protocol_list <<<"$PROTOCOLS"
for scenario in "${scenario_list[@]}"; do
  [[ $scenario == send || $scenario == batch || $scenario == recvdel || $scenario == e2e ]] ||
    { echo "compare.sh: SCENARIOS takes send, batch, recvdel and e2e" >&2; exit 2; }
done
for protocol in "${protocol_list[@]}"; do
  [[ $protocol == query || $protocol == json ]] || { echo "compare.sh: PROTOCOLS takes query and json" >&2; exit 2; }
done
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for port in "$SLUICE_PORT" "$ELASTICMQ_PORT"; do
  port_free "$port" || { echo "compare.sh: port $port is in use (SLUICE_PORT, ELASTICMQ_PORT)" >&2; exit 2; }
done
emq_lib=$root/load-tests/target/elasticmq/lib
out=$root/load-tests/target/wrk-compare/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$out"
log() { echo "$(date -u +%H:%M:%S) $*" | tee -a "$out/log.txt"; }

command -v wrk >/dev/null || { echo "compare.sh: needs wrk (Debian: apt-get install wrk)" >&2; exit 1; }
[[ -f "$JAR" ]] || { echo "compare.sh: no $JAR; build it first: mvn -q -B -DskipTests package" >&2; exit 1; }
if ! compgen -G "$emq_lib/elasticmq-server_2.13-*.jar" >/dev/null; then
  log "copying ElasticMQ 1.7.1 and its dependencies into $emq_lib"
  mvn -q -B -f "$root/load-tests/elasticmq/pom.xml" dependency:copy-dependencies
fi

pid=
stop_broker() {
  if [[ -n "$pid" ]]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; pid=; fi
}
trap stop_broker EXIT

query() { # port form -> the response body
  curl -sf --max-time 10 -X POST "http://127.0.0.1:$1/" -d "$2&Version=2012-11-05"
}
create_queue() { # port name -> the queue's URL
  query "$1" "Action=CreateQueue&QueueName=$2" | sed -n 's:.*<QueueUrl>\(.*\)</QueueUrl>.*:\1:p'
}
steal_ticks() { # -> "stolen all" ticks of every CPU since boot (/proc/stat: user .. steal, not guest time)
  awk '/^cpu / {t = 0; for (i = 2; i <= 9; i++) t += $i; print $9, t}' /proc/stat
}

cpu_ticks() { # pid [value if the process is gone; without it, a gone process is an error] -> utime + stime
  if (($# > 1)); then awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo "$2"; else awk '{print $14 + $15}' "/proc/$1/stat"; fi
}

start_broker() { # target port
  local jvm=(-XX:-UsePerfData -Xms"$HEAP" -Xmx"$HEAP")
  case "$1" in
    sluice) java "${jvm[@]}" -jar "$JAR" --host 127.0.0.1 --port "$2" >"$out/$1.log" 2>&1 & ;;
    elasticmq)
      sed -e "s/9325/$2/g" "$root/load-tests/elasticmq/elasticmq.conf" >"$out/elasticmq.conf"
      java "${jvm[@]}" -Dconfig.file="$out/elasticmq.conf" \
        -Dlogback.configurationFile="$root/load-tests/elasticmq/logback.xml" \
        -cp "$emq_lib/*" org.elasticmq.server.Main >"$out/$1.log" 2>&1 & ;;
  esac
  pid=$!
  for _ in $(seq 1 240); do
    [[ -n "$(create_queue "$2" probe 2>/dev/null)" ]] && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  echo "compare.sh: $1 did not start on port $2, see $out/$1.log" >&2
  exit 1
}

# wrk against a queue for some seconds, or until the script creates $stop_file (fill, recvdel);
# prints "requests non2xx client-ticks" and leaves wrk's report in $out/wrk-last.txt
stop_file=$out/wrk-stopped
# wrk's threads for a script: always 1 for fill (it counts the messages it has stored); otherwise
# WRK_THREADS when given, else 2 for recvdel and 1 for the others. One thread parsing recvdel's
# answers set Sluice's pace there, not ElasticMQ's (load-tests/README.md, stop 52: over JSON Sluice
# 94,880 msg/s with one thread and 119,120 with two, ElasticMQ 28,541 and 28,563).
wrk_threads_for() {
  if [[ $1 == fill ]]; then echo 1
  elif [[ -n $WRK_THREADS ]]; then echo "$WRK_THREADS"
  elif [[ $1 == recvdel ]]; then echo 2
  else echo 1; fi
}

run_wrk() { # port script queue-url seconds [protocol]
  local report="$out/wrk-last.txt" w t0 t1
  rm -f "$stop_file"
  QUEUE_URL=$3 PROTOCOL=${5:-query} STOP_FILE=$stop_file \
    wrk -t"$(wrk_threads_for "$2")" -c"$CONNECTIONS" -d"$4s" -s "$here/$2.lua" "http://127.0.0.1:$1/" >"$report" &
  w=$!
  t0=$(cpu_ticks "$w" 0)
  # wrk's CPU, read just before it exits: it spends nearly all of it in the timed window
  t1=$t0
  while kill -0 "$w" 2>/dev/null; do
    t1=$(cpu_ticks "$w" "$t1")
    if [[ -e $stop_file ]]; then kill -INT "$w" 2>/dev/null || true; fi
    sleep 0.2
  done
  wait "$w"
  cat "$report" >>"$out/wrk.txt"
  echo "$(awk '/requests in/ {print $1}' "$report") $(awk '/Non-2xx/ {print $NF}' "$report" | grep . || echo 0) $((t1 - t0))"
}
fill() { # port queue-url messages
  # one thread: fill.lua counts per thread
  FILL_MESSAGES=$3 run_wrk "$1" fill "$2" 600 >/dev/null
}
recvdel_field() { # name -> its value in the last recvdel report line
  sed -n "s/^recvdel .*$1=\([0-9]*\).*/\1/p" "$out/wrk-last.txt"
}
# e2e: long-polling consumers for warm-up + seconds + E2E_TAIL and a producer for warm-up + seconds, on
# one queue over the same connections throughout; the warm-up's messages go untimed (e2e.lua,
# MEASURE_AFTER). Prints "failed client-ticks stolen all server-ticks": failed over the whole run, wrk's
# CPU from the end of the warm-up, and the host's steal ticks and the broker's CPU ticks read as the
# warm-up ends. Leaves the consumers' report in $out/wrk-last.txt, the producer's in $out/wrk-producer.txt
run_e2e() { # port queue-url warm-up-seconds seconds protocol
  local consumers producer c0 p0 c1 p1 failed start stolen all server switched=
  ROLE=consumer QUEUE_URL=$2 PROTOCOL=$5 \
    wrk -t1 -c"$E2E_CONSUMERS" -d"$(($3 + $4 + E2E_TAIL))s" -s "$here/e2e.lua" "http://127.0.0.1:$1/" >"$out/wrk-last.txt" &
  consumers=$!
  ROLE=producer QUEUE_URL=$2 PROTOCOL=$5 RATE=$E2E_RATE MEASURE_AFTER=$3 \
    wrk -t1 -c"$E2E_PRODUCERS" -d"$(($3 + $4))s" -s "$here/e2e.lua" "http://127.0.0.1:$1/" >"$out/wrk-producer.txt" &
  producer=$!
  start=${EPOCHREALTIME/./}
  c0=$(cpu_ticks "$consumers" 0); c1=$c0
  p0=$(cpu_ticks "$producer" 0); p1=$p0
  read -r stolen all < <(steal_ticks)
  server=$(cpu_ticks "$pid")
  while kill -0 "$consumers" 2>/dev/null; do
    c1=$(cpu_ticks "$consumers" "$c1")
    p1=$(cpu_ticks "$producer" "$p1")
    if [[ -z $switched ]] && ((${EPOCHREALTIME/./} - start >= $3 * 1000000)); then
      switched=1 c0=$c1 p0=$p1
      read -r stolen all < <(steal_ticks)
      server=$(cpu_ticks "$pid")
    fi
    sleep 0.2
  done
  wait "$producer"
  wait "$consumers"
  cat "$out/wrk-producer.txt" "$out/wrk-last.txt" >>"$out/wrk.txt"
  failed=$(($(e2e_field failed "$out/wrk-producer.txt") + $(e2e_field failed)))
  echo "$failed $((c1 - c0 + p1 - p0)) $stolen $all $server"
}
e2e_field() { # name [report] -> its value in the report's e2e line (default: the consumers')
  sed -n "s/^e2e .*$1=\([0-9]*\).*/\1/p" "${2:-$out/wrk-last.txt}"
}
ms() { # name of a latency in µs in the consumers' e2e line -> milliseconds
  awk -v u="$(e2e_field "$1")" 'BEGIN {printf "%.2f", u / 1000}'
}

tck=$(getconf CLK_TCK)
results=$out/results.tsv
printf 'round\tscenario\ttarget\tmsg_per_s\tserver_us_per_msg\tclient_us_per_msg\tfailed_requests\thost_steal_pct\n' >"$results"
latencies=$out/e2e.tsv
printf 'round\tprotocol\ttarget\tsent\treceived\tlost\tp50_ms\tp90_ms\tp99_ms\tp999_ms\tmax_ms\thost_steal_pct\n' >"$latencies"
log "results in $out; scenarios $SCENARIOS over $PROTOCOLS, $ROUNDS round(s), ${WARMUP}s warm-up, ${DURATION}s measured, $CONNECTIONS connections, ${WRK_THREADS:-1 (recvdel 2)} wrk thread(s)"
for ((round = 1; round <= ROUNDS; round++)); do
  for target in sluice elasticmq; do
    port=$SLUICE_PORT; [[ $target == elasticmq ]] && port=$ELASTICMQ_PORT
    start_broker "$target" "$port"
    for name in "${scenario_list[@]}"; do for protocol in "${protocol_list[@]}"; do
      scenario="$name $protocol"
      # send and batch repeat one fixed request, a file per protocol; recvdel and e2e build requests from
      # answers and take the protocol from PROTOCOL
      script=$name; [[ $protocol == json && ($name == send || $name == batch) ]] && script+=-json
      per=1; [[ $script == batch* ]] && per=10
      # e2e warms up inside its measured run instead (run_e2e): a pause, a new queue and new connections
      # between warm-up and measurement made the JIT drop compiled code as the measurement began
      left=$WARMUP; chunk=0; [[ $name == e2e ]] && left=0
      while ((left > 0)); do
        s=$((left < 15 ? left : 15)); chunk=$((chunk + 1))
        url=$(create_queue "$port" "warm-$name-$protocol-$chunk")
        if [[ $name == recvdel ]]; then
          fill "$port" "$url" "$WARM_FILL"
          run_wrk "$port" recvdel "$url" "$s" "$protocol" >/dev/null
          s=$(( $(recvdel_field duration_us) / 1000000 + 1 ))
        else
          run_wrk "$port" "$script" "$url" "$s" >/dev/null
        fi
        query "$port" "Action=DeleteQueue&QueueUrl=$url" >/dev/null
        left=$((left - s))
      done
      url=$(create_queue "$port" "bench-$name-$protocol")
      [[ $name == recvdel ]] && fill "$port" "$url" "$PREFILL"
      if [[ $name == e2e ]]; then
        # its steal and server CPU count from the end of the warm-up inside the run
        read -r failed client stolen0 all0 c0 < <(run_e2e "$port" "$url" "$WARMUP" "$DURATION" "$protocol")
      else
        read -r stolen0 all0 < <(steal_ticks)
        c0=$(cpu_ticks "$pid")
        read -r reqs failed client < <(run_wrk "$port" "$script" "$url" "$DURATION" "$protocol")
      fi
      c1=$(cpu_ticks "$pid")
      read -r stolen1 all1 < <(steal_ticks)
      steal=$(awk -v s=$((stolen1 - stolen0)) -v a=$((all1 - all0)) 'BEGIN {printf "%.1f", a ? 100 * s / a : 0}')
      query "$port" "Action=DeleteQueue&QueueUrl=$url" >/dev/null
      if [[ $name == e2e ]]; then
        msgs=$(e2e_field measured)
        rate=$((msgs / DURATION))
        # sent and received over the whole run, warm-up included; sends still in flight when the producer
        # stops are received but not counted as sent
        sent=$(e2e_field sent "$out/wrk-producer.txt")
        received=$(e2e_field received)
        lost=$((sent > received ? sent - received : 0))
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$protocol" "$target" "$sent" "$received" \
          "$lost" "$(ms p50_us)" "$(ms p90_us)" "$(ms p99_us)" "$(ms p999_us)" "$(ms max_us)" "$steal" >>"$latencies"
        log "round $round, e2e $protocol, $target: sent $sent, received $received, lost $lost (whole run), timed $msgs, p50 $(ms p50_us) ms, p99 $(ms p99_us) ms, max $(ms max_us) ms, host steal $steal %"
      elif [[ $name == recvdel ]]; then
        msgs=$(recvdel_field deleted)
        failed=$(recvdel_field failed)
        rate=$(awk -v m="$msgs" -v d="$(recvdel_field duration_us)" 'BEGIN {printf "%d", d ? m * 1e6 / d : 0}')
      else
        msgs=$(((reqs - failed) * per))
        rate=$((msgs / DURATION))
      fi
      server=$(awk -v t=$((c1 - c0)) -v m="$msgs" -v k="$tck" 'BEGIN {printf "%.1f", m ? t * 1e6 / k / m : 0}')
      client_us=$(awk -v t="$client" -v m="$msgs" -v k="$tck" 'BEGIN {printf "%.1f", m ? t * 1e6 / k / m : 0}')
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$scenario" "$target" "$rate" "$server" "$client_us" "$failed" "$steal" >>"$results"
      log "round $round, $scenario, $target: $rate msg/s, server CPU $server µs/msg, wrk $client_us µs/msg, $failed failed requests, host steal $steal %"
    done; done
    stop_broker
  done
done

# median(arr, key, k): the median of arr[key, 1..k], for both summaries' awk programs
awk_median='function median(arr, key, k,   i, j, t, w) {
    for (i = 1; i <= k; i++) w[i] = arr[key, i]
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (w[j] + 0 < w[i] + 0) { t = w[i]; w[i] = w[j]; w[j] = t }
    return k % 2 ? w[(k + 1) / 2] : (w[k / 2] + w[k / 2 + 1]) / 2
  }
  '
# medians of the rounds, and Sluice against ElasticMQ
{
echo "| scenario, protocol (medians) | Sluice msg/s | ElasticMQ msg/s | Sluice / ElasticMQ | server CPU µs/msg, Sluice / ElasticMQ | wrk CPU µs/msg | failed requests | host steal %, most of a run |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
awk -F'\t' "$awk_median"'NR > 1 {
    key = $2 SUBSEP $3; n[key]++; rate[key, n[key]] = $4; cpu[key, n[key]] = $5; cl[key, n[key]] = $6; fail[key] += $7
    if ($8 + 0 > steal[key] + 0) steal[key] = $8
    seen[$2] = 1
  }
  END {
    for (s in seen) {
      a = s SUBSEP "sluice"; b = s SUBSEP "elasticmq"
      ra = median(rate, a, n[a]); rb = median(rate, b, n[b]); ca = median(cpu, a, n[a]); cb = median(cpu, b, n[b])
      printf "| %s | %d | %d | %.2fx | %.1f / %.1f (%.2fx) | %.1f / %.1f | %d / %d | %.1f / %.1f |\n", s, ra, rb, rb ? ra / rb : 0, \
        ca, cb, cb ? ca / cb : 0, median(cl, a, n[a]), median(cl, b, n[b]), fail[a], fail[b], steal[a], steal[b]
    }
  }' "$results" | sort
} | tee "$out/summary.md"
if (($(wc -l <"$latencies") > 1)); then
  {
  echo
  echo "| e2e at $E2E_RATE msg/s, protocol (medians) | target | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms | lost (all rounds) | host steal %, most of a run |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
  awk -F'\t' "$awk_median"'NR > 1 {
      key = $2 SUBSEP $3; k = ++n[key]; lost[key] += $6
      for (c = 7; c <= 11; c++) v[key, c, k] = $c
      if ($12 + 0 > steal[key] + 0) steal[key] = $12
    }
    END {
      for (key in n) {
        split(key, part, SUBSEP)
        # v[key, c, i] is v[(key SUBSEP c), i]: the values of column c as median() takes them
        printf "| %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %d | %.1f |\n", part[1], part[2], median(v, key SUBSEP 7, n[key]), \
          median(v, key SUBSEP 8, n[key]), median(v, key SUBSEP 9, n[key]), median(v, key SUBSEP 10, n[key]), \
          median(v, key SUBSEP 11, n[key]), lost[key], steal[key]
      }
    }' "$latencies" | sort
  } | tee -a "$out/summary.md"
fi
