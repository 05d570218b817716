package io.sluice.partition;

import io.sluice.queue.Clock;
import io.vertx.core.Context;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The event loops partitions live on: one deployed verticle per loop, whose context runs the
 * partitions given to it. Each loop has one periodic tick that applies the due deadlines and
 * expiries of every partition it holds: no timer per message, none per partition.
 */
public final class PartitionLoops {
    /** How often deadlines are applied; bounds how late a delay end or visibility expiry wakes a long poll. */
    static final long TICK_MILLIS = 20;

    private final Vertx vertx;
    private final String deploymentId;
    private final List<Loop> loops;
    private final AtomicInteger next = new AtomicInteger();

    /** One loop: a verticle instance, so an event-loop context of its own, and its tick. */
    private static final class Loop extends VerticleBase {
        private final Clock clock;
        /** Touched only on this loop. */
        private final Set<PartitionHost> hosts = new HashSet<>();

        private long timerId = -1;

        Loop(Clock clock) {
            this.clock = clock;
        }

        @Override
        public Future<?> start() {
            timerId = vertx.setPeriodic(TICK_MILLIS, id -> tick());
            return Future.succeededFuture();
        }

        @Override
        public Future<?> stop() {
            vertx.cancelTimer(timerId);
            return Future.succeededFuture();
        }

        Context context() {
            return context;
        }

        private void tick() {
            long now = clock.millis();
            for (PartitionHost host : hosts) {
                host.tick(now);
            }
        }
    }

    private PartitionLoops(Vertx vertx, String deploymentId, List<Loop> loops) {
        this.vertx = vertx;
        this.deploymentId = deploymentId;
        this.loops = List.copyOf(loops);
    }

    /**
     * Deploys {@code count} loops. Vert.x gives each verticle instance the next of its event loops,
     * so with as many loops as event-loop threads (and HTTP verticles) every thread holds partitions.
     */
    public static Future<PartitionLoops> deploy(Vertx vertx, int count, Clock clock) {
        List<Loop> made = Collections.synchronizedList(new ArrayList<>());
        return vertx.deployVerticle(
                        () -> {
                            Loop loop = new Loop(clock);
                            made.add(loop);
                            return loop;
                        },
                        new DeploymentOptions().setInstances(count))
                .map(id -> new PartitionLoops(vertx, id, made));
    }

    /** The loop for a new partition: round robin, so a queue's partitions spread over the loops. */
    Context assign() {
        return loops.get(Math.floorMod(next.getAndIncrement(), loops.size())).context();
    }

    void attach(PartitionHost host) {
        Loop loop = loopOf(host.loop());
        loop.context().runOnContext(v -> loop.hosts.add(host));
    }

    void detach(PartitionHost host) {
        Loop loop = loopOf(host.loop());
        loop.context().runOnContext(v -> {
            loop.hosts.remove(host);
            host.close();
        });
    }

    /** Stops the ticks; partitions still attached stay as they are. */
    public Future<Void> stop() {
        return vertx.undeploy(deploymentId);
    }

    private Loop loopOf(Context context) {
        for (Loop loop : loops) {
            if (loop.context() == context) {
                return loop;
            }
        }
        throw new IllegalStateException("not a partition loop");
    }
}
