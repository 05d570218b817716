package io.sluice.cluster;

import java.util.List;

/**
 * Partition requests one node forwards to another in one event-bus message: those a loop of the
 * sender gathered for that owner in one turn ({@link ForwardOutbox}). Answered by one
 * {@link ForwardedReplies}, in the same order.
 */
public final class ForwardedBundle extends ForwardedList<ForwardedRequest> {
    /** For Hazelcast's deserialization. */
    ForwardedBundle() {
        this(null);
    }

    public ForwardedBundle(List<ForwardedRequest> requests) {
        super(ForwardedRequest::new, requests);
    }

    public List<ForwardedRequest> requests() {
        return items();
    }

    @Override
    public int getClassId() {
        return WireSerialization.BUNDLE;
    }
}
