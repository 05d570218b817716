package io.sluice.cluster;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.config.InvalidConfigurationException;
import com.hazelcast.instance.BuildInfoProvider;
import io.sluice.cluster.MemberConfigFile.Verdict;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.junit.jupiter.api.Test;

/**
 * A member file is read without Hazelcast's schema check; the check, run apart, still rejects a bad
 * file, and runs once per file content and Hazelcast version in a cluster.
 */
class MemberConfigFileTest {
    private static final String CLUSTER = IsolatedClusterConfig.newClusterName();

    @Test
    void aFileWithAMisspeltKeyIsReadAtOnceAndFailsTheCheckRunApart() {
        String file = IsolatedClusterConfig.writeBreakingTheSchema(CLUSTER).toString();

        assertEquals(CLUSTER, MemberConfigFile.read(file).getClusterName());

        InvalidConfigurationException direct =
                assertThrows(InvalidConfigurationException.class, () -> MemberConfigFile.check(file));
        assertTrue(direct.getMessage().contains(IsolatedClusterConfig.MISSPELT_KEY), direct.getMessage());
        ConcurrentMap<String, String> passes = new ConcurrentHashMap<>();
        InvalidConfigurationException once = assertThrows(
                InvalidConfigurationException.class, () -> MemberConfigFile.checkOnce(file, passes, "member-a"));
        assertTrue(once.getMessage().contains(IsolatedClusterConfig.MISSPELT_KEY), once.getMessage());
        assertTrue(passes.isEmpty(), "a file that failed was recorded as passed: " + passes);
    }

    @Test
    void theShippedFilePassesTheCheckAndItsPassIsRecordedOnce() {
        String file = IsolatedClusterConfig.write(CLUSTER).toString();
        ConcurrentMap<String, String> passes = new ConcurrentHashMap<>();

        assertDoesNotThrow(() -> MemberConfigFile.check(file));
        assertEquals(Verdict.CHECKED, MemberConfigFile.checkOnce(file, passes, "member-a"));
        assertEquals(Map.of(MemberConfigFile.fingerprint(file), "member-a"), passes);
        assertEquals(Verdict.PASSED_BEFORE, MemberConfigFile.checkOnce(file, passes, "member-b"));
        assertEquals(Map.of(MemberConfigFile.fingerprint(file), "member-a"), passes);
    }

    @Test
    void aPassCoversOnlyTheSameBytesUnderTheSameHazelcastVersion() throws IOException {
        Path file = IsolatedClusterConfig.writeBreakingTheSchema(CLUSTER);
        String fingerprint = MemberConfigFile.fingerprint(file.toString());
        ConcurrentMap<String, String> passes = new ConcurrentHashMap<>(Map.of(fingerprint, "member-a"));

        // A pass recorded for exactly these bytes is trusted: no check runs, so the bad key goes unseen.
        assertEquals(Verdict.PASSED_BEFORE, MemberConfigFile.checkOnce(file.toString(), passes, "member-b"));
        assertTrue(fingerprint.endsWith("@" + BuildInfoProvider.getBuildInfo().getVersion()), fingerprint);

        // One byte more and the file is checked again.
        Files.writeString(file, "\n", StandardOpenOption.APPEND);
        assertThrows(
                InvalidConfigurationException.class,
                () -> MemberConfigFile.checkOnce(file.toString(), passes, "member-b"));
        // A pass under another Hazelcast version does not count either.
        String otherVersion = MemberConfigFile.fingerprint(file.toString()).replaceFirst("@.*", "@5.0.0");
        passes.put(otherVersion, "member-a");
        assertThrows(
                InvalidConfigurationException.class,
                () -> MemberConfigFile.checkOnce(file.toString(), passes, "member-b"));
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
            ConcurrentMap<String, String> passes = new ConcurrentHashMap<>();
            assertEquals(Verdict.CHECK_OFF, MemberConfigFile.checkOnce(file, passes, "member-a"));
            assertTrue(passes.isEmpty(), "an unchecked file was recorded as passed: " + passes);
        } finally {
            System.clearProperty(MemberConfigFile.SCHEMA_CHECK);
        }
    }
}
