package io.sluice.cluster.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.cluster.Address;
import com.hazelcast.cluster.Member;
import com.hazelcast.cluster.impl.MemberImpl;
import com.hazelcast.internal.serialization.InternalSerializationService;
import com.hazelcast.internal.serialization.impl.DefaultSerializationServiceBuilder;
import io.sluice.queue.Clock;
import io.sluice.queue.MessageRecord;
import io.sluice.queue.Partition;
import io.sluice.queue.PartitionSnapshot;
import io.sluice.queue.SequenceClock;
import java.net.UnknownHostException;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Which form the store's operations take for which members, and what each form carries: a
 * member of an older build (a rolling upgrade) gets what it reads, so records reach it without
 * their queue's incarnation, and a member of this build gets the incarnation.
 */
class StoreFormatTest {
    private static final String KEY = "q#0";
    private static final long INCARNATION = 1_700_000_000_000L;

    private final InternalSerializationService serialization = new DefaultSerializationServiceBuilder()
            .addDataSerializableFactory(StoreSerialization.FACTORY_ID, new StoreSerialization())
            .build();

    @AfterEach
    void close() {
        serialization.dispose();
    }

    private static Member memberWith(Map<String, String> attributes) throws UnknownHostException {
        return new MemberImpl.Builder(new Address("127.0.0.1", 5701))
                .attributes(attributes)
                .build();
    }

    @Test
    void eachMemberIsWrittenTheNewestFormItAnnounces() throws Exception {
        assertEquals(StoreFormat.WHOLE_RECORDS, StoreFormat.readBy(memberWith(Map.of())), "the oldest build");
        assertEquals(
                StoreFormat.DELIVERIES,
                StoreFormat.readBy(memberWith(Map.of(StoreFormat.DELIVERIES_ATTRIBUTE, "1"))),
                "the build that introduced deliveries");
        assertEquals(
                StoreFormat.INCARNATIONS,
                StoreFormat.readBy(
                        memberWith(Map.of(StoreFormat.ATTRIBUTE, "3", StoreFormat.DELIVERIES_ATTRIBUTE, "1"))),
                "this build");
        assertEquals(
                StoreFormat.CURRENT,
                StoreFormat.readBy(memberWith(Map.of(StoreFormat.ATTRIBUTE, "9"))),
                "a newer build reads this one's newest form");
    }

    private PartitionDelta oneSend() {
        Partition partition = new Partition(Clock.SYSTEM, () -> Long.MAX_VALUE / 2, false, 0, new SequenceClock());
        partition.send(
                new MessageRecord(
                        "m1", "body", Map.of(), Map.of(), System.currentTimeMillis(), "sender", null, null, null),
                0);
        return new PartitionDelta(KEY, INCARNATION, partition.drainChanges(), StoreFormat.CURRENT);
    }

    @Test
    void aCommitNamesItsQueuesIncarnationOnlyInTheFormThatCarriesIt() {
        PartitionDelta delta = oneSend();
        CommitBackupOperation current = assertInstanceOf(
                CommitBackupOperation.class,
                serialization.toObject(serialization.toData(new CommitBackupOperation(delta))));
        assertEquals(INCARNATION, current.delta().incarnation());

        Partition partition = new Partition(Clock.SYSTEM, () -> Long.MAX_VALUE / 2, false, 0, new SequenceClock());
        partition.send(
                new MessageRecord(
                        "m2", "body", Map.of(), Map.of(), System.currentTimeMillis(), "sender", null, null, null),
                0);
        PartitionDelta older = new PartitionDelta(KEY, INCARNATION, partition.drainChanges(), StoreFormat.DELIVERIES);
        CommitBackupOperation read = assertInstanceOf(
                CommitBackupOperation.class,
                serialization.toObject(serialization.toData(new CommitBackupOperation(older))));
        assertEquals(StoreSerialization.COMMIT_BACKUP_WITH_DELIVERIES, read.getClassId(), "what the older build reads");
        assertEquals(PartitionSnapshot.UNKNOWN_INCARNATION, read.delta().incarnation());
    }

    @Test
    void aReplicaTravelsWithItsIncarnationToAMemberThatReadsIt() {
        StoredPartition state = new StoredPartition();
        state.incarnation = INCARNATION;
        oneSend().applyTo(state);

        StoredPartition current = replicated(state, StoreFormat.CURRENT);
        assertEquals(INCARNATION, current.incarnation);
        assertTrue(current.messages.containsKey("m1"));

        StoredPartition older = replicated(state, StoreFormat.DELIVERIES);
        assertEquals(PartitionSnapshot.UNKNOWN_INCARNATION, older.incarnation, "an older member keeps none");
        assertTrue(older.messages.containsKey("m1"));
    }

    private StoredPartition replicated(StoredPartition state, StoreFormat form) {
        ReplicationOperation op = assertInstanceOf(
                ReplicationOperation.class,
                serialization.toObject(serialization.toData(new ReplicationOperation(Map.of(KEY, state), form))));
        return op.states().get(KEY);
    }

    @Test
    void everyFormHasCommitOperationsOfItsOwn() {
        StoreSerialization factory = new StoreSerialization();
        for (StoreFormat form : StoreFormat.values()) {
            int commit = StoreSerialization.commitClassId(form);
            int backup = StoreSerialization.commitBackupClassId(form);
            assertEquals(form, StoreSerialization.commitForm(commit));
            assertEquals(form, StoreSerialization.commitBackupForm(backup));
            assertEquals(
                    commit,
                    assertInstanceOf(CommitOperation.class, factory.create(commit))
                            .getClassId());
            assertEquals(
                    backup,
                    assertInstanceOf(CommitBackupOperation.class, factory.create(backup))
                            .getClassId());
        }
    }
}
