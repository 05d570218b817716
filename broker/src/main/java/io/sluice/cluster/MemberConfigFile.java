package io.sluice.cluster;

import com.hazelcast.config.Config;
import com.hazelcast.config.FileSystemYamlConfig;
import java.io.FileNotFoundException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;

/**
 * A Hazelcast member YAML file, read in two parts so that a node can join while the slow one runs.
 *
 * <p>Hazelcast checks a YAML file against its JSON schema before reading it (unknown keys, wrong
 * types); loading that schema is about half of a clustered node's start-up CPU (idle: 3.3–4.1 s of
 * CPU to be ready with the check, 2.1–2.2 s without), and a node joining a busy cluster gets little
 * CPU. So the file is read here without the check, and the check runs on a thread of its own while
 * the node starts; the node awaits its verdict before it serves anything ({@code SluiceNode}), so a
 * file that breaks the schema still stops the node with Hazelcast's message, only after the join
 * instead of before it.
 *
 * <p>Hazelcast reads the switch for its check ({@value #SCHEMA_CHECK}) from the system properties
 * only; both reads hold this class's lock so that nodes started in one JVM (tests) never see each
 * other's setting. A user who turned the check off keeps it off.
 */
final class MemberConfigFile {
    /** Hazelcast's system property for its schema check of configuration files; true by default. */
    static final String SCHEMA_CHECK = "hazelcast.config.schema.validation.enabled";

    private MemberConfigFile() {}

    /** The file's configuration, read without the schema check. */
    static Config read(String file) {
        synchronized (MemberConfigFile.class) {
            String before = System.getProperty(SCHEMA_CHECK);
            System.setProperty(SCHEMA_CHECK, "false");
            try {
                return parse(file);
            } finally {
                if (before == null) {
                    System.clearProperty(SCHEMA_CHECK);
                } else {
                    System.setProperty(SCHEMA_CHECK, before);
                }
            }
        }
    }

    /**
     * Checks the file against Hazelcast's schema on a new daemon thread. Completes exceptionally with
     * Hazelcast's {@code InvalidConfigurationException} when the file does not pass (and with whatever
     * else the check throws, errors included), normally when it passes or the user turned the check off.
     */
    static CompletableFuture<Void> checkInBackground(String file) {
        return CompletableFuture.runAsync(() -> check(file), MemberConfigFile::onNewThread);
    }

    private static void onNewThread(Runnable task) {
        Thread checker = new Thread(task, "sluice-config-check");
        checker.setDaemon(true);
        checker.start();
    }

    /** Reads the file with the schema check, unless the user turned it off; throws if it does not pass. */
    static void check(String file) {
        synchronized (MemberConfigFile.class) {
            if (Boolean.parseBoolean(System.getProperty(SCHEMA_CHECK, "true"))) {
                parse(file);
            }
        }
    }

    private static Config parse(String file) {
        try {
            return new FileSystemYamlConfig(file);
        } catch (FileNotFoundException e) {
            throw new UncheckedIOException(e);
        }
    }
}
