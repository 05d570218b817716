package io.sluice.cluster;

import com.hazelcast.cluster.Member;
import com.hazelcast.config.CompactSerializationConfig;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.EntryProcessor;
import com.hazelcast.map.IMap;
import com.hazelcast.map.listener.EntryAddedListener;
import com.hazelcast.nio.serialization.compact.CompactReader;
import com.hazelcast.nio.serialization.compact.CompactSerializer;
import com.hazelcast.nio.serialization.compact.CompactWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The message move tasks of the cluster, in a replicated Hazelcast map: one entry per source
 * queue ARN holding that source's most recent tasks, newest first. Every change is one entry
 * processor on the source's key, so "one active task per source" holds across nodes, and the
 * Hazelcast partition owner of the key is where the change runs (and which node runs the task).
 *
 * <p>Calls return Hazelcast's futures as they are: callers add their callbacks with an executor
 * of their own. Values travel in Hazelcast's Compact format ({@link #register}).
 */
public final class MoveTaskStore {
    /** How many tasks of one source ListMessageMoveTasks can show. */
    static final int KEPT_PER_SOURCE = 10;

    private final HazelcastInstance hz;
    private final IMap<String, SourceTasks> map;
    /** Every key of the map (sources never leave it), kept current by a listener: what a node looks through for its tasks. */
    private final Set<String> sources = ConcurrentHashMap.newKeySet();

    /** Blocks while it reads the map's keys: call it while the node starts, not on an event loop. */
    public MoveTaskStore(HazelcastInstance hz) {
        this.hz = hz;
        this.map = hz.getMap(HazelcastSetup.MOVE_TASKS_MAP);
        map.addEntryListener((EntryAddedListener<String, SourceTasks>) e -> sources.add(e.getKey()), false);
        sources.addAll(map.keySet());
    }

    /**
     * A failure of one of this store's calls as the client is told it: a refusal of a node without
     * its cluster's majority as ServiceUnavailable (HazelcastSetup protects the map's writes); any
     * other failure as it is.
     */
    public static Throwable translated(Throwable err) {
        return MinorityRefusal.translated(err, "change message move tasks");
    }

    /** A source's recent tasks, newest first, at most {@link #KEPT_PER_SOURCE}. */
    public record SourceTasks(List<MoveTask> newestFirst) {
        public SourceTasks {
            newestFirst = List.copyOf(newestFirst);
        }
    }

    /** Adds a RUNNING task unless the source has an active one; answers that active task, or null when added. */
    public CompletionStage<MoveTask> start(MoveTask task) {
        return map.submitToKey(task.sourceArn(), Update.start(task));
    }

    /** The source's recent tasks, or null when it never had one. */
    public CompletionStage<SourceTasks> list(String sourceArn) {
        return map.getAsync(sourceArn);
    }

    /** Marks a RUNNING task CANCELLING; answers the task as it was before, or null when unknown. */
    public CompletionStage<MoveTask> cancel(String sourceArn, String handle) {
        return map.submitToKey(sourceArn, Update.cancel(handle));
    }

    /**
     * Makes {@code runId} the run of an active task (an earlier run then learns it lost the task
     * at its next {@link #advance}); answers the task as it was before, whose claimsUntil covers
     * the earlier runs' claims.
     */
    public CompletionStage<MoveTask> takeOver(String sourceArn, String handle, String runId) {
        return map.submitToKey(sourceArn, Update.takeOver(handle, runId));
    }

    /**
     * Adds {@code moved} to the task's count and, while {@code runId} still runs it, extends the
     * time its claims may last to {@code claimsUntil}; a CANCELLING task of this run becomes
     * CANCELLED. Answers the task as it was before (the caller stops unless it was RUNNING under
     * its run id).
     */
    public CompletionStage<MoveTask> advance(
            String sourceArn, String handle, String runId, long moved, long claimsUntil) {
        return map.submitToKey(sourceArn, Update.advance(handle, runId, moved, claimsUntil));
    }

    /**
     * Ends an active task run by {@code runId}: COMPLETED (CANCELLED when a cancel came first) or
     * FAILED with a reason. Answers the task as it was before.
     */
    public CompletionStage<MoveTask> finish(
            String sourceArn, String handle, String runId, MoveTask.Status status, String reason) {
        return map.submitToKey(sourceArn, Update.finish(handle, runId, status, reason));
    }

    /** The sources whose keys this member owns now (whose tasks it runs); local lookups only. */
    public List<String> ownedSources() {
        return sources.stream().filter(this::ownedHere).toList();
    }

    /** Whether this member owns the source's key now. */
    public boolean ownedHere(String sourceArn) {
        Member owner = hz.getPartitionService().getPartition(sourceArn).getOwner();
        return owner != null && owner.localMember();
    }

    /** Whether another member owns the source's key now (false while it has no owner, during a migration). */
    public boolean ownedElsewhere(String sourceArn) {
        Member owner = hz.getPartitionService().getPartition(sourceArn).getOwner();
        return owner != null && !owner.localMember();
    }

    /** This member's id, as the logs name it. */
    public String memberId() {
        return hz.getCluster().getLocalMember().getUuid().toString();
    }

    /** The Compact serializers of the values and entry processors, on every member. */
    public static void register(CompactSerializationConfig config) {
        config.addSerializer(new TaskSerializer());
        config.addSerializer(new SourceTasksSerializer());
        config.addSerializer(new UpdateSerializer());
    }

    enum Op {
        START,
        CANCEL,
        TAKE_OVER,
        ADVANCE,
        FINISH
    }

    /**
     * One change of a source's tasks, run by the key's owner (and applied the same way on its
     * backups: it reads no clock, the times come with it). Answers the task it concerned as it
     * was before the change; for START, the active task that prevented it, or null.
     */
    record Update(
            Op op,
            String handle,
            MoveTask task,
            String runId,
            long moved,
            long claimsUntil,
            MoveTask.Status status,
            String reason)
            implements EntryProcessor<String, SourceTasks, MoveTask> {

        static Update start(MoveTask task) {
            return new Update(Op.START, task.handle(), task, null, 0, 0, null, null);
        }

        static Update cancel(String handle) {
            return new Update(Op.CANCEL, handle, null, null, 0, 0, null, null);
        }

        static Update takeOver(String handle, String runId) {
            return new Update(Op.TAKE_OVER, handle, null, runId, 0, 0, null, null);
        }

        static Update advance(String handle, String runId, long moved, long claimsUntil) {
            return new Update(Op.ADVANCE, handle, null, runId, moved, claimsUntil, null, null);
        }

        static Update finish(String handle, String runId, MoveTask.Status status, String reason) {
            return new Update(Op.FINISH, handle, null, runId, 0, 0, status, reason);
        }

        @Override
        public MoveTask process(Map.Entry<String, SourceTasks> entry) {
            List<MoveTask> tasks =
                    entry.getValue() == null ? List.of() : entry.getValue().newestFirst();
            if (op == Op.START) {
                if (!tasks.isEmpty() && tasks.get(0).status().active()) {
                    return tasks.get(0);
                }
                List<MoveTask> next = new ArrayList<>(KEPT_PER_SOURCE);
                next.add(task);
                next.addAll(tasks.subList(0, Math.min(tasks.size(), KEPT_PER_SOURCE - 1)));
                entry.setValue(new SourceTasks(next));
                return null;
            }
            int i = indexOf(tasks, handle);
            if (i < 0) {
                return null;
            }
            MoveTask before = tasks.get(i);
            MoveTask after = apply(before);
            if (!after.equals(before)) {
                List<MoveTask> next = new ArrayList<>(tasks);
                next.set(i, after);
                entry.setValue(new SourceTasks(next));
            }
            return before;
        }

        private MoveTask apply(MoveTask t) {
            boolean ours = runId != null && runId.equals(t.runId());
            return switch (op) {
                case CANCEL ->
                    t.status() == MoveTask.Status.RUNNING ? t.withStatus(MoveTask.Status.CANCELLING, null) : t;
                case TAKE_OVER -> t.status().active() ? t.withRun(runId) : t;
                case ADVANCE -> {
                    // Copies stored by any run are counted, even by a run that lost the task meanwhile.
                    MoveTask counted =
                            t.withProgress(moved, ours && t.status() == MoveTask.Status.RUNNING ? claimsUntil : 0);
                    yield ours && t.status() == MoveTask.Status.CANCELLING
                            ? counted.withStatus(MoveTask.Status.CANCELLED, null)
                            : counted;
                }
                case FINISH -> {
                    if (!ours || !t.status().active()) {
                        yield t;
                    }
                    boolean cancelled = t.status() == MoveTask.Status.CANCELLING && status == MoveTask.Status.COMPLETED;
                    yield cancelled ? t.withStatus(MoveTask.Status.CANCELLED, null) : t.withStatus(status, reason);
                }
                case START -> throw new IllegalStateException("START is not a change of one task");
            };
        }

        private static int indexOf(List<MoveTask> tasks, String handle) {
            for (int i = 0; i < tasks.size(); i++) {
                if (tasks.get(i).handle().equals(handle)) {
                    return i;
                }
            }
            return -1;
        }
    }

    private static final class TaskSerializer implements CompactSerializer<MoveTask> {
        @Override
        public MoveTask read(CompactReader r) {
            return new MoveTask(
                    r.readString("handle"),
                    r.readString("sourceArn"),
                    r.readString("destinationArn"),
                    r.readNullableInt32("rate"),
                    r.readInt64("startedTimestamp"),
                    r.readInt64("toMove"),
                    r.readInt64("moved"),
                    MoveTask.Status.valueOf(r.readString("status")),
                    r.readString("failureReason"),
                    r.readString("runId"),
                    r.readInt64("claimsUntil"));
        }

        @Override
        public void write(CompactWriter w, MoveTask t) {
            w.writeString("handle", t.handle());
            w.writeString("sourceArn", t.sourceArn());
            w.writeString("destinationArn", t.destinationArn());
            w.writeNullableInt32("rate", t.rate());
            w.writeInt64("startedTimestamp", t.startedTimestamp());
            w.writeInt64("toMove", t.toMove());
            w.writeInt64("moved", t.moved());
            w.writeString("status", t.status().name());
            w.writeString("failureReason", t.failureReason());
            w.writeString("runId", t.runId());
            w.writeInt64("claimsUntil", t.claimsUntil());
        }

        @Override
        public String getTypeName() {
            return "sluice.MoveTask";
        }

        @Override
        public Class<MoveTask> getCompactClass() {
            return MoveTask.class;
        }
    }

    private static final class SourceTasksSerializer implements CompactSerializer<SourceTasks> {
        @Override
        public SourceTasks read(CompactReader r) {
            return new SourceTasks(List.of(r.readArrayOfCompact("newestFirst", MoveTask.class)));
        }

        @Override
        public void write(CompactWriter w, SourceTasks s) {
            w.writeArrayOfCompact("newestFirst", s.newestFirst().toArray(new MoveTask[0]));
        }

        @Override
        public String getTypeName() {
            return "sluice.MoveTasksOfSource";
        }

        @Override
        public Class<SourceTasks> getCompactClass() {
            return SourceTasks.class;
        }
    }

    private static final class UpdateSerializer implements CompactSerializer<Update> {
        @Override
        public Update read(CompactReader r) {
            String status = r.readString("status");
            return new Update(
                    Op.valueOf(r.readString("op")),
                    r.readString("handle"),
                    r.readCompact("task"),
                    r.readString("runId"),
                    r.readInt64("moved"),
                    r.readInt64("claimsUntil"),
                    status == null ? null : MoveTask.Status.valueOf(status),
                    r.readString("reason"));
        }

        @Override
        public void write(CompactWriter w, Update u) {
            w.writeString("op", u.op().name());
            w.writeString("handle", u.handle());
            w.writeCompact("task", u.task());
            w.writeString("runId", u.runId());
            w.writeInt64("moved", u.moved());
            w.writeInt64("claimsUntil", u.claimsUntil());
            w.writeString("status", u.status() == null ? null : u.status().name());
            w.writeString("reason", u.reason());
        }

        @Override
        public String getTypeName() {
            return "sluice.MoveTaskUpdate";
        }

        @Override
        public Class<Update> getCompactClass() {
            return Update.class;
        }
    }
}
