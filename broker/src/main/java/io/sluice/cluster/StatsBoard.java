package io.sluice.cluster;

import io.sluice.partition.PartitionDirectory;
import io.sluice.partition.PartitionStats;
import io.sluice.queue.PartitionKey;
import io.sluice.queue.QueueMeta;
import io.sluice.queue.QueueRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Every node's partition counts, as the owners publish them: what short polls weigh their samples
 * by and what the approximate queue counts add up. This node's own partitions are read live. An
 * owner looks at its counts every second and publishes them when they changed, the same counts
 * again every {@link #HEARTBEAT_MILLIS} (so that they do not go stale elsewhere), and nothing when
 * it holds no partition and said so already: an idle cluster sends nothing.
 */
public final class StatsBoard {
    static final String ADDRESS = "sluice.stats";
    static final long PUBLISH_MILLIS = 1_000;
    /** Unchanged counts are published again this often: well inside {@link #STALE_MILLIS}. */
    static final long HEARTBEAT_MILLIS = 2_000;
    /** Counts not heard again for this long are not used: the partition is taken to have nothing (moved, or its node gone). */
    private static final long STALE_MILLIS = 5_000;

    private final PartitionDirectory local;
    private final QueueRegistry registry;
    private final String nodeId;
    /** Counts of other nodes' partitions, and when they were heard. */
    private final Map<PartitionKey, Heard> remote = new ConcurrentHashMap<>();
    /** What this node published last (only touched by the publishing timer). */
    private final LastPublished last = new LastPublished();

    private record Heard(PartitionStats stats, String node, long at) {}

    public StatsBoard(PartitionDirectory local, QueueRegistry registry, String nodeId) {
        this.local = local;
        this.registry = registry;
        this.nodeId = nodeId;
    }

    public void start(Vertx vertx) {
        vertx.eventBus().<JsonObject>consumer(ADDRESS, msg -> {
            JsonObject body = msg.body();
            String from = body.getString("node");
            if (nodeId.equals(from)) {
                return;
            }
            long now = System.currentTimeMillis();
            JsonObject queues = body.getJsonObject("queues");
            for (String q : queues.fieldNames()) {
                for (Object o : queues.getJsonArray(q)) {
                    JsonArray a = (JsonArray) o;
                    remote.put(
                            new PartitionKey(q, a.getInteger(0)),
                            new Heard(
                                    new PartitionStats(
                                            a.getInteger(1),
                                            a.getInteger(2),
                                            a.getInteger(3),
                                            a.size() > 4 ? a.getLong(4) : 0),
                                    from,
                                    now));
                }
            }
        });
        vertx.setPeriodic(PUBLISH_MILLIS, id -> publish(vertx));
    }

    public PartitionStats[] stats(String queueName) {
        QueueMeta meta = registry.find(queueName);
        if (meta == null) {
            return new PartitionStats[0];
        }
        PartitionStats[] mine = local.stats(queueName);
        long now = System.currentTimeMillis();
        for (int i = 0; i < mine.length; i++) {
            if (!local.isStarted(queueName, i)) {
                Heard h = remote.get(new PartitionKey(queueName, i));
                mine[i] = h != null && now - h.at < STALE_MILLIS ? h.stats : PartitionStats.EMPTY;
            }
        }
        return mine;
    }

    private void publish(Vertx vertx) {
        JsonObject queues = new JsonObject();
        local.localStats().forEach((q, byIndex) -> {
            JsonArray rows = new JsonArray();
            byIndex.forEach((i, s) -> rows.add(new JsonArray()
                    .add(i)
                    .add(s.visible())
                    .add(s.inFlight())
                    .add(s.delayed())
                    .add(s.oldestSentMillis())));
            queues.put(q, rows);
        });
        if (!last.due(queues, System.currentTimeMillis())) {
            return;
        }
        vertx.eventBus().publish(ADDRESS, new JsonObject().put("node", nodeId).put("queues", queues));
    }

    /** Whether counts are worth publishing: changed, due as a heartbeat, and never "none" twice. */
    static final class LastPublished {
        private JsonObject queues;
        private long at;

        boolean due(JsonObject now, long nowMillis) {
            boolean same = now.equals(queues);
            if (same && (now.isEmpty() || nowMillis - at < HEARTBEAT_MILLIS)) {
                return false;
            }
            queues = now;
            at = nowMillis;
            return true;
        }
    }
}
