package io.sluice.cluster;

import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.MultiMapConfig;
import com.hazelcast.config.SplitBrainProtectionConfig;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.splitbrainprotection.SplitBrainProtectionOn;
import io.sluice.cluster.store.PartitionStore;
import io.sluice.config.ClusterSettings;
import java.util.List;
import java.util.logging.Logger;

/**
 * The Hazelcast member configuration of a node: the user's YAML (cluster-config/) or, without
 * one, a cluster of one that never looks for peers; plus what Sluice always needs.
 */
public final class HazelcastSetup {
    private static final Logger LOG = Logger.getLogger(HazelcastSetup.class.getName());

    /**
     * The split-brain protection the partition store's writes require when the member
     * configuration defines it (the files in cluster-config/ do: a majority of the cluster).
     */
    public static final String SPLIT_BRAIN_PROTECTION = "sluice-majority";

    /**
     * The same majority as {@link #SPLIT_BRAIN_PROTECTION}, required of writes only: the maps of
     * queues, deleted names and move tasks take changes only where the messages can be written, and
     * stay readable on a minority side (a queue's URL and attributes, which SQS lets lag).
     */
    static final String MAJORITY_FOR_WRITES = "sluice-majority-writes";

    public static final String QUEUES_MAP = "sluice.queues";
    /** The Vert.x cluster manager's event-bus consumers: address to the nodes that consume it. */
    static final String VERTX_SUBSCRIPTIONS_MAP = "__vertx.subs";
    /** The Vert.x cluster manager's node records (event-bus host and port of each node). */
    static final String VERTX_NODES_MAP = "__vertx.nodeInfo";

    public static final String DELETED_QUEUES_MAP = "sluice.deleted-queues";
    /** Message move tasks, keyed by source queue ARN ({@link MoveTaskStore}). */
    public static final String MOVE_TASKS_MAP = "sluice.move-tasks";
    /** Cluster files that passed Hazelcast's schema check: fingerprint to the member that checked it. */
    static final String CONFIG_CHECKS_MAP = "sluice.config-checks";

    /** How seldom a standalone member runs the replica checks that need peers to do anything. */
    private static final int STANDALONE_PERIOD_SECONDS = 3600;

    /** Hazelcast's threads that complete operations' answers; 0: the IO thread that read an answer does. */
    static final String RESPONSE_THREADS = "hazelcast.operation.response.thread.count";

    /**
     * Hazelcast's partition count: every member of a cluster must use the same one, so it applies
     * only where the configuration file (or {@code -Dhazelcast.partition.count}) sets none.
     */
    static final String PARTITION_COUNT = "hazelcast.partition.count";

    /**
     * Instead of Hazelcast's 271. A Hazelcast partition holds the records of every queue partition
     * whose key falls in it and moves as one unit; a joining node takes over its share of them one
     * migration each, and a start builds every service's containers once per partition. With 71, a
     * second node joining an idle one was ready 2.9-3.5 s after launch on 4.2-5.0 s of CPU, against
     * 4.5-4.9 s on 6.4-6.7 s (load-tests/join-time.sh, five rounds; load-tests/README.md, stop 37).
     * 71 is prime, like 271: ten nodes own seven or eight each; a cluster of more than a dozen or
     * so nodes wants a bigger count, set in its file.
     */
    static final int DEFAULT_PARTITION_COUNT = 71;

    private HazelcastSetup() {}

    /** Whether the node runs alone: no configuration file, so it joins nobody and nobody holds a replica. */
    public static boolean standalone(ClusterSettings settings) {
        return settings.configFile() == null;
    }

    /**
     * The member configuration; a configuration file is read without Hazelcast's schema check, which
     * {@link #checkConfigFile} runs once the node has joined ({@link MemberConfigFile}).
     */
    public static Config config(ClusterSettings settings) {
        Config c = settings.configFile() == null ? standalone() : MemberConfigFile.read(settings.configFile());
        if (settings.hazelcastPort() > 0) {
            c.getNetworkConfig().setPort(settings.hazelcastPort());
        }
        // The host only: Hazelcast adds the port it bound. That is the one asked for unless another
        // member on the machine has it; then the next free one (auto-increment), which a port given
        // here would have hidden: two nodes started with the same --hz-port both called themselves
        // by the first's address and never joined.
        if (settings.configFile() == null || c.getNetworkConfig().getPublicAddress() == null) {
            c.getNetworkConfig().setPublicAddress(settings.host());
        }
        // Vert.x closes Hazelcast itself on SIGTERM; Hazelcast's own hook would race it.
        c.setProperty("hazelcast.shutdownhook.enabled", "false");
        // A write whose backups did not answer fails instead of silently succeeding.
        c.setProperty("hazelcast.operation.fail.on.indeterminate.state", "true");
        c.setProperty("hazelcast.phone.home.enabled", "false");
        if (c.getProperty("hazelcast.logging.type") == null) {
            c.setProperty("hazelcast.logging.type", "jdk");
        }
        if (c.getProperty("hazelcast.max.no.heartbeat.seconds") == null) {
            c.setProperty("hazelcast.max.no.heartbeat.seconds", "10");
        }
        // Config.getProperty falls back to the JVM's system properties: -D counts as set.
        if (c.getProperty(PARTITION_COUNT) == null) {
            c.setProperty(PARTITION_COUNT, Integer.toString(DEFAULT_PARTITION_COUNT));
        }
        // Answers of operations are completed on the IO thread that read them, not handed to a
        // response thread: one thread wake less per commit (each callback here only hands the
        // result on to a Vert.x context). Three nodes, SendMessage through one: 4.7 instead of 6.2
        // context switches per message (load-tests/README.md, stop 21).
        if (c.getProperty(RESPONSE_THREADS) == null) {
            c.setProperty(RESPONSE_THREADS, "0");
        }
        // Other members send batched partition requests to this one; older builds get them one by one.
        c.getMemberAttributeConfig().setAttribute(HazelcastOwnership.BATCHES_ATTRIBUTE, "1");
        // ... and bundles of the requests one loop forwards to this member in a turn.
        c.getMemberAttributeConfig().setAttribute(HazelcastOwnership.BUNDLES_ATTRIBUTE, "1");
        // Every queue partition's records, in the partition store service: one operation per commit.
        PartitionStore.register(c, settings.backupCount(), SPLIT_BRAIN_PROTECTION);
        String writesNeed = majorityForWrites(c);
        for (String name : List.of(QUEUES_MAP, DELETED_QUEUES_MAP, MOVE_TASKS_MAP)) {
            MapConfig map = c.getMapConfigOrNull(name);
            if (map == null) {
                map = new MapConfig(name).setBackupCount(Math.max(1, settings.backupCount()));
                c.addMapConfig(map);
            } else if (!map.getName().equals(name)) {
                // Found by a wildcard of the file: changed in a copy of its own, not for every map it covers.
                map = new MapConfig(map).setName(name);
                c.addMapConfig(map);
            }
            // The file's own choice, if it makes one, stands.
            if (map.getSplitBrainProtectionName() == null) {
                map.setSplitBrainProtectionName(writesNeed);
            }
        }
        MoveTaskStore.register(c.getSerializationConfig().getCompactSerializationConfig());
        // Forwarded requests and replies, and queue metadata in the registry's map.
        WireSerialization.register(c.getSerializationConfig());
        // What the Vert.x cluster manager's own structures need (its default-cluster.xml), with one
        // difference: its consumers and node records are backed up asynchronously. Every node puts
        // its own entries again when a member leaves, so a backup that never arrived costs nothing;
        // a synchronous one could fail a consumer's registration (and a node's start) when its
        // acknowledgement is late, as fail.on.indeterminate.state makes every sync backup do.
        if (c.getMultiMapConfigs().get(VERTX_SUBSCRIPTIONS_MAP) == null) {
            c.addMultiMapConfig(new MultiMapConfig(VERTX_SUBSCRIPTIONS_MAP)
                    .setBackupCount(0)
                    .setAsyncBackupCount(1)
                    .setValueCollectionType(MultiMapConfig.ValueCollectionType.SET));
        }
        c.addMapConfig(new MapConfig("__vertx.haInfo").setBackupCount(1));
        if (c.getMapConfigOrNull(VERTX_NODES_MAP) == null) {
            c.addMapConfig(new MapConfig(VERTX_NODES_MAP).setBackupCount(0).setAsyncBackupCount(1));
        }
        return c;
    }

    /**
     * Adds {@link #MAJORITY_FOR_WRITES}, a copy of {@link #SPLIT_BRAIN_PROTECTION} that guards writes
     * only, when the configuration enables the latter (the files in cluster-config/ do): its minimum
     * cluster size and function class, not a function instance (those keep per-member state).
     *
     * @return its name, or null when there is no majority to require (a node alone, or a file without one)
     */
    private static String majorityForWrites(Config c) {
        SplitBrainProtectionConfig majority = c.getSplitBrainProtectionConfigs().get(SPLIT_BRAIN_PROTECTION);
        if (majority == null || !majority.isEnabled()) {
            return null;
        }
        c.addSplitBrainProtectionConfig(
                new SplitBrainProtectionConfig(MAJORITY_FOR_WRITES, true, majority.getMinimumClusterSize())
                        .setProtectOn(SplitBrainProtectionOn.WRITE)
                        .setFunctionClassName(majority.getFunctionClassName()));
        return MAJORITY_FOR_WRITES;
    }

    /**
     * Checks the configuration file against Hazelcast's schema, unless the cluster {@code hz} has
     * joined already holds a pass for the same file under the same Hazelcast version; throws
     * Hazelcast's {@code InvalidConfigurationException} when the file does not pass. Blocks: never
     * on an event loop.
     */
    public static void checkConfigFile(ClusterSettings settings, HazelcastInstance hz) {
        String file = settings.configFile();
        if (file == null) {
            return;
        }
        switch (MemberConfigFile.checkOnce(
                file,
                hz.getMap(CONFIG_CHECKS_MAP),
                hz.getCluster().getLocalMember().getUuid().toString())) {
            case CHECKED -> LOG.info(file + " passed Hazelcast's schema check");
            case PASSED_BEFORE ->
                LOG.info(file + " passed Hazelcast's schema check on a member of this cluster before");
            case CHECK_OFF -> LOG.info(file + " was not checked against Hazelcast's schema (turned off)");
        }
    }

    /** The embedded default: one member, bound to loopback, looking for nobody. */
    private static Config standalone() {
        Config c = new Config();
        c.setClusterName("sluice-standalone");
        c.getNetworkConfig().setPort(5701).setPortAutoIncrement(true).setPortCount(100);
        c.getNetworkConfig().getInterfaces().setEnabled(true).addInterface("127.0.0.1");
        JoinConfig join = c.getNetworkConfig().getJoin();
        join.getMulticastConfig().setEnabled(false);
        join.getTcpIpConfig().setEnabled(false);
        join.getAutoDetectionConfig().setEnabled(false);
        // Hazelcast's own metrics (for its Management Center) are collected every 5 s and read by
        // nobody here: Sluice's metrics are its own (GET /metrics).
        c.getMetricsConfig().setEnabled(false);
        // Periodic work that only means something with peers or a Management Center: with one
        // member there is no backup to compare, no CRDT replica to push to, and nobody reads the
        // health monitor's figures. Each woke Hazelcast's scheduler every second or so.
        c.setProperty("hazelcast.health.monitoring.level", "OFF");
        c.setProperty("hazelcast.partition.backup.sync.interval", String.valueOf(STANDALONE_PERIOD_SECONDS));
        c.getCRDTReplicationConfig().setReplicationPeriodMillis(STANDALONE_PERIOD_SECONDS * 1000);
        return c;
    }
}
