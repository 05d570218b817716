package io.sluice.server;

import io.sluice.config.BrokerConfig;
import io.sluice.partition.PartitionDirectory;
import io.sluice.partition.PartitionLoops;
import io.sluice.queue.Clock;
import io.sluice.queue.InMemoryCommitPort;
import io.sluice.queue.InMemoryQueueRegistry;
import io.sluice.queue.QueueRegistry;
import io.sluice.queue.ReceiptHandle;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.ThreadingModel;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.security.SecureRandom;
import java.util.concurrent.TimeUnit;

/** One running broker node: Vert.x, the partition loops, and the SQS HTTP endpoint. */
public final class SluiceNode implements AutoCloseable {
    private final Vertx vertx;
    private final PartitionLoops loops;
    private final Health health;
    private final int port;
    private final String baseUrl;

    private SluiceNode(Vertx vertx, PartitionLoops loops, Health health, int port, String baseUrl) {
        this.vertx = vertx;
        this.loops = loops;
        this.health = health;
        this.port = port;
        this.baseUrl = baseUrl;
    }

    /** Starts a node and blocks until its HTTP port is listening. */
    public static SluiceNode start(BrokerConfig requested) {
        BrokerConfig config = requested.port() == 0 ? requested.withPort(freePort(requested.host())) : requested;
        int eventLoops = Math.max(2, 2 * Runtime.getRuntime().availableProcessors());
        Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(eventLoops));
        Clock clock = Clock.SYSTEM;
        QueueRegistry registry = new InMemoryQueueRegistry(clock);
        LongPolls longPolls = new LongPolls();
        PartitionLoops loops = new PartitionLoops(vertx, eventLoops, clock);
        PartitionDirectory partitions = new PartitionDirectory(loops, new InMemoryCommitPort(), clock, registry, longPolls);
        String baseUrl = config.publicBaseUrl(config.port());
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        Broker broker = new Broker(config, clock, registry, partitions, new ReceiptHandle.Codec(secret),
                new QueueUrls(baseUrl, config.accountId(), config.region()), longPolls);
        Health health = new Health();
        try {
            vertx.deployVerticle(() -> new SqsHttpVerticle(broker, health),
                            new DeploymentOptions().setInstances(eventLoops).setThreadingModel(ThreadingModel.EVENT_LOOP))
                    .toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            vertx.close();
            throw new IllegalStateException("could not start the SQS endpoint on " + config.host() + ":" + config.port(), e);
        }
        health.ready(true);
        return new SluiceNode(vertx, loops, health, config.port(), baseUrl);
    }

    /** The HTTP port the node listens on (useful with port 0). */
    public int port() { return port; }

    /** The base URL of queue URLs, e.g. http://127.0.0.1:9324 */
    public String baseUrl() { return baseUrl; }

    /** Stops the node and blocks until it has stopped. */
    @Override
    public void close() {
        health.ready(false);
        loops.stop(vertx);
        try {
            vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("node did not stop cleanly", e);
        }
    }

    private static int freePort(String host) {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getByName(host))) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
