package io.sluice.cluster.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.internal.serialization.Data;
import com.hazelcast.internal.serialization.InternalSerializationService;
import com.hazelcast.internal.serialization.impl.DefaultSerializationServiceBuilder;
import io.sluice.queue.Clock;
import io.sluice.queue.Delivery;
import io.sluice.queue.MessageRecord;
import io.sluice.queue.MessageState;
import io.sluice.queue.Partition;
import io.sluice.queue.SequenceClock;
import io.sluice.queue.StoredMessage;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a commit carries to a backup, serialized as Hazelcast sends it: a receive of a message
 * stored in an earlier commit travels as its delivery state alone, unless an older member could
 * not read that; either way the backup ends with the primary's record.
 */
class PartitionDeltaTest {
    private static final String KEY = "q#0";
    private static final long INCARNATION = 1_700_000_000_000L;
    private static final String BODY = "the body, which a receive need not carry again";

    private final InternalSerializationService serialization = new DefaultSerializationServiceBuilder()
            .addDataSerializableFactory(StoreSerialization.FACTORY_ID, new StoreSerialization())
            .build();
    private final Partition partition =
            new Partition(Clock.SYSTEM, () -> Long.MAX_VALUE / 2, false, 0, new SequenceClock());

    @AfterEach
    void close() {
        serialization.dispose();
    }

    /** A message sent to the partition, its changes not yet drained. */
    private void send(String id) {
        partition.send(
                new MessageRecord(id, BODY, Map.of(), Map.of(), System.currentTimeMillis(), "sender", null, null, null),
                0);
    }

    /** A backup that holds a message sent in an earlier commit. */
    private StoredPartition backupHolding(String id) {
        send(id);
        StoredPartition state = new StoredPartition();
        new PartitionDelta(KEY, INCARNATION, partition.drainChanges(), StoreFormat.CURRENT).applyTo(state);
        return state;
    }

    /** What the backup gets: the operation after Hazelcast's serialization, and whether its bytes hold the body. */
    private record Sent(CommitBackupOperation operation, boolean carriesBody) {}

    private Sent overTheWire(PartitionDelta delta) {
        Data data = serialization.toData(new CommitBackupOperation(delta));
        return new Sent(
                assertInstanceOf(CommitBackupOperation.class, serialization.toObject(data)),
                new String(data.toByteArray(), StandardCharsets.ISO_8859_1).contains(BODY));
    }

    @Test
    void aReceiveTravelsAsItsDeliveryStateAndTheBackupKeepsTheBody() {
        StoredPartition backup = backupHolding("m1");
        Delivery d = partition.receive(1, 30_000).get(0);

        Sent sent = overTheWire(new PartitionDelta(KEY, INCARNATION, partition.drainChanges(), StoreFormat.CURRENT));
        assertFalse(sent.carriesBody(), "the body stays where it is");
        assertEquals(
                StoreSerialization.COMMIT_BACKUP_WITH_INCARNATION,
                sent.operation().getClassId());
        sent.operation().delta().applyTo(backup);

        StoredMessage m = backup.messages.get("m1");
        assertEquals(BODY, m.body());
        assertEquals(MessageState.IN_FLIGHT, m.state());
        assertEquals(1, m.receiveCount());
        assertEquals(d.receiptToken(), m.receiptToken());
        assertEquals(d.firstReceiveTimestamp(), m.firstReceiveTimestamp());
        assertTrue(m.visibleAt() > System.currentTimeMillis(), "hidden for the visibility timeout");
    }

    @Test
    void aMessageSentAndReceivedInOneTurnTravelsWhole() {
        send("m2");
        partition.receive(1, 30_000);

        Sent sent = overTheWire(new PartitionDelta(KEY, INCARNATION, partition.drainChanges(), StoreFormat.CURRENT));
        assertTrue(sent.carriesBody(), "the backup has not seen it yet");
        StoredPartition backup = new StoredPartition();
        sent.operation().delta().applyTo(backup);
        assertEquals(BODY, backup.messages.get("m2").body());
        assertEquals(MessageState.IN_FLIGHT, backup.messages.get("m2").state());
    }

    @Test
    void withoutDeliveriesAReceiveTravelsWholeInTheOlderForm() {
        StoredPartition backup = backupHolding("m3");
        Delivery d = partition.receive(1, 30_000).get(0);

        Sent sent =
                overTheWire(new PartitionDelta(KEY, INCARNATION, partition.drainChanges(), StoreFormat.WHOLE_RECORDS));
        assertTrue(sent.carriesBody());
        assertEquals(
                StoreSerialization.COMMIT_BACKUP,
                sent.operation().getClassId(),
                "what a member of an older build reads");
        sent.operation().delta().applyTo(backup);
        assertEquals(d.receiptToken(), backup.messages.get("m3").receiptToken());
        assertEquals(BODY, backup.messages.get("m3").body());
    }

    @Test
    void aDeleteAfterAReceiveInOneTurnOnlyRemoves() {
        StoredPartition backup = backupHolding("m4");
        Delivery d = partition.receive(1, 30_000).get(0);
        assertTrue(partition.delete(d.messageId(), d.receiptToken()));
        new PartitionDelta(KEY, INCARNATION, partition.drainChanges(), StoreFormat.CURRENT).applyTo(backup);
        assertTrue(backup.isEmpty());
    }

    @Test
    void aDeliveryOfAMessageTheBackupNeverHeldMakesNothingUp() {
        send("m5");
        partition.drainChanges(); // committed, but this backup missed it
        partition.receive(1, 30_000);
        StoredPartition backup = new StoredPartition();
        new PartitionDelta(KEY, INCARNATION, partition.drainChanges(), StoreFormat.CURRENT).applyTo(backup);
        assertTrue(backup.isEmpty(), "Hazelcast's anti-entropy brings a backup that missed a commit up to date");
    }
}
