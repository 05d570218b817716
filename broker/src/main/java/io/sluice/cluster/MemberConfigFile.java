package io.sluice.cluster;

import com.hazelcast.config.Config;
import com.hazelcast.config.FileSystemYamlConfig;
import com.hazelcast.instance.BuildInfoProvider;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.ConcurrentMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A Hazelcast member YAML file, read in two parts: the configuration at once, Hazelcast's schema
 * check once per cluster.
 *
 * <p>Hazelcast checks a YAML file against its JSON schema before reading it (unknown keys, wrong
 * types). Loading that schema costs a clustered node about half a second of CPU at start, a tenth of
 * it (a fourth node joining three idle ones, ten starts each: median 4.97 s of CPU to be ready checking
 * beside the join, 4.53 s skipping the check; load-tests/README.md, stop 35), and a node joining a busy
 * cluster gets little CPU. So the file is read here without the
 * check; once the node has joined, it runs the check only if the cluster holds no pass for the same
 * bytes under the same Hazelcast version ({@link #checkOnce}), and it serves nothing before that
 * ({@code SluiceNode}). A file that breaks the schema still stops the node with Hazelcast's message,
 * after the join instead of before it. The nodes of a cluster usually share one file: the first to
 * start check it, a node that joins later or restarts finds their pass.
 *
 * <p>Hazelcast reads the switch for its check ({@value #SCHEMA_CHECK}) from the system properties
 * only; both reads hold this class's lock so that nodes started in one JVM (tests) never see each
 * other's setting. A user who turned the check off keeps it off.
 */
final class MemberConfigFile {
    private static final Logger LOG = Logger.getLogger(MemberConfigFile.class.getName());

    /** Hazelcast's system property for its schema check of configuration files; true by default. */
    static final String SCHEMA_CHECK = "hazelcast.config.schema.validation.enabled";

    /** What {@link #checkOnce} did. */
    enum Verdict {
        /** The check ran here and the file passed. */
        CHECKED,
        /** The cluster already held a pass for these bytes under this Hazelcast version. */
        PASSED_BEFORE,
        /** The user turned the check off. */
        CHECK_OFF
    }

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
     * Runs Hazelcast's schema check of the file unless {@code passes} (a map the whole cluster
     * shares) holds a pass for its {@link #fingerprint}; after a check passes, records one, naming
     * {@code checker}. Throws Hazelcast's {@code InvalidConfigurationException} when the file does not
     * pass. A map that cannot be read or written (the cluster in trouble) only costs a check.
     */
    static Verdict checkOnce(String file, ConcurrentMap<String, String> passes, String checker) {
        String fingerprint = fingerprint(file);
        try {
            if (passes.containsKey(fingerprint)) {
                return Verdict.PASSED_BEFORE;
            }
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "could not look for an earlier check of " + file, e);
        }
        if (!check(file)) {
            return Verdict.CHECK_OFF;
        }
        try {
            passes.putIfAbsent(fingerprint, checker);
        } catch (RuntimeException e) {
            LOG.log(Level.FINE, "could not record the check of " + file, e);
        }
        return Verdict.CHECKED;
    }

    /** The file's SHA-256 and the Hazelcast version whose schema judges it, e.g. {@code 3f…a9@5.3.8}. */
    static String fingerprint(String file) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(Path.of(file)));
            return HexFormat.of().formatHex(digest) + "@"
                    + BuildInfoProvider.getBuildInfo().getVersion();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no SHA-256", e);
        }
    }

    /**
     * Reads the file with the schema check, unless the user turned it off; throws if it does not pass.
     * The switch is read under the lock {@link #read} holds while it turns the check off for itself.
     *
     * @return whether the check ran (and passed)
     */
    static boolean check(String file) {
        synchronized (MemberConfigFile.class) {
            if (!Boolean.parseBoolean(System.getProperty(SCHEMA_CHECK, "true"))) {
                return false;
            }
            parse(file);
            return true;
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
