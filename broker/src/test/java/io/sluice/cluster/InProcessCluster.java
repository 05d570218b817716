package io.sluice.cluster;

import static org.awaitility.Awaitility.await;

import com.hazelcast.config.Config;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.partition.Partition;
import io.sluice.cluster.store.PartitionStore;
import io.sluice.config.ClusterSettings;
import io.sluice.partition.Ownership;
import io.sluice.partition.PartitionDirectory;
import io.sluice.partition.PartitionLoops;
import io.sluice.partition.SendAffinity;
import io.sluice.queue.Clock;
import io.sluice.queue.CommitPort;
import io.sluice.queue.InMemoryQueueRegistry;
import io.sluice.queue.PartitionKey;
import io.sluice.queue.QueueMeta;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * Real Hazelcast members in this JVM, configured as a node configures itself
 * ({@link HazelcastSetup} over the project's cluster-config/local.yaml), under a cluster name of
 * their own so that nothing else on the machine joins them. Members are plain Hazelcast
 * instances, or carry a clustered Vert.x whose event bus spans the members.
 */
final class InProcessCluster implements AutoCloseable {
    /** A member with a clustered Vert.x, as a node runs it. */
    record Node(Vertx vertx, HazelcastInstance hz, String nodeId) {}

    private final ClusterSettings settings;
    private final List<HazelcastInstance> members = new ArrayList<>();
    private final List<Vertx> vertxes = new ArrayList<>();

    InProcessCluster() {
        Path file = IsolatedClusterConfig.write(IsolatedClusterConfig.newClusterName());
        settings = new ClusterSettings(file.toString(), "127.0.0.1", 0, 1);
    }

    private Config config() {
        return HazelcastSetup.config(settings);
    }

    /** Starts a plain member and waits until it has joined the others. */
    HazelcastInstance member() {
        return member(UnaryOperator.identity());
    }

    /** As {@link #member()}, with the member's configuration changed first (to act as a member of another build). */
    HazelcastInstance member(UnaryOperator<Config> adjust) {
        HazelcastInstance hz = Hazelcast.newHazelcastInstance(adjust.apply(config()));
        synchronized (members) {
            members.add(hz);
        }
        awaitSize(hz, members.size());
        return hz;
    }

    /**
     * Starts a member with a clustered Vert.x on it, its event-bus codecs registered as a node
     * registers them, and waits until it has joined the others.
     */
    Node node() {
        return node(UnaryOperator.identity());
    }

    /** As {@link #node()}, with the node's configuration changed first (to act as a member of another build). */
    Node node(UnaryOperator<Config> adjust) {
        HazelcastClusterManager manager = new HazelcastClusterManager(adjust.apply(config()));
        VertxOptions options = new VertxOptions().setEventLoopPoolSize(2);
        options.getEventBusOptions().setHost(settings.host()).setPort(0).setClusterPublicHost(settings.host());
        Vertx vertx =
                join(Vertx.builder().with(options).withClusterManager(manager).buildClustered());
        HazelcastInstance hz = manager.getHazelcastInstance();
        HazelcastMessageCodec.register(vertx.eventBus(), hz);
        synchronized (members) {
            members.add(hz);
            vertxes.add(vertx);
        }
        awaitSize(hz, members.size());
        return new Node(vertx, hz, manager.getNodeId());
    }

    /**
     * Waits until every Hazelcast partition has an owner, every data member owns some, and the
     * backups are in place, so a partition's owner stays put while a test runs (unless the test
     * changes the membership). Right after a join the cluster can report itself safe before the
     * new member was given any partition: CommitFenceTest then found none owned by it (CI, once).
     */
    static void awaitSettled(HazelcastInstance hz) {
        await("partition table settled")
                .atMost(Duration.ofSeconds(60))
                .until(() -> hz.getPartitionService().isClusterSafe()
                        && hz.getPartitionService().getPartitions().stream().allMatch(p -> p.getOwner() != null)
                        && everyDataMemberOwnsAPartition(hz));
    }

    private static boolean everyDataMemberOwnsAPartition(HazelcastInstance hz) {
        Set<UUID> owners = new HashSet<>();
        for (Partition p : hz.getPartitionService().getPartitions()) {
            if (p.getOwner() != null) {
                owners.add(p.getOwner().getUuid());
            }
        }
        return hz.getCluster().getMembers().stream().allMatch(m -> m.isLiteMember() || owners.contains(m.getUuid()));
    }

    /**
     * The first queue partition of {@code queueName} that Hazelcast gives to {@code member}, as
     * that member sees the partition table (its view may trail the master's for a moment, so
     * this waits for it, bounded).
     */
    static int partitionOwnedBy(HazelcastInstance member, String queueName, int partitions) {
        UUID wanted = member.getCluster().getLocalMember().getUuid();
        return await("a partition of " + queueName + " owned by " + wanted + " (else give the queue more partitions)")
                .atMost(Duration.ofSeconds(30))
                .until(() -> firstOwnedBy(member, wanted, queueName, partitions), i -> i >= 0);
    }

    private static int firstOwnedBy(HazelcastInstance member, UUID wanted, String queueName, int partitions) {
        for (int i = 0; i < partitions; i++) {
            Partition p = member.getPartitionService().getPartition(new PartitionKey(queueName, i).toString());
            if (p.getOwner() != null && p.getOwner().getUuid().equals(wanted)) {
                return i;
            }
        }
        return -1;
    }

    private static void awaitSize(HazelcastInstance hz, int size) {
        await("cluster of " + size)
                .atMost(Duration.ofSeconds(60))
                .until(() -> hz.getCluster().getMembers().size() == size);
    }

    /**
     * The bodies of the event-bus messages {@code from} sends to {@code to}'s node address from now on,
     * in order, as they leave {@code from} (an outbound interceptor).
     */
    static List<Object> sentTo(Node from, Node to) {
        String address = ClusterRouter.address(to.nodeId());
        List<Object> sent = new CopyOnWriteArrayList<>();
        from.vertx().eventBus().addOutboundInterceptor(delivery -> {
            if (address.equals(delivery.message().address())) {
                sent.add(delivery.body());
            }
            delivery.next();
        });
        return sent;
    }

    /** Deploys the node's server of forwarded requests on two loops, as a node does; its deployment id. */
    static String serveForwarded(Node node, PartitionDirectory directory) {
        return join(node.vertx()
                .deployVerticle(
                        () -> new ForwardedRequests(directory, node.nodeId()),
                        new DeploymentOptions().setInstances(2)));
    }

    /** The node's router, as a clustered node builds it, over its directory of that one queue. */
    static ClusterRouter router(
            Node node, PartitionDirectory directory, HazelcastOwnership ownership, String queue, int partitions) {
        return new ClusterRouter(
                node.vertx(),
                directory,
                ownership,
                new StatsBoard(directory, registry(queue, partitions), node.nodeId()),
                SendAffinity.BLOCK);
    }

    /** A registry that knows one standard queue of the given partitions. */
    static InMemoryQueueRegistry registry(String queue, int partitions) {
        InMemoryQueueRegistry registry = new InMemoryQueueRegistry(Clock.SYSTEM);
        long now = System.currentTimeMillis();
        join(Future.fromCompletionStage(
                registry.create(new QueueMeta(queue, false, partitions, now, now, Map.of(), Map.of(), 0))));
        return registry;
    }

    /** The partitions a node runs on two loops of its own, stored in memory, of that one queue. */
    static PartitionDirectory directory(Node node, Ownership ownership, String queue, int partitions) {
        return new PartitionDirectory(
                PartitionLoops.deploy(node.vertx(), 2, Clock.SYSTEM).await(),
                CommitPort.inMemory(),
                Clock.SYSTEM,
                registry(queue, partitions),
                (q, partition) -> {},
                ownership);
    }

    /** The commit port a node builds on {@code member}, committing as that member. */
    static HazelcastCommitPort commitPort(HazelcastInstance member) {
        return commitPort(member, () -> member.getCluster().getLocalMember().getUuid());
    }

    /** The commit port of {@code member}, committing under the identity {@code identity} names. */
    static HazelcastCommitPort commitPort(HazelcastInstance member, Supplier<UUID> identity) {
        return new HazelcastCommitPort(
                PartitionStore.of(member), new HazelcastOwnership(member.getPartitionService()), identity);
    }

    static <T> T join(Future<T> f) {
        try {
            return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        for (Vertx v : vertxes) {
            // Closing a clustered Vert.x leaves the cluster and shuts its member down.
            join(v.close());
        }
        for (HazelcastInstance hz : members) {
            if (hz.getLifecycleService().isRunning()) {
                hz.shutdown();
            }
        }
    }
}
