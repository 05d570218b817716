package io.sluice.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

class ConfigLoaderTest {
    @TempDir
    Path dir;

    private static BrokerConfig load(List<String> args, Map<String, String> env) {
        return ConfigLoader.load(args, env);
    }

    @Test
    void theEmbeddedDefaultNeedsNothing() {
        BrokerConfig c = load(List.of(), Map.of());
        assertEquals("127.0.0.1", c.host());
        assertEquals(9324, c.port());
        assertEquals("000000000000", c.accountId());
        assertEquals(8, c.partitions());
        assertTrue(c.shortPollSampling());
        assertNull(c.cluster().configFile());
        assertEquals(1, c.cluster().backupCount());
        assertFalse(c.authenticates());
    }

    @Test
    void flagsWinOverTheEnvironmentWhichWinsOverTheFile() throws IOException {
        Path file = Files.writeString(dir.resolve("sluice.yaml"), "port: 1111\npartitions: 3\nregion: eu-west-1\n");
        Map<String, String> env =
                Map.of("SLUICE_CONFIG", file.toString(), "SLUICE_PORT", "2222", "SLUICE_PARTITIONS", "5");
        BrokerConfig c = load(List.of("--port", "3333"), env);
        assertEquals(3333, c.port());
        assertEquals(5, c.partitions());
        assertEquals("eu-west-1", c.region());
        assertEquals(
                2222,
                load(List.of("--config", file.toString()), Map.of("SLUICE_PORT", "2222"))
                        .port());
        assertEquals(1111, load(List.of("--config=" + file), Map.of()).port());
    }

    @Test
    void helpListsEveryOptionWithItsEnvironmentVariableAndDefault() {
        StringWriter out = new StringWriter();
        Optional<BrokerConfig> c = ConfigLoader.load(List.of("--help"), Map.of(), new PrintWriter(out));
        assertTrue(c.isEmpty());
        String help = out.toString();
        for (OptionSpec o : new CommandLine(new NodeOptions()).getCommandSpec().options()) {
            if (o.usageHelp() || o.versionHelp()) {
                continue;
            }
            String flag = o.longestName();
            assertTrue(help.contains(flag), flag + " missing from --help:\n" + help);
            assertTrue(help.contains(ConfigLoader.envName(flag)), ConfigLoader.envName(flag) + " missing from --help");
        }
        assertTrue(help.contains("Default: 9324"), help);
    }

    @Test
    void aBadValueIsOneClearLine() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> load(List.of("--port", "ninety"), Map.of()));
        assertTrue(e.getMessage().contains("--port") && e.getMessage().contains("ninety"), e.getMessage());
        assertEquals(1, e.getMessage().lines().count());
        e = assertThrows(IllegalArgumentException.class, () -> load(List.of(), Map.of("SLUICE_PARTITIONS", "0")));
        assertEquals("--partitions must be 1..1024, got 0", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> load(List.of("--no-such-option", "1"), Map.of()));
        assertTrue(e.getMessage().contains("--no-such-option"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> load(List.of("--account-id", "12"), Map.of()));
        assertTrue(e.getMessage().contains("12 digits"), e.getMessage());
    }

    @Test
    void theNativeTransportIsOnUnlessTurnedOff() {
        assertTrue(load(List.of(), Map.of()).nativeTransport());
        assertFalse(load(List.of("--native-transport", "false"), Map.of()).nativeTransport());
        assertFalse(load(List.of(), Map.of("SLUICE_NATIVE_TRANSPORT", "false")).nativeTransport());
    }

    @Test
    void eventLoopsDefaultToOnePerCoreAndAtLeastTwo() {
        BrokerConfig d = load(List.of(), Map.of());
        assertEquals(0, d.eventLoops());
        assertEquals(Math.max(2, Runtime.getRuntime().availableProcessors()), d.eventLoopThreads());
        assertEquals(1, load(List.of("--event-loops", "1"), Map.of()).eventLoopThreads());
        assertEquals(3, load(List.of(), Map.of("SLUICE_EVENT_LOOPS", "3")).eventLoopThreads());
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> load(List.of("--event-loops", "-1"), Map.of()));
        assertEquals("--event-loops must be 0..256, got -1", e.getMessage());
    }

    @Test
    void httpLimitsHaveDefaultsAndBounds() {
        HttpLimits d = load(List.of(), Map.of()).http();
        assertEquals(new HttpLimits(16_384, 16_384, 75, 10_000), d);
        HttpLimits set = load(
                        List.of(
                                "--max-header-bytes",
                                "32768",
                                "--max-initial-line-bytes",
                                "8192",
                                "--max-connections",
                                "100"),
                        Map.of("SLUICE_IDLE_TIMEOUT", "30"))
                .http();
        assertEquals(new HttpLimits(32_768, 8_192, 30, 100), set);
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> load(List.of("--idle-timeout", "0"), Map.of()));
        assertEquals("--idle-timeout must be at least 1 second, got 0", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> load(List.of("--max-header-bytes", "100"), Map.of()));
        assertEquals("--max-header-bytes must be at least 4096, got 100", e.getMessage());
    }

    @Test
    void anUnknownKeyInTheFileIsRefused() throws IOException {
        Path file = Files.writeString(dir.resolve("bad.yaml"), "prot: 1111\n");
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> load(List.of("--config", file.toString()), Map.of()));
        assertTrue(e.getMessage().contains("unknown option 'prot'"), e.getMessage());
    }

    @Test
    void credentialsComeFromTheFlagTheEnvironmentOrAFile() throws IOException {
        BrokerConfig c = load(List.of("--credentials", "AK1:secret1, AK2:secret2:123456789012"), Map.of());
        assertEquals(
                List.of(
                        new AccessKey("AK1", "secret1", "000000000000"),
                        new AccessKey("AK2", "secret2", "123456789012")),
                c.credentials());
        assertTrue(c.authenticates());
        Path file = Files.writeString(dir.resolve("keys"), "# team A\nAK3:s3\n\nAK4:s4:210987654321\n");
        c = load(List.of(), Map.of("SLUICE_CREDENTIALS_FILE", file.toString(), "SLUICE_CREDENTIALS", "AK5:s5"));
        assertEquals(
                List.of("AK5", "AK3", "AK4"),
                c.credentials().stream().map(AccessKey::id).toList());
        assertFalse(c.toString().contains("s3"), "secrets must not appear in a logged configuration: " + c);
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> load(List.of("--credentials", "AK1"), Map.of()));
        assertTrue(e.getMessage().startsWith("credentials: expected ACCESS_KEY_ID:SECRET_ACCESS_KEY"), e.getMessage());
    }
}
