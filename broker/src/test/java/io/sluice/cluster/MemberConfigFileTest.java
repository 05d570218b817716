package io.sluice.cluster;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.config.InvalidConfigurationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A member file is read without Hazelcast's schema check, and the check, run apart, still rejects a bad file. */
class MemberConfigFileTest {
    private static final String CLUSTER = IsolatedClusterConfig.newClusterName();

    @Test
    void aFileWithAMisspeltKeyIsReadAtOnceAndFailsTheCheckRunBesideIt() {
        String file = IsolatedClusterConfig.writeBreakingTheSchema(CLUSTER).toString();

        assertEquals(CLUSTER, MemberConfigFile.read(file).getClusterName());

        InvalidConfigurationException direct =
                assertThrows(InvalidConfigurationException.class, () -> MemberConfigFile.check(file));
        assertTrue(direct.getMessage().contains(IsolatedClusterConfig.MISSPELT_KEY), direct.getMessage());
        ExecutionException inBackground = assertThrows(
                ExecutionException.class,
                () -> MemberConfigFile.checkInBackground(file).get(60, TimeUnit.SECONDS));
        assertInstanceOf(InvalidConfigurationException.class, inBackground.getCause());
    }

    @Test
    void theShippedFilePassesTheCheck() throws Exception {
        String file = IsolatedClusterConfig.write(CLUSTER).toString();

        assertDoesNotThrow(() -> MemberConfigFile.check(file));
        assertNull(MemberConfigFile.checkInBackground(file).get(60, TimeUnit.SECONDS));
    }

    @Test
    void readingLeavesHazelcastsSwitchAsItFoundIt() {
        String file = IsolatedClusterConfig.write(CLUSTER).toString();
        assertNull(System.getProperty(MemberConfigFile.SCHEMA_CHECK));

        MemberConfigFile.read(file);

        assertNull(System.getProperty(MemberConfigFile.SCHEMA_CHECK));
    }

    @Test
    void aUserWhoTurnedTheCheckOffKeepsItOff() {
        String file = IsolatedClusterConfig.writeBreakingTheSchema(CLUSTER).toString();
        System.setProperty(MemberConfigFile.SCHEMA_CHECK, "false");
        try {
            MemberConfigFile.read(file);

            assertEquals("false", System.getProperty(MemberConfigFile.SCHEMA_CHECK));
            assertDoesNotThrow(() -> MemberConfigFile.check(file));
        } finally {
            System.clearProperty(MemberConfigFile.SCHEMA_CHECK);
        }
    }
}
