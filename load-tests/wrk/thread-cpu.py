#!/usr/bin/env python3
"""CPU and thread wake-ups of JVMs by group of threads, between two snapshots of /proc.

    thread-cpu.py snap FILE PID...        writes every thread's CPU ticks and voluntary context switches
    thread-cpu.py diff BEFORE AFTER N     prints, per message (N messages between the snapshots), the CPU in
                                          microseconds and the wake-ups by group, summed over the JVMs and per JVM

Groups by thread name: Vert.x event loops ("loops"), Hazelcast's threads ("hazelcast": partition, IO, generic
operation threads), the collector's ("gc", the same names profile-breakdown.py counts as the collector's: G1's and
ParallelGC's workers, G1's refinement and marking threads; SerialGC collects on the "VM Thread", counted as
"other"), the JIT's ("jit"), the rest ("other"). A wake-up is a voluntary context switch: the thread blocked and
was woken again. A thread that ended between the snapshots is missing from the second, so its CPU is not
counted (the groups above are long-lived threads). Used by load-tests/wrk/send.sh.
"""

import json
import os
import re
import sys

GROUPS = ("loops", "hazelcast", "gc", "jit", "other")


def group(name):
    if name.startswith("vert.x-eventloo"):  # /proc shows at most 15 characters of a thread's name
        return "loops"
    if name.startswith("hz."):
        return "hazelcast"
    if name.startswith(("GC Thread", "G1 ")):  # G1's and ParallelGC's workers, G1's refinement and marking
        return "gc"
    if name.startswith(("C1 Compiler", "C2 Compiler")):
        return "jit"
    return "other"


def snap(pids):
    totals = {}
    for pid in pids:
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{tid}/stat") as f:
                    stat = f.read()
                with open(f"/proc/{pid}/task/{tid}/status") as f:
                    status = f.read()
            except OSError:  # the thread ended between the listing and the read
                continue
            name = stat[stat.index("(") + 1 : stat.rindex(")")]
            fields = stat[stat.rindex(")") + 2 :].split()
            ticks = int(fields[11]) + int(fields[12])  # utime + stime
            wakes = int(re.search(r"^voluntary_ctxt_switches:\s+(\d+)", status, re.M).group(1))
            key = f"{pid}:{group(name)}"
            was = totals.get(key, [0, 0])
            totals[key] = [was[0] + ticks, was[1] + wakes]
    return totals


def diff(before, after, messages):
    micros = 1e6 / os.sysconf("SC_CLK_TCK") / messages
    per_jvm = {}
    for key, (ticks, wakes) in after.items():
        pid, name = key.split(":")
        was = before.get(key, [0, 0])
        per_jvm.setdefault(pid, {})[name] = ((ticks - was[0]) * micros, (wakes - was[1]) / messages)
    summed = {g: [0.0, 0.0] for g in GROUPS}
    for groups in per_jvm.values():
        for g, (cpu, w) in groups.items():
            summed[g][0] += cpu
            summed[g][1] += w
    total = sum(cpu for cpu, _ in summed.values())
    print(f"  CPU {total:.1f} µs per message: "
          + ", ".join(f"{g} {cpu:.1f} ({w:.2f} wake-ups)" for g, (cpu, w) in summed.items()))
    for pid, groups in per_jvm.items():
        print(f"    JVM {pid}: " + ", ".join(f"{g} {groups.get(g, (0, 0))[0]:.1f}" for g in GROUPS))


def main(args):
    if len(args) >= 3 and args[0] == "snap":
        with open(args[1], "w") as f:
            json.dump(snap(args[2:]), f)
    elif len(args) == 4 and args[0] == "diff":
        with open(args[1]) as f:
            before = json.load(f)
        with open(args[2]) as f:
            after = json.load(f)
        diff(before, after, max(1, int(args[3])))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
