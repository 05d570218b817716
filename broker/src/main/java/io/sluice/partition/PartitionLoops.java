package io.sluice.partition;

import io.sluice.queue.Clock;
import io.vertx.core.Vertx;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.internal.VertxInternal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The event loops partitions live on. Each loop has one periodic tick that applies the due
 * deadlines of every partition it holds: no timer per message, none per partition.
 */
public final class PartitionLoops {
    /** How often deadlines are applied; bounds how late a delay end or visibility expiry wakes a long poll. */
    static final long TICK_MILLIS = 20;

    private final List<Loop> loops = new ArrayList<>();
    private final AtomicInteger next = new AtomicInteger();
    private final Clock clock;

    private static final class Loop {
        final ContextInternal context;
        /** Touched only on this loop. */
        final Set<PartitionHost> hosts = new HashSet<>();
        long timerId;

        Loop(ContextInternal context) {
            this.context = context;
        }
    }

    public PartitionLoops(Vertx vertx, int count, Clock clock) {
        this.clock = clock;
        VertxInternal vx = (VertxInternal) vertx;
        for (int i = 0; i < count; i++) {
            Loop loop = new Loop(vx.createEventLoopContext());
            loops.add(loop);
            loop.context.runOnContext(v -> loop.timerId = vertx.setPeriodic(TICK_MILLIS, id -> tick(loop)));
        }
    }

    /** The loop for a new partition: round robin, so a queue's partitions spread over the loops. */
    ContextInternal assign() {
        return loops.get(Math.floorMod(next.getAndIncrement(), loops.size())).context;
    }

    void attach(PartitionHost host) {
        Loop loop = loopOf(host.loop());
        loop.context.runOnContext(v -> loop.hosts.add(host));
    }

    void detach(PartitionHost host) {
        Loop loop = loopOf(host.loop());
        loop.context.runOnContext(v -> {
            loop.hosts.remove(host);
            host.close();
        });
    }

    public void stop(Vertx vertx) {
        for (Loop loop : loops) {
            loop.context.runOnContext(v -> vertx.cancelTimer(loop.timerId));
        }
    }

    private void tick(Loop loop) {
        long now = clock.millis();
        for (PartitionHost host : loop.hosts) {
            host.tick(now);
        }
    }

    private Loop loopOf(ContextInternal context) {
        for (Loop loop : loops) {
            if (loop.context == context) {
                return loop;
            }
        }
        throw new IllegalStateException("not a partition loop");
    }
}
