package io.sluice.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The CPU time (user + system) of some processes, read from {@code /proc/<pid>/stat} (fields 14 and 15, utime and
 * stime, in clock ticks of {@code 1/CLK_TCK} s): the brokers ({@link #servers()}: the script passes the PIDs of the
 * brokers it started, {@code -Dbench.serverPids=123,456}) or this load generator ({@link #client()}). The script
 * passes {@code getconf CLK_TCK} as {@code -Dbench.clkTck} (default 100). It counts from {@link #start()} to
 * {@link #secondsSinceStart()}; without PIDs it measures nothing.
 */
final class ProcessCpu {
    private final List<Long> pids;
    private final long ticksPerSecond;
    /** The reading at {@link #start()}; -1 before it, or when it failed. */
    private volatile long startTicks = -1;

    private ProcessCpu(List<Long> pids, long ticksPerSecond) {
        this.pids = List.copyOf(pids);
        this.ticksPerSecond = ticksPerSecond;
    }

    /** The brokers of {@code -Dbench.serverPids}. */
    static ProcessCpu servers() {
        List<Long> pids = new ArrayList<>();
        for (String part : System.getProperty("bench.serverPids", "").split(",")) {
            if (!part.isBlank()) {
                pids.add(Long.parseLong(part.trim()));
            }
        }
        return new ProcessCpu(pids, clockTicks());
    }

    /** This JVM: the load generator, which shares the machine with the brokers. */
    static ProcessCpu client() {
        return new ProcessCpu(List.of(ProcessHandle.current().pid()), clockTicks());
    }

    /** Measures nothing: the counts of a client warm-up. */
    static ProcessCpu none() {
        return new ProcessCpu(List.of(), clockTicks());
    }

    private static long clockTicks() {
        long tck = Long.getLong("bench.clkTck", 100L);
        if (tck < 1) {
            throw new IllegalArgumentException("bench.clkTck must be positive, got " + tck);
        }
        return tck;
    }

    /** Takes the reading the CPU counts from. */
    void start() {
        startTicks = ticks();
    }

    /** CPU seconds since {@link #start()}; -1 when it measures nothing, was not started or a reading failed. */
    double secondsSinceStart() {
        long start = startTicks;
        long end = ticks();
        return start >= 0 && end >= 0 ? (end - start) / (double) ticksPerSecond : -1;
    }

    /** utime + stime of all the processes, in ticks; -1 without PIDs or when one cannot be read. */
    private long ticks() {
        if (pids.isEmpty()) {
            return -1;
        }
        long sum = 0;
        for (long pid : pids) {
            try {
                String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
                // "pid (comm) state ppid ...": comm may hold spaces, so split after the last ')'.
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split("\\s+");
                sum += Long.parseLong(f[11]) + Long.parseLong(f[12]); // fields 14 and 15; f[0] is field 3
            } catch (IOException | RuntimeException e) {
                System.err.println("ProcessCpu: cannot read /proc/" + pid + "/stat: " + e);
                return -1;
            }
        }
        return sum;
    }
}
