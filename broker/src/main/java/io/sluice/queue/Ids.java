package io.sluice.queue;

import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Random version-4 UUIDs for message and request ids. {@link UUID#randomUUID()} draws from one
 * shared SecureRandom, which every event loop would contend on; these ids need to be unique,
 * not unpredictable (receipt handles carry the secret part).
 */
public final class Ids {
    private Ids() {}

    public static String newId() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        long most = (r.nextLong() & ~0xF000L) | 0x4000L;
        long least = (r.nextLong() & ~(0xC000L << 48)) | (0x8000L << 48);
        return new UUID(most, least).toString();
    }
}
