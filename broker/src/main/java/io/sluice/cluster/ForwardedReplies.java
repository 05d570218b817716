package io.sluice.cluster;

import java.util.List;

/** The answers to a {@link ForwardedBundle}, one {@link ForwardedReply} per request in the bundle's order. */
public final class ForwardedReplies extends ForwardedList<ForwardedReply> {
    /** For Hazelcast's deserialization. */
    ForwardedReplies() {
        this(null);
    }

    public ForwardedReplies(List<ForwardedReply> replies) {
        super(ForwardedReply::new, replies);
    }

    public List<ForwardedReply> replies() {
        return items();
    }

    @Override
    public int getClassId() {
        return WireSerialization.REPLIES;
    }
}
