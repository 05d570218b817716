package io.sluice.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.sluice.cluster.MoveTask.Status;
import java.util.AbstractMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The changes of a source's move tasks, as the key owner applies them (no Hazelcast needed). */
class MoveTaskUpdateTest {
    private static final String SOURCE = "arn:aws:sqs:us-east-1:000000000000:dlq";

    private final Map.Entry<String, MoveTaskStore.SourceTasks> entry = new AbstractMap.SimpleEntry<>(SOURCE, null);

    private static MoveTask task(String handle) {
        return MoveTask.started(handle, SOURCE, null, 5, 1_000, 100);
    }

    private MoveTask apply(MoveTaskStore.Update u) {
        return u.process(entry);
    }

    private MoveTask stored(String handle) {
        return entry.getValue().newestFirst().stream()
                .filter(t -> t.handle().equals(handle))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void oneActiveTaskPerSourceAndTheTenMostRecentAreKept() {
        assertNull(apply(MoveTaskStore.Update.start(task("h0"))), "the first task starts");
        MoveTask blocking = apply(MoveTaskStore.Update.start(task("other")));
        assertEquals("h0", blocking.handle(), "a second start while h0 runs answers h0");
        assertEquals(1, entry.getValue().newestFirst().size());

        apply(MoveTaskStore.Update.cancel("h0"));
        assertEquals("h0", apply(MoveTaskStore.Update.start(task("other"))).handle(), "CANCELLING is still active");

        for (int i = 1; i <= 11; i++) {
            String previous = "h" + (i - 1);
            apply(MoveTaskStore.Update.takeOver(previous, "run-" + i));
            apply(MoveTaskStore.Update.finish(previous, "run-" + i, Status.COMPLETED, null));
            assertNull(
                    apply(MoveTaskStore.Update.start(task("h" + i))), "a new task starts once h" + (i - 1) + " ended");
        }
        List<MoveTask> kept = entry.getValue().newestFirst();
        assertEquals(10, kept.size());
        assertEquals("h11", kept.get(0).handle(), "newest first");
        assertEquals("h2", kept.get(9).handle());
    }

    @Test
    void aRunCountsItsBatchesAndLeasesItsClaims() {
        apply(MoveTaskStore.Update.start(task("h")));
        MoveTask before = apply(MoveTaskStore.Update.takeOver("h", "a"));
        assertNull(before.runId());
        assertEquals(0, before.claimsUntil());
        apply(MoveTaskStore.Update.advance("h", "a", 10, 7_000));
        apply(MoveTaskStore.Update.advance("h", "a", 4, 6_000));
        assertEquals(14, stored("h").moved());
        assertEquals(7_000, stored("h").claimsUntil(), "the lease only grows");
        assertEquals(Status.RUNNING, stored("h").status());
    }

    @Test
    void aTakeOverHandsTheEarlierRunsLeaseOnAndStopsThatRun() {
        apply(MoveTaskStore.Update.start(task("h")));
        apply(MoveTaskStore.Update.takeOver("h", "a"));
        apply(MoveTaskStore.Update.advance("h", "a", 10, 7_000));

        MoveTask seenByB = apply(MoveTaskStore.Update.takeOver("h", "b"));
        assertEquals("a", seenByB.runId());
        assertEquals(7_000, seenByB.claimsUntil(), "b waits for a's claims before it may complete");
        assertEquals(10, seenByB.moved());

        MoveTask seenByA = apply(MoveTaskStore.Update.advance("h", "a", 3, 20_000));
        assertEquals("b", seenByA.runId(), "a learns it lost the task");
        assertEquals(13, stored("h").moved(), "what a stored before it stopped is counted");
        assertEquals(7_000, stored("h").claimsUntil(), "a run that lost the task extends no lease");

        apply(MoveTaskStore.Update.finish("h", "a", Status.COMPLETED, null));
        assertEquals(Status.RUNNING, stored("h").status(), "only the current run ends the task");
        apply(MoveTaskStore.Update.finish("h", "b", Status.COMPLETED, null));
        assertEquals(Status.COMPLETED, stored("h").status());
        assertEquals(
                Status.COMPLETED, apply(MoveTaskStore.Update.takeOver("h", "c")).status());
        assertEquals("b", stored("h").runId(), "an ended task is not taken over");
    }

    @Test
    void aCancelIsFinishedByTheRunAtItsNextStep() {
        apply(MoveTaskStore.Update.start(task("h")));
        apply(MoveTaskStore.Update.takeOver("h", "a"));
        assertEquals(
                Status.RUNNING, apply(MoveTaskStore.Update.cancel("h")).status(), "cancel answers the task before");
        assertEquals(Status.CANCELLING, stored("h").status());
        assertEquals(
                Status.CANCELLING, apply(MoveTaskStore.Update.cancel("h")).status(), "a second cancel changes nothing");

        MoveTask seen = apply(MoveTaskStore.Update.advance("h", "a", 2, 9_000));
        assertEquals(Status.CANCELLING, seen.status(), "the run learns of the cancel");
        assertEquals(Status.CANCELLED, stored("h").status());
        assertEquals(2, stored("h").moved());
    }

    @Test
    void completingACancellingTaskCancelsIt() {
        apply(MoveTaskStore.Update.start(task("h")));
        apply(MoveTaskStore.Update.takeOver("h", "a"));
        apply(MoveTaskStore.Update.cancel("h"));
        apply(MoveTaskStore.Update.finish("h", "a", Status.COMPLETED, null));
        assertEquals(Status.CANCELLED, stored("h").status());
    }

    @Test
    void aFailureKeepsItsReasonAndUnknownHandlesAnswerNothing() {
        apply(MoveTaskStore.Update.start(task("h")));
        apply(MoveTaskStore.Update.takeOver("h", "a"));
        apply(MoveTaskStore.Update.finish("h", "a", Status.FAILED, "The source queue was deleted."));
        assertEquals(Status.FAILED, stored("h").status());
        assertEquals("The source queue was deleted.", stored("h").failureReason());
        assertNull(apply(MoveTaskStore.Update.cancel("nope")));
        assertNull(apply(MoveTaskStore.Update.advance("nope", "a", 1, 1)));
    }
}
