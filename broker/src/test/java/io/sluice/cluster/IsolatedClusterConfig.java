package io.sluice.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

/**
 * The project's cluster-config/local.yaml under a cluster name of its own, written to a temporary
 * file: in-process test clusters use the shipped settings, and nothing else on the machine joins them.
 */
public final class IsolatedClusterConfig {
    /** The key {@link #writeBreakingTheSchema} writes instead of {@code backup-count}. */
    public static final String MISSPELT_KEY = "backup-cuont";

    private IsolatedClusterConfig() {}

    /** A fresh cluster name for {@link #write(String)}. */
    public static String newClusterName() {
        return "sluice-test-" + UUID.randomUUID();
    }

    /** The configuration file of a cluster named {@code clusterName}. */
    public static Path write(String clusterName) {
        return write(clusterName, false);
    }

    /**
     * The same file with a misspelt key ({@value #MISSPELT_KEY}, in the queue map's settings), which
     * Hazelcast's schema check rejects and its reader alone ignores.
     */
    public static Path writeBreakingTheSchema(String clusterName) {
        return write(clusterName, true);
    }

    private static Path write(String clusterName, boolean misspelt) {
        try {
            String yaml = Files.readString(Path.of("../cluster-config/local.yaml"))
                    .replaceFirst("cluster-name: sluice", "cluster-name: " + clusterName);
            if (misspelt) {
                yaml = yaml.replaceFirst("backup-count: ", MISSPELT_KEY + ": ");
            }
            Path file = Files.createTempFile("sluice-cluster", ".yaml");
            file.toFile().deleteOnExit();
            Files.writeString(file, yaml);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
