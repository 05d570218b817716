package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.config.InvalidConfigurationException;
import com.hazelcast.core.Hazelcast;
import io.sluice.cluster.IsolatedClusterConfig;
import io.sluice.server.SluiceNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A node reads its cluster file without Hazelcast's schema check and runs the check while it joins
 * (half of its start-up CPU): a file that breaks the schema must still stop the node, with
 * Hazelcast's message, before it serves anything, and the node must leave the cluster it joined.
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
}
