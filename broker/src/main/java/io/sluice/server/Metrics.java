package io.sluice.server;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sluice.cluster.ClusterRouter;
import io.sluice.partition.PartitionDirectory;
import io.sluice.partition.PartitionEvents;
import io.sluice.partition.PartitionStats;
import io.sluice.protocol.SqsAction;
import io.sluice.queue.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.ToDoubleFunction;

/**
 * The node's metrics, in Prometheus's text format at {@code GET /metrics}. Per queue, under the
 * CloudWatch names SQS users know (label {@code queue}; nothing per message): what this node's
 * clients sent, received and deleted, and the counts and oldest message's age of the partitions
 * this node owns, so that a sum over nodes is the queue's. Per node: owned partitions, forwarded
 * requests, commits (size and duration), parked long polls, HTTP requests by action and status,
 * rebuilds and hand-overs. Vert.x's own metrics (HTTP server, event bus) share the registry.
 */
final class Metrics implements PartitionEvents {
    static final String QUEUE = "queue";

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Map<String, QueueMeters> queues = new ConcurrentHashMap<>();
    /** Request timers by action and status, made once each: no lookup key is built per request. */
    private final Map<SqsAction, Map<Integer, Timer>> requests = new ConcurrentHashMap<>();

    private final Map<Integer, Timer> unknown = new ConcurrentHashMap<>();
    /** Latency buckets of the request histogram: a few, so that recording stays cheap. */
    private static final Duration[] REQUEST_BUCKETS = {
        Duration.ofMillis(1),
        Duration.ofMillis(2),
        Duration.ofMillis(5),
        Duration.ofMillis(10),
        Duration.ofMillis(25),
        Duration.ofMillis(50),
        Duration.ofMillis(100),
        Duration.ofMillis(250),
        Duration.ofMillis(500),
        Duration.ofSeconds(1),
        Duration.ofSeconds(5),
        Duration.ofSeconds(21)
    };

    private final DistributionSummary commitSize;
    private final Timer commitTime;
    private final Timer firstReceiveWait;
    private final LongAdder rebuilds = new LongAdder();
    private final LongAdder handOvers = new LongAdder();
    private final MultiGauge visible;
    private final MultiGauge notVisible;
    private final MultiGauge delayed;
    private final MultiGauge oldestAge;
    private volatile PartitionDirectory directory;
    private volatile Clock clock = Clock.SYSTEM;

    /** One queue's meters, looked up once per queue rather than per message. */
    private record QueueMeters(
            Counter sent, Counter received, Counter deleted, Counter emptyReceives, DistributionSummary sentSize) {}

    Metrics() {
        commitSize = DistributionSummary.builder("sluice.commit.changes")
                .description("Changes per commit of a partition (one commit per loop turn)")
                .publishPercentileHistogram()
                .minimumExpectedValue(1.0)
                .maximumExpectedValue(1000.0)
                .register(registry);
        commitTime = Timer.builder("sluice.commit.duration")
                .description("Time from a commit's start to its replicas' acknowledgement")
                .publishPercentileHistogram()
                .minimumExpectedValue(Duration.ofNanos(10_000))
                .maximumExpectedValue(Duration.ofSeconds(10))
                .register(registry);
        firstReceiveWait = Timer.builder("sluice.messages.first.receive.wait")
                .description("Time from a message's SendMessage to its first delivery (delay included): "
                        + "how long messages wait in the broker for a consumer")
                .serviceLevelObjectives(REQUEST_BUCKETS)
                .register(registry);
        FunctionCounter.builder("sluice.partitions.rebuilt", rebuilds, LongAdder::sum)
                .description("Partitions rebuilt from storage on this node")
                .register(registry);
        FunctionCounter.builder("sluice.partitions.handed.over", handOvers, LongAdder::sum)
                .description("Partitions this node ran that moved to another owner")
                .register(registry);
        visible = MultiGauge.builder("sqs.ApproximateNumberOfMessagesVisible")
                .description("Messages available for retrieval, in the partitions this node owns")
                .register(registry);
        notVisible = MultiGauge.builder("sqs.ApproximateNumberOfMessagesNotVisible")
                .description("Messages in flight, in the partitions this node owns")
                .register(registry);
        delayed = MultiGauge.builder("sqs.ApproximateNumberOfMessagesDelayed")
                .description("Messages delayed, in the partitions this node owns")
                .register(registry);
        oldestAge = MultiGauge.builder("sqs.ApproximateAgeOfOldestMessage")
                .baseUnit("seconds")
                .description("Age of the oldest message in the partitions this node owns")
                .register(registry);
    }

    PrometheusMeterRegistry registry() {
        return registry;
    }

    /** Binds what only exists once the node is wired: its partitions, router and parked polls. */
    void bind(PartitionDirectory directory, ClusterRouter router, LongPolls longPolls, Clock clock) {
        this.directory = directory;
        this.clock = clock;
        Gauge.builder(
                        "sluice.partitions.owned",
                        directory,
                        d -> d.localStats().values().stream()
                                .mapToInt(Map::size)
                                .sum())
                .description("Queue partitions running on this node")
                .register(registry);
        if (router != null) {
            FunctionCounter.builder("sluice.requests.forwarded", router, ClusterRouter::forwardedRequests)
                    .description("Partition requests sent to the node that owns the partition")
                    .register(registry);
            FunctionCounter.builder("sluice.forward.messages", router, ClusterRouter::forwardMessages)
                    .description("Event-bus messages the forwarded requests travelled in (several in a bundle)")
                    .register(registry);
        }
        Gauge.builder("sluice.long.polls.parked", longPolls, LongPolls::parked)
                .description("ReceiveMessage calls waiting for messages on this node")
                .register(registry);
    }

    void sent(String queue, int bytes) {
        QueueMeters m = queue(queue);
        m.sent.increment();
        m.sentSize.record(bytes);
    }

    void received(String queue, int messages) {
        QueueMeters m = queue(queue);
        if (messages == 0) {
            m.emptyReceives.increment();
        } else {
            m.received.increment(messages);
        }
    }

    /** A message delivered for the first time, {@code millis} after it was sent (server clock, ms resolution). */
    void firstReceive(long millis) {
        firstReceiveWait.record(Math.max(0, millis), TimeUnit.MILLISECONDS);
    }

    void deleted(String queue) {
        queue(queue).deleted.increment();
    }

    /** One SQS request answered. */
    void request(SqsAction action, int status, long nanos) {
        // An undecodable request has no action: counted as "unknown".
        Map<Integer, Timer> byStatus = action == null ? unknown : requests.get(action);
        if (byStatus == null) {
            byStatus = requests.computeIfAbsent(action, a -> new ConcurrentHashMap<>());
        }
        Timer timer = byStatus.get(status);
        if (timer == null) {
            timer = byStatus.computeIfAbsent(
                    status,
                    s -> Timer.builder("sluice.http.requests")
                            .description("SQS requests by action and HTTP status")
                            .tags(
                                    "action",
                                    action == null ? "unknown" : action.wireName(),
                                    "status",
                                    Integer.toString(s))
                            .serviceLevelObjectives(REQUEST_BUCKETS)
                            .register(registry));
        }
        timer.record(nanos, TimeUnit.NANOSECONDS);
    }

    /** A deleted queue's meters go with it: the label set stays that of the existing queues. */
    void forget(String queue) {
        QueueMeters m = queues.remove(queue);
        if (m != null) {
            for (Meter meter : List.of(m.sent, m.received, m.deleted, m.emptyReceives, m.sentSize)) {
                registry.remove(meter);
            }
        }
    }

    /** The text Prometheus scrapes, the per-queue counts read at this moment. */
    String scrape() {
        PartitionDirectory d = directory;
        if (d != null) {
            long now = clock.millis();
            Map<String, Map<Integer, PartitionStats>> local = d.localStats();
            visible.register(rows(local, PartitionStats::visible), true);
            notVisible.register(rows(local, PartitionStats::inFlight), true);
            delayed.register(rows(local, PartitionStats::delayed), true);
            oldestAge.register(
                    rows(
                            local,
                            s -> s.oldestSentMillis() == 0 ? 0 : Math.max(0, now - s.oldestSentMillis()) / 1000.0,
                            true),
                    true);
        }
        return registry.scrape();
    }

    private static List<MultiGauge.Row<?>> rows(
            Map<String, Map<Integer, PartitionStats>> local, ToDoubleFunction<PartitionStats> value) {
        return rows(local, value, false);
    }

    /** One row per queue: the sum over its local partitions, or the largest value when {@code max}. */
    private static List<MultiGauge.Row<?>> rows(
            Map<String, Map<Integer, PartitionStats>> local, ToDoubleFunction<PartitionStats> value, boolean max) {
        List<MultiGauge.Row<?>> rows = new ArrayList<>(local.size());
        local.forEach((queue, partitions) -> {
            double v = 0;
            for (PartitionStats s : partitions.values()) {
                double x = value.applyAsDouble(s);
                v = max ? Math.max(v, x) : v + x;
            }
            rows.add(MultiGauge.Row.of(Tags.of(QUEUE, queue), v));
        });
        return rows;
    }

    private QueueMeters queue(String queue) {
        QueueMeters m = queues.get(queue);
        return m != null
                ? m
                : queues.computeIfAbsent(
                        queue,
                        q -> new QueueMeters(
                                counter("sqs.NumberOfMessagesSent", "Messages sent to the queue through this node", q),
                                counter(
                                        "sqs.NumberOfMessagesReceived",
                                        "Messages returned by ReceiveMessage through this node",
                                        q),
                                counter("sqs.NumberOfMessagesDeleted", "Messages deleted through this node", q),
                                counter(
                                        "sqs.NumberOfEmptyReceives",
                                        "ReceiveMessage calls that returned no message",
                                        q),
                                DistributionSummary.builder("sqs.SentMessageSize")
                                        .baseUnit("bytes")
                                        .description("Size of the messages sent through this node")
                                        .tags(QUEUE, q)
                                        .register(registry)));
    }

    private Counter counter(String name, String description, String queue) {
        return Counter.builder(name).description(description).tags(QUEUE, queue).register(registry);
    }

    // ------------------------------------------------------------------ PartitionEvents, on partition loops

    @Override
    public void committed(int changes, long nanos) {
        commitSize.record(changes);
        commitTime.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void rebuilt() {
        rebuilds.increment();
    }

    @Override
    public void handedOver() {
        handOvers.increment();
    }
}
