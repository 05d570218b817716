package io.sluice.cluster;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.sluice.partition.VisibilityListener;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Wakes between real nodes (clustered Vert.x on Hazelcast members in this JVM): an owner publishes
 * only for queues that another node watches, every watcher hears them, a node that joins later
 * learns who watches, and a member that leaves is forgotten.
 */
class WakeRelayClusterTest {
    private static final Duration WITHIN = Duration.ofSeconds(30);

    /** What a node's own long polls were told: "queue/partition". */
    private static final class Heard implements VisibilityListener {
        final Queue<String> wakes = new ConcurrentLinkedQueue<>();

        @Override
        public void onVisible(String queueName, int partition) {
            wakes.add(queueName + "/" + partition);
        }

        long count(String wake) {
            return wakes.stream().filter(wake::equals).count();
        }
    }

    private static WakeRelay relay(InProcessCluster.Node node, Heard heard) {
        return join(WakeRelay.start(node.vertx(), node.hz(), heard));
    }

    /** Every wake address this node published to. */
    private static List<String> published(Vertx vertx) {
        List<String> addresses = new CopyOnWriteArrayList<>();
        vertx.eventBus().addOutboundInterceptor(ctx -> {
            String address = ctx.message().address();
            if (address.startsWith(WakeRelay.ADDRESS_PREFIX)) {
                addresses.add(address);
            }
            ctx.next();
        });
        return addresses;
    }

    @Test
    void wakesGoToTheNodesThatWatchTheQueueAndNowhereElse() {
        try (InProcessCluster cluster = new InProcessCluster()) {
            InProcessCluster.Node a = cluster.node();
            InProcessCluster.Node b = cluster.node();
            Heard heardA = new Heard();
            Heard heardB = new Heard();
            WakeRelay relayA = relay(a, heardA);
            WakeRelay relayB = relay(b, heardB);
            List<String> publishedByA = published(a.vertx());

            // Nobody watches "quiet": its own polls are told, the cluster is not.
            relayA.onVisible("quiet", 1);
            assertEquals(List.of("quiet/1"), List.copyOf(heardA.wakes));

            // B parks a poll on "busy": A hears of it and wakes all of B's polls on it once, for
            // whatever A made visible before it knew (B's own first look counts once more).
            relayB.watch("busy");
            await("A knows that B watches").atMost(WITHIN).until(() -> relayA.watchedElsewhere("busy"));
            await("A's catch-up wake").atMost(WITHIN).until(() -> heardB.count("busy/-1") >= 2);

            relayA.onVisible("busy", 3);
            await("B hears partition 3").atMost(WITHIN).until(() -> heardB.count("busy/3") == 1);
            assertFalse(
                    publishedByA.contains(WakeRelay.ADDRESS_PREFIX + "quiet"),
                    "published for a queue nobody watches: " + publishedByA);
            assertFalse(relayB.watchedElsewhere("busy"), "B does not count itself");

            // A node that joins later asks, and learns that B watches.
            InProcessCluster.Node c = cluster.node();
            WakeRelay relayC = relay(c, new Heard());
            await("C learns that B watches").atMost(WITHIN).until(() -> relayC.watchedElsewhere("busy"));
            relayC.onVisible("busy", 5);
            await("B hears partition 5 from C").atMost(WITHIN).until(() -> heardB.count("busy/5") == 1);

            // B leaves: the others stop publishing for it.
            join(b.vertx().close());
            await("B forgotten")
                    .atMost(WITHIN)
                    .until(() -> !relayA.watchedElsewhere("busy") && !relayC.watchedElsewhere("busy"));
        }
    }

    /**
     * The answer to a new node's question reaches it on its own address, which nobody has sent to
     * before: the question's answerer looks that address up in the cluster's subscription map, so a
     * stale view of who listens on the shared watchers address cannot leave the new node out.
     */
    @Test
    void theAnswerToANewNodesQuestionComesToItsOwnAddress() {
        try (InProcessCluster cluster = new InProcessCluster()) {
            InProcessCluster.Node a = cluster.node();
            InProcessCluster.Node b = cluster.node();
            WakeRelay relayA = relay(a, new Heard());
            relayA.watch("busy");
            // B asks as a joining relay does, but listens for the answer on its own address only.
            String newcomer = "newcomer-member";
            List<String> answers = new CopyOnWriteArrayList<>();
            join(b.vertx()
                    .eventBus()
                    .<String>consumer(WakeRelay.answerAddress(newcomer), msg -> answers.add(msg.body()))
                    .completion());
            b.vertx()
                    .eventBus()
                    .publish(WakeRelay.ASK_ADDRESS, "", new DeliveryOptions().addHeader(WakeRelay.ORIGIN, newcomer));
            await("A answers on the newcomer's address").atMost(WITHIN).until(() -> answers.contains("busy"));
        }
    }

    private static <T> T join(Future<T> f) {
        try {
            return f.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
