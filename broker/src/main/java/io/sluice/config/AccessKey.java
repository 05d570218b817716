package io.sluice.config;

import java.util.ArrayList;
import java.util.List;

/**
 * An access key a client signs its requests with, and the account whose queues it reaches.
 * Written {@code ACCESS_KEY_ID:SECRET_ACCESS_KEY[:ACCOUNT_ID]}; without an account id the key
 * acts for the node's account.
 */
public record AccessKey(String id, String secret, String accountId) {

    /** Never the secret: a configuration may be logged. */
    @Override
    public String toString() {
        return "AccessKey[" + id + ", account " + accountId + "]";
    }

    /** Entries separated by commas or line breaks; blank lines and lines starting with '#' are skipped. */
    public static List<AccessKey> parseAll(String text, String defaultAccountId) {
        List<AccessKey> keys = new ArrayList<>();
        for (String entry : text.split("[,\\r\\n]+")) {
            String e = entry.trim();
            if (e.isEmpty() || e.startsWith("#")) {
                continue;
            }
            String[] parts = e.split(":", -1);
            if (parts.length < 2 || parts.length > 3 || parts[0].isBlank() || parts[1].isBlank()) {
                throw new IllegalArgumentException(
                        "credentials: expected ACCESS_KEY_ID:SECRET_ACCESS_KEY[:ACCOUNT_ID], got '"
                                + (parts[0].isBlank() ? e : parts[0] + ":...") + "'");
            }
            String account = parts.length == 3 ? parts[2].trim() : defaultAccountId;
            if (!account.matches("[0-9]{12}")) {
                throw new IllegalArgumentException("credentials: the account id of " + parts[0].trim()
                        + " must be 12 digits, got '" + account + "'");
            }
            keys.add(new AccessKey(parts[0].trim(), parts[1].trim(), account));
        }
        return keys;
    }
}
