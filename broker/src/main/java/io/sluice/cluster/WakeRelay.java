package io.sluice.cluster;

import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.core.HazelcastInstance;
import io.sluice.partition.VisibilityListener;
import io.sluice.queue.PartitionKey;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Carries "partition P of queue Q has visible messages" to the nodes where long polls on Q are
 * parked. A node with parked polls on Q listens on Q's wake address; an owner publishes to it,
 * at most once per loop turn per partition however many messages arrived, with the partition's
 * index in a header, so the waiters there ask that partition only (one forwarded request each,
 * not one per partition). A wake without the header (from a node that does not send it) makes
 * them look at every partition. Waiters also re-poll slowly, so a wake lost while ownership
 * moves only delays a receive.
 *
 * <p>An owner publishes only for queues that another node watches. The Vert.x event bus caches
 * where an address's consumers are, but not that an address has none: each publish to a queue
 * nobody watches would ask the cluster's subscription map again, a blocking Hazelcast call on a
 * worker thread. So a node that starts watching a queue says so on {@link #WATCHERS_ADDRESS},
 * every node keeps the set of watchers per queue, a node that joins asks the others to say it
 * again, and a member that leaves is forgotten. A node that hears of a new watcher publishes one
 * wake for the whole queue, which covers what became visible before it knew.
 *
 * <p>The others answer a new node's question on an address of that node's own ({@link
 * #answerAddress}), not by publishing to {@link #WATCHERS_ADDRESS}: an answerer's event bus may not
 * yet have heard that the new node listens there too (the cluster's subscription news travels apart
 * from the question), and would leave it out, while an address it has never sent to is looked up
 * in the subscription map itself, where the new node's registration is before it asks. They publish
 * the answer to {@link #WATCHERS_ADDRESS} as well, for a new node of an earlier build, which listens
 * only there (a node that hears an announcement twice counts it once).
 */
public final class WakeRelay implements VisibilityListener, MembershipListener {
    static final String ADDRESS_PREFIX = "sluice.wake.";
    /** Where a node says that it watches a queue (the body: the queue's name). */
    static final String WATCHERS_ADDRESS = "sluice.wake-watchers";
    /** Where a node that has just joined asks the others to say again which queues they watch. */
    static final String ASK_ADDRESS = "sluice.wake-watchers.ask";

    /** The header naming the member a message comes from. */
    static final String ORIGIN = "origin";

    private static final String PARTITION = "partition";

    private final Vertx vertx;
    private final VisibilityListener local;
    private final String memberId;
    private final Set<PartitionKey> pending = ConcurrentHashMap.newKeySet();
    /**
     * Queues whose wakes this node listens for, from the first parked poll on. Announcing one whose
     * consumer is still being registered is harmless: the catch-up wake it draws is lost, but the
     * registration's completion looks at every partition anyway.
     */
    private final Set<String> watching = ConcurrentHashMap.newKeySet();
    /** Queue name to the other members (Hazelcast member ids) that watch it. */
    private final Map<String, Set<String>> watchers = new ConcurrentHashMap<>();

    WakeRelay(Vertx vertx, VisibilityListener local, String memberId) {
        this.vertx = vertx;
        this.local = local;
        this.memberId = memberId;
    }

    /**
     * A relay for the member under {@code vertx}'s cluster manager: it follows the membership and
     * listens for announcements before the returned future completes, and then asks the other
     * nodes which queues they watch.
     */
    public static Future<WakeRelay> start(Vertx vertx, HazelcastInstance hz, VisibilityListener local) {
        WakeRelay relay = new WakeRelay(
                vertx, local, hz.getCluster().getLocalMember().getUuid().toString());
        hz.getCluster().addMembershipListener(relay);
        Future<Void> watchers = vertx.eventBus()
                .<String>consumer(WATCHERS_ADDRESS, relay::onWatching)
                .completion();
        Future<Void> answers = vertx.eventBus()
                .<String>consumer(answerAddress(relay.memberId), relay::onWatching)
                .completion();
        Future<Void> asks =
                vertx.eventBus().<String>consumer(ASK_ADDRESS, relay::onAsk).completion();
        return Future.all(watchers, answers, asks).map(v -> {
            relay.publish(ASK_ADDRESS, "");
            return relay;
        });
    }

    @Override
    public void onVisible(String queueName, int partition) {
        local.onVisible(queueName, partition);
        if (!watchedElsewhere(queueName)) {
            return;
        }
        PartitionKey key = new PartitionKey(queueName, partition);
        if (pending.add(key)) {
            // Runs after the work already queued on this loop: one publish covers that whole turn.
            vertx.runOnContext(v -> {
                pending.remove(key);
                vertx.eventBus()
                        .publish(
                                ADDRESS_PREFIX + queueName,
                                queueName,
                                new DeliveryOptions()
                                        .addHeader(ORIGIN, memberId)
                                        .addHeader(PARTITION, Integer.toString(partition)));
            });
        }
    }

    /** Starts listening for wakes of a queue on this node (once; kept while the queue lives). */
    public void watch(String queueName) {
        if (!watching.add(queueName)) {
            return;
        }
        vertx.eventBus()
                .<String>consumer(ADDRESS_PREFIX + queueName, msg -> {
                    if (!memberId.equals(msg.headers().get(ORIGIN))) {
                        local.onVisible(queueName, partitionOf(msg.headers()));
                    }
                })
                .completion()
                .onSuccess(v -> {
                    local.onVisible(queueName, ANY_PARTITION);
                    publish(WATCHERS_ADDRESS, queueName);
                });
    }

    /** Whether another node has said it watches the queue (and has not left since). */
    boolean watchedElsewhere(String queueName) {
        Set<String> members = watchers.get(queueName);
        return members != null && !members.isEmpty();
    }

    private void onWatching(Message<String> msg) {
        String origin = fromElsewhere(msg);
        String queueName = msg.body();
        if (origin != null
                && queueName != null
                && watchers.computeIfAbsent(queueName, q -> ConcurrentHashMap.newKeySet())
                        .add(origin)) {
            // Whatever became visible here before this node knew went unannounced: one wake for all of it.
            publish(ADDRESS_PREFIX + queueName, queueName);
        }
    }

    private void onAsk(Message<String> msg) {
        String asker = fromElsewhere(msg);
        if (asker != null) {
            DeliveryOptions fromHere = new DeliveryOptions().addHeader(ORIGIN, memberId);
            for (String queueName : watching) {
                vertx.eventBus().send(answerAddress(asker), queueName, fromHere);
                publish(WATCHERS_ADDRESS, queueName);
            }
        }
    }

    /** Where the member with this id hears the answers to its question. */
    static String answerAddress(String memberId) {
        return WATCHERS_ADDRESS + "." + memberId;
    }

    /** The sending member's id, or null for this member's own messages (and a sender without one). */
    private String fromElsewhere(Message<String> msg) {
        String origin = msg.headers().get(ORIGIN);
        return origin == null || origin.equals(memberId) ? null : origin;
    }

    @Override
    public void memberAdded(MembershipEvent event) {
        // The new node asks (ASK_ADDRESS) once it listens; it cannot hear an answer before that.
    }

    @Override
    public void memberRemoved(MembershipEvent event) {
        String gone = event.getMember().getUuid().toString();
        // Sets stay when empty (one per queue ever watched): an announcement never adds to a dropped set.
        for (Set<String> members : watchers.values()) {
            members.remove(gone);
        }
    }

    private void publish(String address, String body) {
        vertx.eventBus().publish(address, body, new DeliveryOptions().addHeader(ORIGIN, memberId));
    }

    /** The header's partition; {@link #ANY_PARTITION} when it is missing or not an index. */
    static int partitionOf(MultiMap headers) {
        String text = headers.get(PARTITION);
        if (text == null) {
            return ANY_PARTITION;
        }
        try {
            int partition = Integer.parseInt(text);
            return partition >= 0 ? partition : ANY_PARTITION;
        } catch (NumberFormatException e) {
            return ANY_PARTITION;
        }
    }
}
