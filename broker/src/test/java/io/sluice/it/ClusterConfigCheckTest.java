package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.config.InvalidConfigurationException;
import com.hazelcast.core.Hazelcast;
import io.sluice.cluster.IsolatedClusterConfig;
import io.sluice.server.SluiceNode;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A node reads its cluster file without Hazelcast's schema check (about a tenth of its start-up CPU) and
 * runs the check once it has joined, unless the cluster already holds a pass for the same file: a
 * file that breaks the schema must still stop the node, with Hazelcast's message, before it serves
 * anything, and the node must leave the cluster it joined.
 */
@Timeout(120)
class ClusterConfigCheckTest {

    @Test
    void aClusterFileWithAMisspeltKeyStopsTheNodeWithTheSchemasMessage() {
        String cluster = IsolatedClusterConfig.newClusterName();
        String file = IsolatedClusterConfig.writeBreakingTheSchema(cluster).toString();

        IllegalStateException failure = assertThrows(
                IllegalStateException.class,
                () -> SluiceNode.start(BrokerExtension.testConfig("--cluster-config", file)));

        assertTrue(failure.getMessage().contains(file), failure.getMessage());
        assertInstanceOf(InvalidConfigurationException.class, failure.getCause());
        assertTrue(
                failure.getCause().getMessage().contains(IsolatedClusterConfig.MISSPELT_KEY),
                failure.getCause().getMessage());
        assertTrue(
                Hazelcast.getAllHazelcastInstances().stream()
                        .noneMatch(hz -> hz.getConfig().getClusterName().equals(cluster)),
                "the node's Hazelcast member is still running");
    }

    @Test
    void aNodeJoiningWithTheFileTheClusterCheckedDoesNotCheckItAgain() {
        String file = IsolatedClusterConfig.write(IsolatedClusterConfig.newClusterName())
                .toString();
        Logger setup = Logger.getLogger("io.sluice.cluster.HazelcastSetup");
        List<String> lines = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                lines.add(record.getMessage());
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        setup.addHandler(capture);
        try (SluiceNode first = SluiceNode.start(BrokerExtension.testConfig("--cluster-config", file));
                SluiceNode second = SluiceNode.start(BrokerExtension.testConfig("--cluster-config", file))) {
            assertEquals(
                    List.of(
                            file + " passed Hazelcast's schema check",
                            file + " passed Hazelcast's schema check on a member of this cluster before"),
                    lines);
        } finally {
            setup.removeHandler(capture);
        }
    }
}
