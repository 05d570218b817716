package io.sluice.server;

import com.sun.management.GarbageCollectionNotificationInfo;
import io.sluice.queue.ErrorCode;
import io.sluice.queue.SqsException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.Map;
import java.util.Set;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * Keeps a node whose heap is nearly full of live data from dying of it: after every garbage
 * collection it looks at how much of the heap is still in use, and above {@link #REFUSE_ABOVE}
 * of the maximum new messages are refused with a retryable error (clients back off and retry,
 * or go to another node) until a collection leaves less than {@link #ACCEPT_BELOW} in use.
 * Receives and deletes go on, and they are what frees memory.
 */
final class MemoryGuard {
    private static final Logger LOG = Logger.getLogger(MemoryGuard.class.getName());
    static final double REFUSE_ABOVE = 0.90;
    static final double ACCEPT_BELOW = 0.80;

    private final long maxHeap;
    private volatile boolean full;

    MemoryGuard(long maxHeap) {
        this.maxHeap = maxHeap;
    }

    /** A guard fed by this JVM's garbage collections. */
    static MemoryGuard watchingThisJvm() {
        MemoryGuard guard = new MemoryGuard(Runtime.getRuntime().maxMemory());
        Set<String> heapPools = ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(p -> p.getType() == MemoryType.HEAP)
                .map(MemoryPoolMXBean::getName)
                .collect(Collectors.toSet());
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter emitter) {
                emitter.addNotificationListener(
                        (n, handback) -> guard.afterCollection(n, heapPools),
                        n -> GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType()),
                        null);
            }
        }
        return guard;
    }

    private void afterCollection(Notification n, Set<String> heapPools) {
        GarbageCollectionNotificationInfo info =
                GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
        long used = 0;
        for (Map.Entry<String, MemoryUsage> pool :
                info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
            if (heapPools.contains(pool.getKey())) {
                used += pool.getValue().getUsed();
            }
        }
        observe(used);
    }

    /** What a collection left in use, in bytes. */
    void observe(long usedAfterCollection) {
        double share = (double) usedAfterCollection / maxHeap;
        if (!full && share >= REFUSE_ABOVE) {
            full = true;
            LOG.warning(String.format(
                    "heap %.0f%% full after a collection: refusing new messages until below %.0f%%",
                    share * 100, ACCEPT_BELOW * 100));
        } else if (full && share < ACCEPT_BELOW) {
            full = false;
            LOG.info(String.format("heap %.0f%% full after a collection: accepting new messages again", share * 100));
        }
    }

    boolean full() {
        return full;
    }

    /** Refuses a request that would store new messages while the heap is nearly full. */
    void checkRoom() {
        if (full) {
            throw new SqsException(
                    ErrorCode.SERVICE_UNAVAILABLE,
                    "This node is low on memory and takes no new messages for now; retry later or through another node.");
        }
    }
}
