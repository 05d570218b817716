package io.sluice.chaos;

import static org.awaitility.Awaitility.await;

import io.sluice.server.FreePorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionTimeoutException;

/**
 * One Sluice node running as a separate JVM:
 * {@code java -Xmx256m [-XX:SharedArchiveFile=target/sluice.jsa] -jar target/sluice.jar --port <p>
 * --cluster-config <yaml> --hz-port <h>},
 * its output in {@code target/chaos-logs/<name>.log}.
 *
 * <p>Every process started here is killed with SIGKILL by {@link #killAll()} (called from the
 * tests' {@code @AfterAll}) and, as a last resort, by a JVM shutdown hook.
 */
public final class ClusterProcess {

    /** The shaded jar; failsafe passes it as {@code -Dsluice.jar}. */
    public static final Path JAR =
            Path.of(System.getProperty("sluice.jar", "target/sluice.jar")).toAbsolutePath();
    /** The class-data archive the build writes beside the jar; used when it is there, as the README starts nodes. */
    static final Path CLASS_DATA = JAR.resolveSibling("sluice.jsa");
    /** The shipped cluster files (the repository's {@code cluster-config/}). */
    public static final Path CLUSTER_CONFIG = Path.of("../cluster-config").toAbsolutePath();
    /** Where node logs go. */
    public static final Path LOG_DIR =
            Path.of(System.getProperty("sluice.chaosLogs", "target/chaos-logs")).toAbsolutePath();

    private static final Set<ClusterProcess> STARTED = ConcurrentHashMap.newKeySet();

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(ClusterProcess::killAll, "chaos-node-cleanup"));
    }

    private final String name;
    private final int port;
    private final int hzPort;
    private final Path log;
    private final Process process;
    private volatile boolean stopped;

    private ClusterProcess(String name, int port, int hzPort, Path log, Process process) {
        this.name = name;
        this.port = port;
        this.hzPort = hzPort;
        this.log = log;
        this.process = process;
    }

    /** Starts the JVM and returns at once; {@link #awaitReady(Duration)} waits for GET /health 200. */
    public static ClusterProcess start(String name, Path clusterConfig, int hzPort, List<String> extraArgs) {
        List<String> args = new ArrayList<>(List.of(
                "--cluster-config", clusterConfig.toAbsolutePath().toString(),
                "--hz-port", Integer.toString(hzPort)));
        args.addAll(extraArgs);
        return start(name, "256m", hzPort, args);
    }

    /** A node on the embedded default (a cluster of one) with the given maximum heap. */
    public static ClusterProcess startStandalone(String name, String maxHeap) {
        return start(name, maxHeap, 0, List.of());
    }

    /**
     * {@code java <jvmOptions> [-XX:SharedArchiveFile=target/sluice.jsa] -jar target/sluice.jar <nodeArgs>}: how
     * every node here is started, with the class-data archive when the build wrote one.
     */
    static List<String> command(List<String> jvmOptions, List<String> nodeArgs) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmOptions);
        if (Files.isRegularFile(CLASS_DATA)) {
            cmd.add("-XX:SharedArchiveFile=" + CLASS_DATA);
        }
        cmd.addAll(List.of("-jar", JAR.toString()));
        cmd.addAll(nodeArgs);
        return cmd;
    }

    private static ClusterProcess start(String name, String maxHeap, int hzPort, List<String> args) {
        if (!Files.isRegularFile(JAR)) {
            throw new IllegalStateException(
                    "no broker jar at " + JAR + " (run mvn package first, or pass -Dsluice.jar=...)");
        }
        int port = FreePorts.pick();
        Path log = LOG_DIR.resolve(name + ".log");
        List<String> cmd = command(List.of("-Xmx" + maxHeap), List.of("--port", Integer.toString(port)));
        cmd.addAll(args);
        try {
            Files.createDirectories(LOG_DIR);
            Files.writeString(log, "# " + String.join(" ", cmd) + System.lineSeparator(), StandardCharsets.UTF_8);
            Process p = new ProcessBuilder(cmd)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
            ClusterProcess node = new ClusterProcess(name, port, hzPort, log, p);
            STARTED.add(node);
            return node;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start node " + name, e);
        }
    }

    /** Waits (at most {@code timeout}) until GET /health answers 200; fails fast if the JVM exits. */
    public ClusterProcess awaitReady(Duration timeout) {
        try {
            await("node " + name + " ready (GET /health 200)")
                    .atMost(timeout)
                    .pollInterval(Duration.ofMillis(250))
                    .until(() -> {
                        if (!process.isAlive()) {
                            throw new AssertionError("node " + name + " exited with " + process.exitValue()
                                    + " before it was ready; log tail:\n" + logTail(40));
                        }
                        return healthy();
                    });
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(
                    "node " + name + " not ready within " + timeout + "; log tail:\n" + logTail(40), e);
        }
        return this;
    }

    /** GET /health answered 200 within 2 s. */
    public boolean healthy() {
        return readiness().startsWith("200 ");
    }

    /** The status and body of GET /health, or why there was none: for failure messages. */
    public String readiness() {
        try {
            HttpResponse<String> r = HTTP.send(
                    HttpRequest.newBuilder(URI.create(endpoint() + "/health"))
                            .timeout(Duration.ofSeconds(2))
                            .GET()
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            return r.statusCode() + " " + r.body();
        } catch (IOException e) {
            return "no answer: " + e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    public String name() {
        return name;
    }

    public long pid() {
        return process.pid();
    }

    public int port() {
        return port;
    }

    public int hzPort() {
        return hzPort;
    }

    public Path log() {
        return log;
    }

    /** The SQS endpoint, {@code http://127.0.0.1:<port>}. */
    public String endpoint() {
        return "http://127.0.0.1:" + port;
    }

    public boolean alive() {
        return process.isAlive();
    }

    /** SIGKILL, then waits for the process to be gone. */
    public void kill9() {
        signal("KILL");
        awaitExit(Duration.ofSeconds(10));
    }

    /** SIGSTOP: the JVM freezes (no heartbeats, connections stay open). */
    public void sigstop() {
        signal("STOP");
        stopped = true;
    }

    /** SIGCONT after {@link #sigstop()}. */
    public void sigcont() {
        signal("CONT");
        stopped = false;
    }

    /** SIGTERM ({@link Process#destroy()} sends SIGTERM on Linux): the node shuts down gracefully. */
    public void sigterm() {
        process.destroy();
    }

    /** Waits for the process to exit; returns its exit code. */
    public int awaitExit(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError(
                        "node " + name + " did not exit within " + timeout + "; log tail:\n" + logTail(40));
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** The last {@code lines} lines of the node's log. */
    public String logTail(int lines) {
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(cannot read " + log + ": " + e + ")";
        }
    }

    /** Whether the node's log contains {@code text}. */
    public boolean logContains(String text) {
        try {
            return Files.readString(log, StandardCharsets.UTF_8).contains(text);
        } catch (IOException | UncheckedIOException e) {
            return false;
        }
    }

    private void signal(String signal) {
        if (!process.isAlive()) {
            return;
        }
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                    .redirectErrorStream(true)
                    .start();
            if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                if ("KILL".equals(signal)) {
                    process.destroyForcibly();
                } else {
                    throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
                }
            }
        } catch (IOException e) {
            if ("KILL".equals(signal)) {
                process.destroyForcibly();
            } else {
                throw new UncheckedIOException(e);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** SIGKILLs every node this JVM started that is still running (stopped ones included). */
    public static void killAll() {
        for (ClusterProcess node : STARTED) {
            if (node.process.isAlive()) {
                node.process.destroyForcibly();
                if (node.stopped) {
                    node.signal("CONT");
                }
                try {
                    node.process.waitFor(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            STARTED.remove(node);
        }
    }

    @Override
    public String toString() {
        return name + "(pid " + process.pid() + ", http " + port + ", hz " + hzPort + ")";
    }
}
