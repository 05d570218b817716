package io.sluice.queue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/** The rules every batch action shares: 1 to 10 entries, ids of [A-Za-z0-9_-]{1,80}, all distinct. */
public final class BatchRules {
    public static final int MAX_ENTRIES = 10;
    /** All messages of one SendMessageBatch together, as SQS counts them. */
    public static final int MAX_BATCH_BYTES = 1_048_576;

    private static final Pattern ENTRY_ID = Pattern.compile("[A-Za-z0-9_-]{1,80}");

    private BatchRules() {}

    public static void checkIds(List<String> ids, String entryName) {
        if (ids.isEmpty()) {
            throw new SqsException(
                    ErrorCode.EMPTY_BATCH_REQUEST, "There should be at least one " + entryName + " in the request.");
        }
        if (ids.size() > MAX_ENTRIES) {
            throw new SqsException(
                    ErrorCode.TOO_MANY_ENTRIES_IN_BATCH_REQUEST,
                    "Maximum number of entries per request are 10. You have sent " + ids.size() + ".");
        }
        Set<String> seen = new HashSet<>();
        for (String id : ids) {
            if (id == null || !ENTRY_ID.matcher(id).matches()) {
                throw new SqsException(
                        ErrorCode.INVALID_BATCH_ENTRY_ID,
                        "A batch entry id can only contain alphanumeric characters, hyphens and underscores."
                                + " It can be at most 80 letters long.");
            }
            if (!seen.add(id)) {
                throw new SqsException(ErrorCode.BATCH_ENTRY_IDS_NOT_DISTINCT, "Id " + id + " repeated.");
            }
        }
    }

    public static void checkTotalSize(long totalBytes) {
        if (totalBytes > MAX_BATCH_BYTES) {
            throw new SqsException(
                    ErrorCode.BATCH_REQUEST_TOO_LONG,
                    "Batch requests cannot be longer than " + MAX_BATCH_BYTES + " bytes. You have sent " + totalBytes
                            + " bytes.");
        }
    }
}
