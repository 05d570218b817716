package io.sluice.load;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The share of the machine's CPU time its hypervisor gave to other guests (steal) over a run, read from the first
 * line of {@code /proc/stat} (user, nice, system, idle, iowait, irq, softirq, steal, in clock ticks since boot; guest
 * time is already inside user). On a shared virtual machine this moves a run's throughput by a third or more, so a
 * run is only comparable with runs taken at a similar steal. Where {@code /proc/stat} cannot be read it measures
 * nothing.
 */
final class HostSteal {
    /** {stolen, all} at {@link #start()}; null before it or when the reading failed. */
    private volatile long[] startTicks;

    /** Takes the reading the share counts from. */
    void start() {
        startTicks = read();
    }

    /** Percent of all CPU time stolen since {@link #start()}; -1 when not started or a reading failed. */
    double percentSinceStart() {
        long[] start = startTicks;
        long[] end = read();
        if (start == null || end == null || end[1] <= start[1]) {
            return -1;
        }
        return 100.0 * (end[0] - start[0]) / (end[1] - start[1]);
    }

    private static long[] read() {
        try {
            String first = Files.readAllLines(Path.of("/proc/stat")).get(0);
            String[] f = first.trim().split("\\s+");
            if (!f[0].equals("cpu") || f.length < 9) {
                return null;
            }
            long all = 0;
            for (int i = 1; i <= 8; i++) {
                all += Long.parseLong(f[i]);
            }
            return new long[] {Long.parseLong(f[8]), all};
        } catch (IOException | RuntimeException e) {
            System.err.println("HostSteal: cannot read /proc/stat: " + e);
            return null;
        }
    }
}
