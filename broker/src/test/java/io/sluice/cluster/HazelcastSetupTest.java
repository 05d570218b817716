package io.sluice.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.config.Config;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.SplitBrainProtectionConfig;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.splitbrainprotection.SplitBrainProtectionOn;
import io.sluice.config.ClusterSettings;
import io.sluice.queue.Clock;
import io.sluice.queue.ErrorCode;
import io.sluice.queue.QueueMeta;
import io.sluice.queue.SqsException;
import io.sluice.server.FreePorts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/** What a node's Hazelcast configuration turns off when it runs alone, and keeps when it does not. */
class HazelcastSetupTest {
    private static final String HEALTH = "hazelcast.health.monitoring.level";
    private static final String BACKUP_SYNC = "hazelcast.partition.backup.sync.interval";

    @Test
    void aNodeAloneSkipsTheChecksThatNeedPeers() {
        Config c = HazelcastSetup.config(new ClusterSettings(null, "127.0.0.1", 0, 1));

        assertEquals("OFF", c.getProperty(HEALTH));
        assertEquals("3600", c.getProperty(BACKUP_SYNC));
        assertEquals(3_600_000, c.getCRDTReplicationConfig().getReplicationPeriodMillis());
        assertFalse(c.getMetricsConfig().isEnabled());
        assertFalse(c.getNetworkConfig().getJoin().getTcpIpConfig().isEnabled());
    }

    @Test
    void aClusterMemberKeepsHazelcastsOwnReplicaChecks() {
        Path file = IsolatedClusterConfig.write(IsolatedClusterConfig.newClusterName());
        Config c = HazelcastSetup.config(new ClusterSettings(file.toString(), "127.0.0.1", 0, 1));

        assertNull(c.getProperty(HEALTH));
        assertNull(c.getProperty(BACKUP_SYNC));
        assertEquals(1_000, c.getCRDTReplicationConfig().getReplicationPeriodMillis());
    }

    @Test
    void answersAreCompletedOnTheIoThreadUnlessTheConfigurationSaysOtherwise() throws IOException {
        assertEquals("0", configOf(shippedFile()).getProperty(HazelcastSetup.RESPONSE_THREADS));
        assertEquals(
                "2",
                configOf(withProperty(HazelcastSetup.RESPONSE_THREADS, "2"))
                        .getProperty(HazelcastSetup.RESPONSE_THREADS));
    }

    @Test
    void twoMembersGivenTheSamePortJoinOneClusterEachOnThePortItBound() throws IOException {
        int port = FreePorts.pick();
        ClusterSettings samePort = new ClusterSettings(shippedFile().toString(), "127.0.0.1", port, 1);
        HazelcastInstance first = Hazelcast.newHazelcastInstance(HazelcastSetup.config(samePort));
        try {
            HazelcastInstance second = Hazelcast.newHazelcastInstance(HazelcastSetup.config(samePort));
            try {
                // A public address carrying the port asked for made the second call itself by the
                // first's address: it never joined.
                await("two members in one cluster")
                        .atMost(Duration.ofSeconds(60))
                        .until(() -> first.getCluster().getMembers().size() == 2
                                && second.getCluster().getMembers().size() == 2);
                assertEquals(
                        port, first.getCluster().getLocalMember().getAddress().getPort());
                assertNotEquals(
                        port, second.getCluster().getLocalMember().getAddress().getPort());
            } finally {
                second.shutdown();
            }
        } finally {
            first.shutdown();
        }
    }

    @Test
    void seventyOnePartitionsUnlessTheConfigurationSaysOtherwise() throws IOException {
        assertEquals(
                "71",
                HazelcastSetup.config(new ClusterSettings(null, "127.0.0.1", 0, 1))
                        .getProperty(HazelcastSetup.PARTITION_COUNT));
        assertEquals("71", configOf(shippedFile()).getProperty(HazelcastSetup.PARTITION_COUNT));
        // A cluster started with Hazelcast's default keeps it when its file says so.
        assertEquals(
                "271",
                configOf(withProperty(HazelcastSetup.PARTITION_COUNT, "271"))
                        .getProperty(HazelcastSetup.PARTITION_COUNT));
    }

    /** A cluster file as shipped, under a cluster name of its own. */
    private static Path shippedFile() {
        return IsolatedClusterConfig.write(IsolatedClusterConfig.newClusterName());
    }

    /** The shipped cluster file with one more Hazelcast property. */
    private static Path withProperty(String name, String value) throws IOException {
        Path own = Files.createTempFile("sluice-cluster", ".yaml");
        own.toFile().deleteOnExit();
        Files.writeString(
                own,
                Files.readString(shippedFile())
                        .replaceFirst("  properties:\n", "  properties:\n    " + name + ": " + value + "\n"));
        return own;
    }

    private static Config configOf(Path file) {
        return HazelcastSetup.config(new ClusterSettings(file.toString(), "127.0.0.1", 0, 1));
    }

    @Test
    void theVertxRecordsAreBackedUpWithoutWaitingForTheBackup() {
        Path file = IsolatedClusterConfig.write(IsolatedClusterConfig.newClusterName());
        Config c = HazelcastSetup.config(new ClusterSettings(file.toString(), "127.0.0.1", 0, 1));

        // Each node puts its own entries again when a member leaves (vertx-hazelcast's membersRemoved).
        assertEquals(
                0, c.getMultiMapConfig(HazelcastSetup.VERTX_SUBSCRIPTIONS_MAP).getBackupCount());
        assertEquals(
                1, c.getMultiMapConfig(HazelcastSetup.VERTX_SUBSCRIPTIONS_MAP).getAsyncBackupCount());
        assertEquals(0, c.getMapConfig(HazelcastSetup.VERTX_NODES_MAP).getBackupCount());
        assertEquals(1, c.getMapConfig(HazelcastSetup.VERTX_NODES_MAP).getAsyncBackupCount());
    }

    @Test
    void theQueueMapsNeedTheMajorityForWritesOnlyWhereTheFileAsksForOne() {
        Config alone = HazelcastSetup.config(new ClusterSettings(null, "127.0.0.1", 0, 1));
        Config member = configOf(shippedFile());
        for (String map :
                List.of(HazelcastSetup.QUEUES_MAP, HazelcastSetup.DELETED_QUEUES_MAP, HazelcastSetup.MOVE_TASKS_MAP)) {
            assertNull(alone.getMapConfig(map).getSplitBrainProtectionName(), map);
            assertEquals(
                    HazelcastSetup.MAJORITY_FOR_WRITES, member.getMapConfig(map).getSplitBrainProtectionName(), map);
        }
        SplitBrainProtectionConfig writes = member.getSplitBrainProtectionConfig(HazelcastSetup.MAJORITY_FOR_WRITES);
        assertEquals(SplitBrainProtectionOn.WRITE, writes.getProtectOn());
        assertEquals(
                member.getSplitBrainProtectionConfig(HazelcastSetup.SPLIT_BRAIN_PROTECTION)
                        .getMinimumClusterSize(),
                writes.getMinimumClusterSize());
    }

    @Test
    void aMapThatAFileCoversOnlyByAWildcardGetsACopyOfItsOwn() throws IOException {
        Path own = Files.createTempFile("sluice-cluster", ".yaml");
        own.toFile().deleteOnExit();
        Files.writeString(
                own,
                Files.readString(shippedFile())
                        .replaceFirst(
                                "    sluice.queues:\n", "    sluice.*:\n      backup-count: 2\n    sluice.queues:\n"));
        Config c = configOf(own);

        MapConfig wildcard = c.getMapConfig("sluice.*");
        MapConfig moveTasks = c.getMapConfigOrNull(HazelcastSetup.MOVE_TASKS_MAP);
        assertAll(
                () -> assertNull(wildcard.getSplitBrainProtectionName(), "the file's wildcard is left as it is"),
                () -> assertEquals(HazelcastSetup.MOVE_TASKS_MAP, moveTasks.getName()),
                () -> assertEquals(2, moveTasks.getBackupCount(), "the copy keeps the file's settings"),
                () -> assertEquals(HazelcastSetup.MAJORITY_FOR_WRITES, moveTasks.getSplitBrainProtectionName()));
    }

    @Test
    void aMemberWithoutItsMajorityRefusesQueueChangesAsServiceUnavailableAndStillReadsThem() {
        // The shipped files ask for two members; this one is alone.
        HazelcastInstance lone = Hazelcast.newHazelcastInstance(configOf(shippedFile()));
        ExecutorService blocking = Executors.newSingleThreadExecutor();
        try {
            HazelcastQueueRegistry registry = new HazelcastQueueRegistry(
                    lone.getMap(HazelcastSetup.QUEUES_MAP),
                    lone.getMap(HazelcastSetup.DELETED_QUEUES_MAP),
                    Clock.SYSTEM,
                    blocking,
                    name -> {});
            CompletionException refused = assertThrows(
                    CompletionException.class,
                    () -> registry.create(new QueueMeta("q", false, 2, 0, 0, Map.of(), Map.of(), 0))
                            .toCompletableFuture()
                            .join());
            SqsException answer = assertInstanceOf(SqsException.class, refused.getCause());
            assertEquals(ErrorCode.SERVICE_UNAVAILABLE, answer.code());
            assertNull(lone.getMap(HazelcastSetup.QUEUES_MAP).get("q"), "reads are allowed");
            assertTrue(registry.list("").isEmpty());
        } finally {
            blocking.shutdownNow();
            lone.shutdown();
        }
    }
}
