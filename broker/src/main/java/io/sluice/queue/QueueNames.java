package io.sluice.queue;

import java.util.regex.Pattern;

/** Queue name rules: 1 to 80 of [A-Za-z0-9_-], FIFO queues ending in ".fifo" (counted in the 80). */
public final class QueueNames {
    private static final Pattern STANDARD = Pattern.compile("[A-Za-z0-9_-]{1,80}");
    private static final Pattern FIFO = Pattern.compile("[A-Za-z0-9_-]{1,75}\\.fifo");

    private QueueNames() {}

    public static boolean isFifoName(String name) {
        return name.endsWith(".fifo");
    }

    public static void check(String name, boolean fifo) {
        if (!(fifo ? FIFO : STANDARD).matcher(name).matches()) {
            throw SqsException.invalidParameter(
                    fifo
                            ? "The name of a FIFO queue can only include alphanumeric characters, hyphens, or underscores,"
                                    + " must end with .fifo suffix and be 1 to 80 in length."
                            : "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length");
        }
    }
}
