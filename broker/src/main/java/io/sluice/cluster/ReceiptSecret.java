package io.sluice.cluster;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.IndeterminateOperationStateException;
import java.security.SecureRandom;
import java.util.concurrent.ConcurrentMap;
import java.util.logging.Logger;

/**
 * The key receipt handles are signed with: the same on every node of a cluster, so that a handle
 * received through one node deletes through any other. The first node to start draws it; the
 * others find it in a replicated map.
 */
public final class ReceiptSecret {
    private static final Logger LOG = Logger.getLogger(ReceiptSecret.class.getName());

    static final String MAP = "sluice.secrets";
    static final String KEY = "receipt-handles";
    /** How many times a node asks before its start fails. */
    static final int ATTEMPTS = 5;

    private ReceiptSecret() {}

    /** The cluster's key, drawn here if no node drew one before. Blocks: never on an event loop. */
    public static byte[] shared(HazelcastInstance hz) {
        byte[] mine = new byte[32];
        new SecureRandom().nextBytes(mine);
        return agree(hz.getMap(MAP), mine);
    }

    /**
     * Puts {@code mine} unless a key is there, and returns the one that is. A write whose backup did
     * not acknowledge in time (a member joining or leaving meanwhile: Sluice's members fail such a
     * write instead of calling it done) is asked again with the same key: whether or not the first
     * write landed, the answer is then the cluster's key.
     */
    static byte[] agree(ConcurrentMap<String, byte[]> secrets, byte[] mine) {
        for (int attempt = 1; ; attempt++) {
            try {
                byte[] existing = secrets.putIfAbsent(KEY, mine);
                return existing != null ? existing : mine;
            } catch (IndeterminateOperationStateException e) {
                if (attempt == ATTEMPTS) {
                    throw e;
                }
                LOG.warning("the receipt-handle key's write was not acknowledged by its backup (attempt " + attempt
                        + " of " + ATTEMPTS + "); asking again");
            }
        }
    }
}
