#!/usr/bin/env python3
"""Turns a run-benchmark.sh result folder into summary.md (printed on stdout).

Reads <out>/run.properties, <out>/runs/*.properties (one per Gatling run, written by SqsSimulation; idle-*.properties
and memory-*.properties written by the script) and, for the request latencies, Gatling's index.html of each run
(Gatling 3.15 writes no stats.json).
"""
import glob
import html
import os
import re
import statistics
import sys

SHOWN = {"sluice": "Sluice", "sluice3": "Sluice, 3 nodes", "elasticmq": "ElasticMQ 1.7.1"}
SCENARIO = {
    "send": "SendMessage",
    "batch": "SendMessageBatch ×10",
    "recvdel": "ReceiveMessage(10) + DeleteMessageBatch",
    "fifo": "FIFO, groups × sequential producers + consumers",
}
RUN = re.compile(r"^(sluice|sluice3|elasticmq)-r(\d+)-(send|batch|recvdel|fifo|e2e)-(json|query)(?:-(\d+))?$")


def props(path):
    d = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                d[k] = v
    return d


ROW = re.compile(r'<tr id="([^"]+)"[^>]*>(.*?)</tr>', re.S)
NAME = re.compile(r'class="ellipsed-name">([^<]*)<')
CELL = re.compile(r'<td class="value [a-z]+ col-(\d+)">([^<]*)</td>')
COLS = {2: "total", 3: "ok", 4: "ko", 6: "rps", 7: "min", 8: "p50", 9: "p75", 10: "p95", 11: "p99", 12: "max", 13: "mean"}


def gatling_rows(run_dir):
    """Rows of the statistics table of Gatling's index.html: request name -> {total, ko, p50, p99, ...}; {} if none."""
    pages = glob.glob(os.path.join(run_dir, "*", "index.html"))
    if not pages:
        return {}
    with open(max(pages, key=os.path.getmtime), encoding="utf-8") as f:
        text = f.read()
    rows = {}
    for rid, body in ROW.findall(text):
        m = NAME.search(body)
        cells = {COLS[int(c)]: v.strip() for c, v in CELL.findall(body) if int(c) in COLS}
        if m and cells:
            rows["All Requests" if rid == "ROOT" else html.unescape(m.group(1))] = cells
    return rows


def num(s, default=None):
    try:
        return float(str(s).replace(",", ""))
    except (TypeError, ValueError):
        return default


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt(v, digits=0):
    if v is None:
        return "–"
    return f"{v:,.{digits}f}"


def ratio(a, b, digits=2):
    if a is None or b is None or b == 0:
        return "–"
    return f"{a / b:.{digits}f}×"


def most_steal(ps):
    """The highest host steal % of some runs; None when none recorded it (runs from before it was measured)."""
    values = [num(p.get("hostStealPercent")) for p in ps]
    values = [v for v in values if v is not None]
    return max(values) if values else None


def main(out):
    meta = props(os.path.join(out, "run.properties"))
    targets = [t for t in meta.get("targets", "").split(",") if t]
    mem_targets = [t for t in meta.get("memoryTargets", "").split(",") if t]
    runs = {}  # (target, scenario, protocol, rate) -> [props per round]
    detail = []
    for path in sorted(glob.glob(os.path.join(out, "runs", "*.properties"))):
        name = os.path.basename(path)[: -len(".properties")]
        m = RUN.match(name)
        if not m:
            continue
        target, rnd, scenario, proto, rate = m.group(1), int(m.group(2)), m.group(3), m.group(4), m.group(5)
        p = props(path)
        p["_round"] = rnd
        p["_gatling"] = gatling_rows(os.path.join(out, "gatling", name)).get("All Requests", {})
        runs.setdefault((target, scenario, proto, rate), []).append(p)
        detail.append((target, rnd, scenario, proto, rate, p))

    lines = []
    lines.append(f"# Sluice benchmark, {meta.get('started', '?')}–{meta.get('ended', '?')} UTC")
    lines.append("")
    lines.append(f"- Command: `{meta.get('knobs', '')} {meta.get('command', '').strip()}`")
    lines.append(f"- Machine: {meta.get('machine', '?')}; load generator (Gatling) and brokers share it.")
    lines.append(f"- Sluice jar: {meta.get('jar', '?')}")
    lines.append("")

    scenarios = [s for s in meta.get("scenarios", "").split(",") if s]
    protocols = [p for p in meta.get("protocols", "").split(",") if p]
    rounds = meta.get("rounds", "?")
    if targets and any(s != "e2e" for s in scenarios):
        lines.append(f"## Throughput, messages/s (median of {rounds} rounds; targets alternated in every round)")
        lines.append("")
        head = ["Scenario", "Protocol"] + [f"{SHOWN[t]} msg/s" for t in targets]
        has_ratio = "sluice" in targets and "elasticmq" in targets
        has_cluster = "sluice" in targets and "sluice3" in targets
        if has_ratio:
            head.append("Sluice / ElasticMQ")
        if has_cluster:
            head.append("3 nodes / 1 node")
        head += [f"CPU µs/msg {SHOWN[t]}" for t in targets]
        if has_ratio:
            head.append("CPU Sluice / ElasticMQ")
        head.append("host steal %, most of a run: " + " / ".join(SHOWN[t] for t in targets))
        lines.append("| " + " | ".join(head) + " |")
        lines.append("|" + "---|" * 2 + "---:|" * (len(head) - 2))
        for s in scenarios:
            if s == "e2e":
                continue
            for proto in protocols:
                rate = {t: med([num(p.get("messagesPerSecond")) for p in runs.get((t, s, proto, None), [])]) for t in targets}
                cpu = {t: med([num(p.get("cpuMicrosPerMessage")) for p in runs.get((t, s, proto, None), [])]) for t in targets}
                row = [SCENARIO[s], proto] + [fmt(rate[t]) for t in targets]
                if has_ratio:
                    row.append(ratio(rate["sluice"], rate["elasticmq"]))
                if has_cluster:
                    row.append(ratio(rate["sluice3"], rate["sluice"]))
                row += [fmt(cpu[t], 1) for t in targets]
                if has_ratio:
                    row.append(ratio(cpu["sluice"], cpu["elasticmq"]))
                row.append(" / ".join(fmt(most_steal(runs.get((t, s, proto, None), [])), 1) for t in targets))
                lines.append("| " + " | ".join(row) + " |")
        lines.append("")
        lines.append("messages/s: messages moved (sent, or deleted after receiving) divided by the time from the first request"
                     " to the last completed one. CPU µs/msg: utime+stime of the broker JVM(s) (all three nodes for"
                     " `sluice3`) over the run, divided by the messages. The 3-node cluster gets all load through node 1"
                     " unless SLUICE3_LOAD=all. Host steal: the share of the machine's CPU time its hypervisor gave"
                     " to other guests over a measured run (/proc/stat); a run with much of it is slower than the"
                     " machine alone, and runs at different steal do not compare.")
        lines.append("")

    e2e_keys = sorted({(t, r) for (t, s, _p, r) in runs if s == "e2e"}, key=lambda k: (int(k[1]), targets.index(k[0])))
    if e2e_keys:
        lines.append(f"## End-to-end latency: steady producer → long-polling consumers (WaitTimeSeconds=20), median of {rounds} rounds")
        lines.append("")
        lines.append("| Rate msg/s | Target | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms | sent | received | lost | CPU µs/msg |")
        lines.append("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for t, r in e2e_keys:
            ps = [p for (tt, s, _pp, rr), v in runs.items() if tt == t and s == "e2e" and rr == r for p in v]
            lines.append("| " + " | ".join([
                r, SHOWN[t],
                fmt(med([num(p.get("latencyP50Ms")) for p in ps]), 2),
                fmt(med([num(p.get("latencyP90Ms")) for p in ps]), 2),
                fmt(med([num(p.get("latencyP99Ms")) for p in ps]), 2),
                fmt(med([num(p.get("latencyP999Ms")) for p in ps]), 2),
                fmt(med([num(p.get("latencyMaxMs")) for p in ps]), 1),
                fmt(sum(num(p.get("sent"), 0) for p in ps)),
                fmt(sum(num(p.get("received"), 0) for p in ps)),
                fmt(sum(num(p.get("lost"), 0) for p in ps)),
                fmt(med([num(p.get("cpuMicrosPerMessage")) for p in ps]), 1),
            ]) + " |")
        lines.append("")
        lines.append("Latency: from building the SendMessage request (a nanoTime in the body) to the arrival of the"
                     " ReceiveMessage reply carrying it, in the same client JVM; over every message of the run."
                     " sent/received/lost are summed over the rounds.")
        lines.append("")

    if detail:
        lines.append("## Checks (summed over all measured runs)")
        lines.append("")
        lines.append("| Target | failed requests or entries | FIFO order violations | FIFO duplicates | lost (FIFO and e2e) |")
        lines.append("|---|---:|---:|---:|---:|")
        for t in targets:
            ps = [d[5] for d in detail if d[0] == t]
            lines.append(f"| {SHOWN[t]} | {fmt(sum(num(p.get('failures'), 0) for p in ps))} | "
                         f"{fmt(sum(num(p.get('orderViolations'), 0) for p in ps if p.get('workload') == 'fifo'))} | "
                         f"{fmt(sum(num(p.get('duplicates'), 0) for p in ps if p.get('workload') == 'fifo'))} | "
                         f"{fmt(sum(num(p.get('lost'), 0) for p in ps))} |")
        lines.append("")

    idle = sorted(glob.glob(os.path.join(out, "runs", "idle-*.properties")))
    if idle:
        lines.append("## Idle CPU (after the warm-up, no load)")
        lines.append("")
        for path in idle:
            p = props(path)
            secs, tck, ticks = num(p["seconds"]), num(p["clkTck"]), num(p["ticks"])
            per = [num(x, 0) for x in p.get("ticksByNode", "").split(",") if x]
            pct = 100.0 * ticks / tck / secs if secs else 0
            extra = ""
            if len(per) > 1:
                extra = "; per node " + " / ".join(f"{100.0 * x / tck / secs:.2f} %" for x in per)
            lines.append(f"- {SHOWN.get(p['target'], p['target'])}: {pct:.2f} % of one core over {secs:.0f} s"
                         f" ({ticks:.0f} ticks of 1/{tck:.0f} s){extra}")
        lines.append("")

    mem = [props(os.path.join(out, "runs", f"memory-{t}.properties")) for t in mem_targets
           if os.path.exists(os.path.join(out, "runs", f"memory-{t}.properties"))]
    if mem:
        lines.append("## Memory: live heap per stored message (after a full GC)")
        lines.append("")
        lines.append("| Target | messages × body | live heap empty MiB | live heap full MiB | heap bytes / message |"
                     " replicas | bytes / message / replica | bound 2 × body + 400 | fill msg/s |")
        lines.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for p in mem:
            n, size, reps = num(p["messages"]), num(p["messageSize"]), num(p["replicas"])
            before = [num(x, 0) for x in p.get("liveBefore", "").split(",") if x]
            after = [num(x, 0) for x in p.get("liveAfter", "").split(",") if x]
            delta = sum(after) - sum(before)
            per_msg = delta / n if n else 0
            lines.append("| " + " | ".join([
                SHOWN.get(p["target"], p["target"]), f"{n:,.0f} × {size:.0f} B",
                " / ".join(f"{x / 2**20:,.1f}" for x in before), " / ".join(f"{x / 2**20:,.1f}" for x in after),
                f"{per_msg:,.0f}", f"{reps:.0f}", f"{per_msg / reps:,.0f}", f"{2 * size + 400:,.0f}",
                fmt(num(p.get("fillMessagesPerSecond"))),
            ]) + " |")
        lines.append("")
        lines.append("Live heap: the Total of `jcmd <pid> GC.class_histogram` (which collects first) after `jcmd <pid> GC.run`,"
                     " summed over the nodes; empty = the freshly started node(s). Messages stored with SendMessageBatch"
                     " through node 1; a 3-node cluster keeps each message on `replicas` nodes (backup-count + 1).")
        lines.append("")

    if detail:
        lines.append("## Every measured run")
        lines.append("")
        lines.append("| Target | Round | Scenario | Protocol | msg/s | requests | req p50 ms | req p99 ms | failures | server CPU s | CPU µs/msg | client CPU µs/msg | seconds | forwarded by node 1 | host steal % |")
        lines.append("|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        order = {s: i for i, s in enumerate(["send", "batch", "recvdel", "fifo", "e2e"])}
        for t, rnd, s, proto, rate, p in sorted(detail, key=lambda d: (order[d[2]], d[3], int(d[4] or 0), d[1], targets.index(d[0]))):
            g = p["_gatling"]
            lines.append("| " + " | ".join([
                SHOWN[t], str(rnd), s + (f" {rate}/s" if rate else ""), proto,
                fmt(num(p.get("messagesPerSecond"))), g.get("total", "–"), g.get("p50", "–"), g.get("p99", "–"),
                p.get("failures", "–"), p.get("serverCpuSeconds", "–"), p.get("cpuMicrosPerMessage", "–") or "–",
                p.get("clientCpuMicrosPerMessage", "–") or "–", p.get("seconds", "–"),
                fmt(num(p.get("forwardedByNode1"))) if p.get("forwardedByNode1") is not None else "–",
                p.get("hostStealPercent", "–"),
            ]) + " |")
        lines.append("")
        lines.append("req p50/p99: Gatling's, over all requests of the run (for e2e they include the 20 s long polls)."
                     " client CPU µs/msg: the Gatling JVM's own utime+stime over the same window, per message: the"
                     " load generator shares the cores with the broker. forwarded by node 1: the requests node 1"
                     " sent on to a partition's owner on another node in the measured window;"
                     " a send stays on node 1 when it owns any of the queue's partitions, which Hazelcast places by the"
                     " queue's name.")
    print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1])
