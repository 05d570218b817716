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
import java.util.function.Consumer;

/**
 * The event loops partitions live on: one deployed verticle per loop, whose context runs the
 * partitions given to it. Each loop has one timer, armed for the earliest deadline any of its
 * partitions reports (a delay end, a visibility or retention expiry, an ownership check): no
 * timer per message, none per partition, and no wake-up at all on a loop with nothing due.
 */
public final class PartitionLoops {
    /**
     * The longest a loop with partitions sleeps, whatever they report: bounds how late a shortened
     * retention period (read when the timer fires) takes effect.
     */
    static final long MAX_SLEEP_MILLIS = 1_000;

    private final Vertx vertx;
    private final String deploymentId;
    private final List<Loop> loops;
    private final AtomicInteger next = new AtomicInteger();

    /** One loop: a verticle instance, so an event-loop context of its own, and its timer. */
    private static final class Loop extends VerticleBase {
        private final Clock clock;
        /** Touched only on this loop, like the fields below. */
        private final Set<PartitionHost> hosts = new HashSet<>();

        private long timerId = -1;
        /** When the armed timer fires; {@link Long#MAX_VALUE} when none is armed. */
        private long armedAt = Long.MAX_VALUE;

        Loop(Clock clock) {
            this.clock = clock;
        }

        @Override
        public Future<?> stop() {
            disarm();
            return Future.succeededFuture();
        }

        Context context() {
            return context;
        }

        /** Makes the timer fire by {@code at} (a clock time) at the latest. Runs on the loop. */
        void wakeBy(long at) {
            if (at >= armedAt) {
                return;
            }
            disarm();
            armedAt = at;
            timerId = vertx.setTimer(Math.max(1, at - clock.millis()), id -> {
                timerId = -1;
                armedAt = Long.MAX_VALUE;
                tick();
            });
        }

        private void disarm() {
            if (timerId >= 0) {
                vertx.cancelTimer(timerId);
                timerId = -1;
            }
            armedAt = Long.MAX_VALUE;
        }

        private void tick() {
            long now = clock.millis();
            long next = hosts.isEmpty() ? Long.MAX_VALUE : now + MAX_SLEEP_MILLIS;
            for (PartitionHost host : hosts) {
                next = Math.min(next, host.tick(now));
            }
            wakeBy(next);
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
        loop.context().runOnContext(v -> {
            loop.hosts.add(host);
            host.onDeadline(loop::wakeBy);
        });
    }

    /** Takes the partition off its loop's timer and lets go of it ({@link PartitionHost#close}). */
    void detach(PartitionHost host) {
        detach(host, PartitionHost::close);
    }

    /** Detaches the partition of a deleted queue, which first erases what it stored ({@link PartitionHost#retire}). */
    void retire(PartitionHost host) {
        detach(host, PartitionHost::retire);
    }

    private void detach(PartitionHost host, Consumer<PartitionHost> last) {
        Loop loop = loopOf(host.loop());
        loop.context().runOnContext(v -> {
            loop.hosts.remove(host);
            last.accept(host);
        });
    }

    /** Stops the timers; partitions still attached stay as they are. */
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
