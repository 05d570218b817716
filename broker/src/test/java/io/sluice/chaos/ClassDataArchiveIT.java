package io.sluice.chaos;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The class-data archive the build writes beside the jar holds the classes of a node that starts
 * with a cluster file, as every node of a cluster does: started with one (and the archive), such a
 * node reads the YAML configuration, the TCP/IP joiner and the replicated commit port from the
 * archive, not from the jar. Without them there, a node joining a busy cluster read and verified
 * some 1,500 classes from the jar (load-tests/README.md, stop 24).
 */
class ClassDataArchiveIT {

    /** Classes only a node with a cluster file loads. */
    private static final List<String> CLUSTER_PATH = List.of(
            "com.hazelcast.config.YamlConfigBuilder",
            "com.hazelcast.internal.config.YamlConfigSchemaValidator",
            "com.hazelcast.internal.cluster.impl.TcpIpJoiner",
            "io.sluice.cluster.HazelcastCommitPort",
            "io.sluice.cluster.PauseGuard",
            "io.sluice.cluster.WakeRelay");

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void aClusteredNodeLoadsItsClassesFromTheArchive() throws Exception {
        assumeTrue(Files.isRegularFile(ClusterProcess.CLASS_DATA), "no archive (built with -Dcds.skip=true)");
        Files.createDirectories(ClusterProcess.LOG_DIR);
        Path classLog = ClusterProcess.LOG_DIR.resolve("ClassDataArchiveIT-classes.log");
        Path out = ClusterProcess.LOG_DIR.resolve("ClassDataArchiveIT-node.log");
        Files.deleteIfExists(classLog);
        Process node = new ProcessBuilder(ClusterProcess.command(
                        List.of("-Xlog:class+load=info:file=" + classLog, "-Dsluice.exitWhenReady=true"),
                        List.of(
                                "--port",
                                "0",
                                "--cluster-config",
                                ClusterProcess.CLUSTER_CONFIG
                                        .resolve("class-data-archive.yaml")
                                        .toString())))
                .redirectErrorStream(true)
                .redirectOutput(out.toFile())
                .start();
        try {
            assertTrue(node.waitFor(90, TimeUnit.SECONDS), "the node did not exit once ready");
        } finally {
            node.destroyForcibly();
        }
        assertEquals(0, node.exitValue(), () -> "exit status; output:\n" + read(out));
        // "[0.123s][info][class,load] a.B source: shared objects file (top)" or "... source: file:/.../sluice.jar"
        Map<String, String> sources = Files.readAllLines(classLog, StandardCharsets.UTF_8).stream()
                .map(line -> line.split(" ", 4))
                .filter(f -> f.length == 4 && f[2].equals("source:"))
                .collect(Collectors.toMap(f -> f[1], f -> f[3], (a, b) -> a));
        Predicate<String> archived = name -> sources.getOrDefault(name, "").startsWith("shared objects file");
        long fromJar = sources.entrySet().stream()
                .filter(e -> e.getValue().startsWith("file:"))
                .count();
        assertAll(CLUSTER_PATH.stream()
                .map(name ->
                        () -> assertTrue(archived.test(name), name + " from the archive, was: " + sources.get(name))));
        // The rest that a jar start reads: picocli's classes (too old a class-file version to archive)
        // and a few generated ones. 1,519 of 8,602 before the archive run had a cluster file.
        assertTrue(fromJar < 400, fromJar + " of " + sources.size() + " classes read from the jar");
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }
}
