package io.sluice.chaos;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.config.Config;
import com.hazelcast.config.FileSystemYamlConfig;
import com.hazelcast.config.JoinConfig;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.SplitBrainProtectionConfig;
import com.hazelcast.splitbrainprotection.SplitBrainProtectionOn;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Loads every file of cluster-config/ with Hazelcast's own YAML loader and checks what Sluice relies on. */
class ClusterConfigFilesTest {

    private static final Path DIR = ClusterProcess.CLUSTER_CONFIG;

    private static Config load(String file) throws Exception {
        return new FileSystemYamlConfig(DIR.resolve(file).toFile());
    }

    @ParameterizedTest
    @ValueSource(strings = {"local.yaml", "tcp-ip.yaml", "kubernetes.yaml", "kubernetes-api.yaml"})
    void sharedSettings(String file) throws Exception {
        Config c = load(file);
        MapConfig queues = c.getMapConfig("sluice.queues");
        SplitBrainProtectionConfig majority = c.getSplitBrainProtectionConfig("sluice-majority");
        JoinConfig join = c.getNetworkConfig().getJoin();
        assertAll(
                () -> assertEquals("sluice", c.getClusterName()),
                () -> assertEquals("false", c.getProperty("hazelcast.phone.home.enabled")),
                () -> assertFalse(c.getMetricsConfig().isEnabled(), "Hazelcast's metrics collection"),
                () -> assertEquals("10", c.getProperty("hazelcast.max.no.heartbeat.seconds")),
                () -> assertEquals("1", c.getProperty("hazelcast.heartbeat.interval.seconds")),
                () -> assertEquals("true", c.getProperty("hazelcast.operation.fail.on.indeterminate.state")),
                () -> assertEquals("jdk", c.getProperty("hazelcast.logging.type")),
                () -> assertEquals("false", c.getProperty("hazelcast.shutdownhook.enabled")),
                () -> assertEquals("5", c.getProperty("hazelcast.merge.first.run.delay.seconds")),
                () -> assertEquals("5", c.getProperty("hazelcast.merge.next.run.delay.seconds")),
                () -> assertFalse(join.getMulticastConfig().isEnabled(), "multicast off"),
                () -> assertFalse(join.getAutoDetectionConfig().isEnabled(), "auto-detection off"),
                () -> assertEquals(5701, c.getNetworkConfig().getPort()),
                // message records live in the partition store, not in a map of their own
                () -> assertTrue(
                        c.getMapConfigs().keySet().stream().noneMatch(k -> k.startsWith("sluice.messages")),
                        "no message map settings left over: "
                                + c.getMapConfigs().keySet()),
                () -> assertEquals(1, queues.getBackupCount()),
                () -> assertNull(queues.getSplitBrainProtectionName()),
                () -> assertEquals(
                        "com.hazelcast.spi.merge.PutIfAbsentMergePolicy",
                        queues.getMergePolicyConfig().getPolicy()),
                () -> assertTrue(majority.isEnabled(), "split-brain protection enabled"),
                () -> assertEquals(2, majority.getMinimumClusterSize()),
                () -> assertEquals(SplitBrainProtectionOn.READ_WRITE, majority.getProtectOn()));
    }

    @Test
    void local() throws Exception {
        Config c = load("local.yaml");
        JoinConfig join = c.getNetworkConfig().getJoin();
        assertAll(
                () -> assertTrue(join.getTcpIpConfig().isEnabled()),
                () -> assertEquals(List.of("127.0.0.1"), join.getTcpIpConfig().getMembers()),
                () -> assertFalse(join.getKubernetesConfig().isEnabled()),
                () -> assertTrue(c.getNetworkConfig().isPortAutoIncrement()),
                () -> assertEquals(20, c.getNetworkConfig().getPortCount()),
                () -> assertTrue(c.getNetworkConfig().getInterfaces().isEnabled()),
                () -> assertEquals(
                        List.of("127.0.0.1"),
                        List.copyOf(c.getNetworkConfig().getInterfaces().getInterfaces())));
    }

    @Test
    void tcpIp() throws Exception {
        Config c = load("tcp-ip.yaml");
        JoinConfig join = c.getNetworkConfig().getJoin();
        assertAll(
                () -> assertTrue(join.getTcpIpConfig().isEnabled()),
                () -> assertEquals(
                        List.of("10.0.0.1", "10.0.0.2", "10.0.0.3"),
                        join.getTcpIpConfig().getMembers()),
                () -> assertFalse(join.getKubernetesConfig().isEnabled()),
                () -> assertFalse(c.getNetworkConfig().getInterfaces().isEnabled()));
    }

    @Test
    void kubernetes() throws Exception {
        Config c = load("kubernetes.yaml");
        JoinConfig join = c.getNetworkConfig().getJoin();
        assertAll(
                () -> assertFalse(join.getTcpIpConfig().isEnabled()),
                () -> assertTrue(join.getKubernetesConfig().isEnabled()),
                () -> assertEquals(
                        "sluice-hz.sluice.svc.cluster.local",
                        join.getKubernetesConfig().getProperty("service-dns")),
                () -> assertNull(
                        join.getKubernetesConfig().getProperty("service-name"), "DNS lookup mode, not API mode"),
                () -> assertFalse(c.getNetworkConfig().getInterfaces().isEnabled()));
    }

    @Test
    void kubernetesApi() throws Exception {
        Config c = load("kubernetes-api.yaml");
        JoinConfig join = c.getNetworkConfig().getJoin();
        assertAll(
                () -> assertFalse(join.getTcpIpConfig().isEnabled()),
                () -> assertTrue(join.getKubernetesConfig().isEnabled()),
                () -> assertEquals("sluice", join.getKubernetesConfig().getProperty("namespace")),
                () -> assertEquals("sluice-hz", join.getKubernetesConfig().getProperty("service-name")),
                () -> assertEquals("true", join.getKubernetesConfig().getProperty("resolve-not-ready-addresses")),
                () -> assertEquals("false", join.getKubernetesConfig().getProperty("expose-externally")),
                () -> assertNull(
                        join.getKubernetesConfig().getProperty("service-dns"), "API mode, not DNS lookup mode"),
                () -> assertFalse(c.getNetworkConfig().getInterfaces().isEnabled()));
    }

    /** The file the build starts the jar with to write the class-data archive: it must join nobody. */
    @Test
    void classDataArchiveJoinsNobody() throws Exception {
        Config c = load("class-data-archive.yaml");
        JoinConfig join = c.getNetworkConfig().getJoin();
        assertAll(
                () -> assertEquals("sluice-class-data-archive", c.getClusterName()),
                () -> assertTrue(join.getTcpIpConfig().isEnabled(), "the TCP/IP joiner's classes get archived"),
                () -> assertEquals(List.of(), join.getTcpIpConfig().getMembers()),
                () -> assertFalse(join.getMulticastConfig().isEnabled(), "multicast off"),
                () -> assertFalse(join.getAutoDetectionConfig().isEnabled(), "auto-detection off"),
                () -> assertFalse(join.getKubernetesConfig().isEnabled()),
                () -> assertEquals(
                        List.of("127.0.0.1"),
                        List.copyOf(c.getNetworkConfig().getInterfaces().getInterfaces())));
    }
}
