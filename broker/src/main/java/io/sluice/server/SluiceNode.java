package io.sluice.server;

import com.hazelcast.config.Config;
import com.hazelcast.core.HazelcastInstance;
import io.sluice.cluster.ClusterRouter;
import io.sluice.cluster.ForwardedRequests;
import io.sluice.cluster.HazelcastCommitPort;
import io.sluice.cluster.HazelcastMessageCodec;
import io.sluice.cluster.HazelcastOwnership;
import io.sluice.cluster.HazelcastQueueRegistry;
import io.sluice.cluster.HazelcastSetup;
import io.sluice.cluster.MemberLosses;
import io.sluice.cluster.MoveTaskStore;
import io.sluice.cluster.PauseGuard;
import io.sluice.cluster.ReceiptSecret;
import io.sluice.cluster.Reconciler;
import io.sluice.cluster.StatsBoard;
import io.sluice.cluster.WakeRelay;
import io.sluice.cluster.store.PartitionStore;
import io.sluice.config.BrokerConfig;
import io.sluice.partition.Ownership;
import io.sluice.partition.PartitionDirectory;
import io.sluice.partition.PartitionLoops;
import io.sluice.partition.SendAffinity;
import io.sluice.partition.VisibilityListener;
import io.sluice.queue.Clock;
import io.sluice.queue.CommitPort;
import io.sluice.queue.ReceiptHandle;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.ThreadingModel;
import io.vertx.core.Vertx;
import io.vertx.core.VertxBuilder;
import io.vertx.core.VertxOptions;
import io.vertx.core.transport.Transport;
import io.vertx.micrometer.MicrometerMetricsFactory;
import io.vertx.micrometer.MicrometerMetricsOptions;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

/**
 * One running broker node: a member of a Hazelcast cluster (of one, by default) with a
 * clustered Vert.x, the partitions it owns on its event loops, and the SQS HTTP endpoint.
 */
public final class SluiceNode implements AutoCloseable {
    private static final long START_TIMEOUT_SECONDS = 120;

    private final Vertx vertx;
    private final PartitionLoops loops;
    private final PartitionDirectory directory;
    private final Health health;
    private final ExecutorService blocking;
    private final int port;
    private final String baseUrl;

    private SluiceNode(
            Vertx vertx,
            PartitionLoops loops,
            PartitionDirectory directory,
            Health health,
            ExecutorService blocking,
            int port,
            String baseUrl) {
        this.vertx = vertx;
        this.directory = directory;
        this.loops = loops;
        this.health = health;
        this.blocking = blocking;
        this.port = port;
        this.baseUrl = baseUrl;
    }

    /** Starts a node and blocks until it is ready: joined, listening, its partitions rebuilt. */
    public static SluiceNode start(BrokerConfig requested) {
        BrokerConfig config = requested.port() == 0 ? requested.withPort(FreePorts.pick()) : requested;
        // Each HTTP verticle and each partition loop shares these threads (see BrokerConfig.eventLoopThreads).
        int eventLoops = config.eventLoopThreads();
        Config hazelcast = HazelcastSetup.config(config.cluster());
        HazelcastClusterManager manager = new HazelcastClusterManager(hazelcast);
        Metrics metrics = new Metrics();
        VertxOptions options =
                new VertxOptions().setEventLoopPoolSize(eventLoops).setPreferNativeTransport(config.nativeTransport());
        options.getEventBusOptions()
                .setHost(config.cluster().host())
                .setPort(0)
                .setClusterPublicHost(config.cluster().host());
        VertxBuilder builder = Vertx.builder().withClusterManager(manager);
        if (config.vertxMetrics()) {
            // Vert.x's own metrics cost on every request and event-bus message: only when asked for.
            options.setMetricsOptions(new MicrometerMetricsOptions().setEnabled(true));
            builder.withMetrics(new MicrometerMetricsFactory(metrics.registry()));
        }
        Vertx vertx = await(builder.with(options).buildClustered(), "join the cluster");
        // Hazelcast's queries and conditional writes block; they run here, never on an event loop.
        ExecutorService blocking = Executors.newFixedThreadPool(8, r -> {
            Thread t = new Thread(r, "sluice-hazelcast");
            t.setDaemon(true);
            return t;
        });
        try {
            // The cluster file is checked against Hazelcast's schema once per cluster (the first
            // nodes check it, a node that joins later finds their pass); nothing is served before.
            checkConfigFile(config, manager.getHazelcastInstance());
            return wire(config, vertx, manager, blocking, eventLoops, metrics);
        } catch (RuntimeException e) {
            // Joined, but not serving: leave the cluster again, handing back what migrated here.
            // The pool goes last: timers that run until Vert.x closes still hand work to it.
            try {
                await(vertx.close(), "leave the cluster");
            } catch (RuntimeException closing) {
                e.addSuppressed(closing);
            } finally {
                blocking.shutdownNow();
            }
            throw e;
        }
    }

    private static SluiceNode wire(
            BrokerConfig config,
            Vertx vertx,
            HazelcastClusterManager manager,
            ExecutorService blocking,
            int eventLoops,
            Metrics metrics) {
        HazelcastInstance hz = manager.getHazelcastInstance();
        String nodeId = manager.getNodeId();
        Clock clock = Clock.SYSTEM;
        LongPolls longPolls = new LongPolls();
        boolean standalone = HazelcastSetup.standalone(config.cluster());
        // The partition loops and the wake relay do not need each other: they start together (on a
        // loaded machine every step of a start waits its turn for a core).
        Future<PartitionLoops> loopsDeployed = PartitionLoops.deploy(vertx, eventLoops, clock);
        // Alone, every parked poll is on this node: a partition wakes them directly. In a cluster
        // the relay also tells the nodes where polls on the queue are parked.
        VisibilityListener wakes = longPolls;
        if (!standalone) {
            WakeRelay relay = await(WakeRelay.start(vertx, hz, longPolls), "start the wake relay");
            longPolls.onFirstWait(relay::watch);
            wakes = relay;
        }
        AtomicReference<PartitionDirectory> directoryRef = new AtomicReference<>();
        HazelcastOwnership ownership = new HazelcastOwnership(hz.getPartitionService());
        HazelcastQueueRegistry registry = new HazelcastQueueRegistry(
                hz.getMap(HazelcastSetup.QUEUES_MAP),
                hz.getMap(HazelcastSetup.DELETED_QUEUES_MAP),
                clock,
                blocking,
                deleted -> {
                    PartitionDirectory d = directoryRef.get();
                    if (d != null) {
                        d.forget(deleted);
                    }
                    longPolls.wakeAll(deleted.name());
                    metrics.forget(deleted.name());
                    ownership.forget(deleted.name());
                });
        ownership.cachesOnly(name -> registry.find(name) != null);
        PartitionLoops loops = await(loopsDeployed, "start the partition loops");
        PartitionDirectory directory;
        Ownership owned;
        BooleanSupplier paused;
        if (standalone) {
            // Nobody else can own its partitions or hold a replica: commits end in memory, and no
            // pause can have cost it partitions.
            owned = ownership;
            paused = () -> false;
            directory = new PartitionDirectory(loops, CommitPort.inMemory(), clock, registry, wakes, owned);
        } else {
            PauseGuard guarded = new PauseGuard(
                    ownership, Long.parseLong(hz.getConfig().getProperty("hazelcast.max.no.heartbeat.seconds")));
            owned = guarded;
            paused = guarded::suspect;
            directory = new PartitionDirectory(
                    loops,
                    new HazelcastCommitPort(
                            PartitionStore.of(hz),
                            ownership,
                            () -> hz.getCluster().getLocalMember().getUuid()),
                    clock,
                    registry,
                    wakes,
                    owned);
            guarded.start(vertx, hz, directory);
            // A gained partition waits for the hand-over to settle only after a member was lost or
            // this node was frozen; one that migrated from a live member is served at once.
            MemberLosses losses = MemberLosses.watch(hz);
            directory.handoverRisk(() -> losses.recent() || guarded.suspect());
        }
        directoryRef.set(directory);
        StatsBoard stats = new StatsBoard(directory, registry, nodeId);
        if (!standalone) {
            // Alone, every partition is read live and nobody would hear the counts.
            stats.start(vertx);
        }
        HazelcastMessageCodec.register(vertx.eventBus(), hz);
        ClusterRouter router = new ClusterRouter(
                vertx, directory, ownership, stats, standalone ? SendAffinity.NO_BLOCK : SendAffinity.BLOCK);
        // Serving other nodes' forwarded requests and listening for clients do not need each other
        // either: both are deployed here and awaited together below.
        Future<String> forwarding = vertx.deployVerticle(
                () -> new ForwardedRequests(directory, nodeId), new DeploymentOptions().setInstances(eventLoops));
        Reconciler reconciler =
                new Reconciler(vertx, directory, registry, owned, hz.getPartitionService(), longPolls, blocking);
        if (!standalone) {
            // What a partition brought here of a queue deleted meanwhile is erased.
            reconciler.heldPartitions(PartitionStore.of(hz)::heldPartitions);
        }
        reconciler.start(!standalone);

        String baseUrl = config.publicBaseUrl(config.port());
        Broker broker = new Broker(
                config,
                clock,
                registry,
                router,
                new ReceiptHandle.Codec(ReceiptSecret.shared(hz)),
                new QueueUrls(baseUrl, config.accountId(), config.region()),
                longPolls,
                MemoryGuard.watchingThisJvm(),
                new MoveTaskStore(hz),
                metrics);
        directory.events(metrics);
        metrics.bind(directory, router, longPolls, clock);
        Health health = new Health(paused, reconciler::backupsInPlace, reconciler::partitionsRebuilt);
        ConnectionLimit connections = new ConnectionLimit(config.http().maxConnections());
        Future<String> listening = vertx.deployVerticle(
                () -> new SqsHttpVerticle(broker, health, connections),
                new DeploymentOptions().setInstances(eventLoops).setThreadingModel(ThreadingModel.EVENT_LOOP));
        await(forwarding, "serve forwarded requests");
        await(listening, "listen on " + config.host() + ":" + config.port());
        health.awaitReady(START_TIMEOUT_SECONDS);
        return new SluiceNode(vertx, loops, directory, health, blocking, config.port(), baseUrl);
    }

    /** The HTTP port the node listens on (useful with port 0). */
    public int port() {
        return port;
    }

    /**
     * What the node's sockets run on (HTTP and the event bus; Hazelcast has its own): {@code epoll} when
     * the native transport was asked for and its library loaded, else {@code nio}.
     */
    public String transport() {
        return vertx.isNativeTransportEnabled() ? Transport.nativeTransport().name() : Transport.NIO.name();
    }

    /** Why the native transport is not in use although asked for; null when it is, or was not asked for. */
    public Throwable nativeTransportMissing() {
        return vertx.isNativeTransportEnabled() ? null : vertx.unavailableNativeTransportCause();
    }

    /** The base URL of queue URLs, e.g. http://127.0.0.1:9324 */
    public String baseUrl() {
        return baseUrl;
    }

    /** Leaves the cluster (handing its partitions over) and stops; blocks until done. */
    @Override
    public void close() {
        health.stopping();
        // Stop serving partitions before leaving: requests re-route to the next owners (after the
        // migration) instead of being written by a node whose writes could land late.
        directory.dropAll(false);
        loops.stop();
        try {
            vertx.close().toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("node did not stop cleanly", e);
        } finally {
            blocking.shutdownNow();
        }
    }

    private static void checkConfigFile(BrokerConfig config, HazelcastInstance hz) {
        try {
            HazelcastSetup.checkConfigFile(config.cluster(), hz);
        } catch (RuntimeException e) {
            throw new IllegalStateException(
                    "could not start with the cluster configuration "
                            + config.cluster().configFile(),
                    e);
        }
    }

    private static <T> T await(Future<T> f, String what) {
        return await(f.toCompletionStage().toCompletableFuture(), what);
    }

    /** The future's result; a failure is reported with its own cause, not the wrapper get() adds. */
    private static <T> T await(CompletableFuture<T> f, String what) {
        try {
            return f.get(START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException("could not " + what, e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("could not " + what, e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("could not " + what + " within " + START_TIMEOUT_SECONDS + " s", e);
        }
    }
}
