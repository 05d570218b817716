package io.sluice.partition;

import io.sluice.queue.Clock;
import io.sluice.queue.CommitPort;
import io.sluice.queue.Partition;
import io.sluice.queue.PartitionRequest;
import io.sluice.queue.QueueMeta;
import io.sluice.queue.QueueRegistry;
import io.vertx.core.Future;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The partitions this node runs, by queue, and the local way to reach them. On a lone node it
 * runs every partition; the cluster puts ownership and forwarding in front of it.
 */
public final class PartitionDirectory implements PartitionRouter {
    private final PartitionLoops loops;
    private final CommitPort port;
    private final Clock clock;
    private final QueueRegistry registry;
    private final VisibilityListener listener;
    private final ConcurrentHashMap<String, PartitionHost[]> queues = new ConcurrentHashMap<>();
    private final io.sluice.queue.SequenceClock sequences = new io.sluice.queue.SequenceClock();

    public PartitionDirectory(PartitionLoops loops, CommitPort port, Clock clock,
                              QueueRegistry registry, VisibilityListener listener) {
        this.loops = loops;
        this.port = port;
        this.clock = clock;
        this.registry = registry;
        this.listener = listener;
    }

    /** Starts the partitions of a queue (no-op when they run already). */
    public void open(QueueMeta meta) {
        queues.computeIfAbsent(meta.name(), name -> {
            PartitionHost[] hosts = new PartitionHost[meta.partitions()];
            for (int i = 0; i < hosts.length; i++) {
                // Retention is read from the registry at expiry time, so SetQueueAttributes applies to stored messages.
                Partition state = new Partition(clock, () -> retentionOf(name), meta.fifo(), i, sequences);
                hosts[i] = new PartitionHost(name, i, state, loops.assign(), port, listener);
                loops.attach(hosts[i]);
            }
            return hosts;
        });
    }

    /** Stops and forgets a deleted queue's partitions. */
    public void close(String queueName) {
        PartitionHost[] hosts = queues.remove(queueName);
        if (hosts != null) {
            for (PartitionHost h : hosts) {
                loops.detach(h);
            }
        }
    }

    @Override
    public <R> Future<R> execute(String queueName, int partition, PartitionRequest<R> request) {
        PartitionHost[] hosts = queues.get(queueName);
        if (hosts == null || partition < 0 || partition >= hosts.length) {
            return Future.failedFuture(QueueRegistry.doesNotExist());
        }
        return hosts[partition].execute(request);
    }

    @Override
    public PartitionStats[] stats(String queueName) {
        PartitionHost[] hosts = queues.get(queueName);
        if (hosts == null) {
            return new PartitionStats[0];
        }
        PartitionStats[] out = new PartitionStats[hosts.length];
        for (int i = 0; i < hosts.length; i++) {
            out[i] = hosts[i].stats();
        }
        return out;
    }

    private long retentionOf(String name) {
        QueueMeta meta = registry.find(name);
        return meta == null ? Long.MAX_VALUE / 2 : meta.retentionMillis();
    }
}
