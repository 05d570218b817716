package io.sluice.queue;

import java.util.List;

/** A remembered FIFO receive attempt, as replicated: what it returned and until when it counts. */
public record StoredAttempt(List<AttemptRef> refs, long expiresAt) {}
