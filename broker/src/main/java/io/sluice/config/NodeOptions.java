package io.sluice.config;

import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Option;

/**
 * Every option of a node, as picocli reads it. Each has a flag, an environment variable (the
 * flag upper-cased with a SLUICE_ prefix) and a YAML key (the flag in camelCase), in falling
 * precedence; {@link ConfigLoader} supplies the environment and the file as picocli's default
 * values, so the annotation's default is what applies when none of the three is given.
 */
@Command(
        name = "sluice",
        mixinStandardHelpOptions = true,
        versionProvider = NodeOptions.Version.class,
        sortOptions = false,
        usageHelpWidth = 110,
        description = {
            "A clustered message broker that speaks the Amazon SQS API.",
            "",
            "Every option can also be given as an environment variable (SLUICE_ and the option name in capitals,"
                    + " e.g. SLUICE_PORT) or as a key of the YAML file named by --config or SLUICE_CONFIG (the option"
                    + " name in camelCase, e.g. port). A flag wins over the environment, the environment over the file.",
            ""
        })
public final class NodeOptions {

    @Option(names = "--config", paramLabel = "FILE", description = "YAML file of options (env SLUICE_CONFIG).")
    Path config;

    @Option(
            names = "--host",
            paramLabel = "ADDRESS",
            defaultValue = "127.0.0.1",
            description = "Address the SQS endpoint listens on (env SLUICE_HOST). Default: ${DEFAULT-VALUE}.")
    String host;

    @Option(
            names = "--port",
            paramLabel = "PORT",
            defaultValue = "9324",
            description = "SQS endpoint port; 0 picks a free one (env SLUICE_PORT). Default: ${DEFAULT-VALUE}.")
    int port;

    @Option(
            names = "--base-url",
            paramLabel = "URL",
            description = "Public base URL put in queue URLs, e.g. behind a load balancer (env SLUICE_BASE_URL)."
                    + " Default: http://<host>:<port>.")
    String baseUrl;

    @Option(
            names = "--account-id",
            paramLabel = "DIGITS",
            defaultValue = "000000000000",
            description =
                    "12-digit account id in queue URLs and ARNs (env SLUICE_ACCOUNT_ID). Default: ${DEFAULT-VALUE}.")
    String accountId;

    @Option(
            names = "--region",
            paramLabel = "REGION",
            defaultValue = "us-east-1",
            description = "Region in ARNs (env SLUICE_REGION). Default: ${DEFAULT-VALUE}.")
    String region;

    @Option(
            names = "--partitions",
            paramLabel = "N",
            defaultValue = "8",
            description = "Partitions of each new queue, 1..1024 (env SLUICE_PARTITIONS). Default: ${DEFAULT-VALUE}.")
    int partitions;

    @Option(
            names = "--short-poll-sampling",
            paramLabel = "BOOL",
            defaultValue = "true",
            arity = "1",
            description = "Short polls sample a subset of partitions, as SQS does (env SLUICE_SHORT_POLL_SAMPLING)."
                    + " Default: ${DEFAULT-VALUE}.")
    boolean shortPollSampling;

    @Option(
            names = "--in-flight-limit",
            paramLabel = "N",
            defaultValue = "120000",
            description = "In-flight messages per standard queue before OverLimit (env SLUICE_IN_FLIGHT_LIMIT)."
                    + " Default: ${DEFAULT-VALUE}.")
    int inFlightLimit;

    @Option(
            names = "--fifo-in-flight-limit",
            paramLabel = "N",
            defaultValue = "120000",
            description =
                    "In-flight messages per FIFO queue (env SLUICE_FIFO_IN_FLIGHT_LIMIT). Default: ${DEFAULT-VALUE}.")
    int fifoInFlightLimit;

    @Option(
            names = "--max-request-bytes",
            paramLabel = "BYTES",
            defaultValue = "" + BrokerConfig.DEFAULT_MAX_REQUEST_BYTES,
            description = "Largest request body accepted, checked before buffering; at least 1100000"
                    + " (env SLUICE_MAX_REQUEST_BYTES). Default: ${DEFAULT-VALUE}.")
    int maxRequestBytes;

    @Option(
            names = "--event-loops",
            paramLabel = "N",
            defaultValue = "0",
            description = "Event-loop threads, which serve HTTP and hold the partitions; 0: one per core, at least 2."
                    + " Nodes that share a machine's cores do best with their share of them, e.g. 1 each for three"
                    + " nodes on 2 cores (env SLUICE_EVENT_LOOPS). Default: ${DEFAULT-VALUE}.")
    int eventLoops;

    @Option(
            names = "--vertx-metrics",
            paramLabel = "BOOL",
            defaultValue = "false",
            arity = "1",
            description = "Add Vert.x's own metrics (HTTP server, event bus, pools) to /metrics; they cost about a"
                    + " tenth of the CPU of a SendMessage (env SLUICE_VERTX_METRICS). Default: ${DEFAULT-VALUE}.")
    boolean vertxMetrics;

    @Option(
            names = "--native-transport",
            paramLabel = "BOOL",
            defaultValue = "true",
            arity = "1",
            description = "Serve HTTP and the event bus on Linux's epoll instead of Java NIO where the jar's native"
                    + " library loads (Linux on x86_64 or aarch64; elsewhere NIO regardless): about a tenth less CPU"
                    + " per SendMessage on one node (env SLUICE_NATIVE_TRANSPORT). Default: ${DEFAULT-VALUE}.")
    boolean nativeTransport;

    @Option(
            names = "--max-header-bytes",
            paramLabel = "BYTES",
            defaultValue = "" + HttpLimits.DEFAULT_MAX_HEADER_BYTES,
            description = "Largest header section of a request; larger ones get 431 (env SLUICE_MAX_HEADER_BYTES)."
                    + " Default: ${DEFAULT-VALUE}.")
    int maxHeaderBytes;

    @Option(
            names = "--max-initial-line-bytes",
            paramLabel = "BYTES",
            defaultValue = "" + HttpLimits.DEFAULT_MAX_INITIAL_LINE_BYTES,
            description =
                    "Longest request line (method, path, query string); longer ones get 414. Query requests"
                            + " sent as GET carry their parameters there (env SLUICE_MAX_INITIAL_LINE_BYTES). Default: ${DEFAULT-VALUE}.")
    int maxInitialLineBytes;

    @Option(
            names = "--idle-timeout",
            paramLabel = "SECONDS",
            defaultValue = "" + HttpLimits.DEFAULT_IDLE_TIMEOUT_SECONDS,
            description = "A connection that sends and receives nothing for this long is closed; keep it above 20"
                    + " (long polls are silent while they wait) (env SLUICE_IDLE_TIMEOUT). Default: ${DEFAULT-VALUE}.")
    int idleTimeoutSeconds;

    @Option(
            names = "--max-connections",
            paramLabel = "N",
            defaultValue = "" + HttpLimits.DEFAULT_MAX_CONNECTIONS,
            description = "HTTP connections open at once; one past the limit is closed as it opens"
                    + " (env SLUICE_MAX_CONNECTIONS). Default: ${DEFAULT-VALUE}.")
    int maxConnections;

    @Option(
            names = "--credentials",
            paramLabel = "KEYS",
            description = "Access keys requests must be signed with (SigV4), comma-separated"
                    + " ACCESS_KEY_ID:SECRET_ACCESS_KEY[:ACCOUNT_ID] (env SLUICE_CREDENTIALS). Default: none,"
                    + " authentication off.")
    String credentials;

    @Option(
            names = "--credentials-file",
            paramLabel = "FILE",
            description = "File of access keys, one ACCESS_KEY_ID:SECRET_ACCESS_KEY[:ACCOUNT_ID] per line, e.g. a"
                    + " mounted Kubernetes Secret (env SLUICE_CREDENTIALS_FILE). Adds to --credentials.")
    Path credentialsFile;

    @Option(
            names = "--cluster-config",
            paramLabel = "FILE",
            description = "Hazelcast member YAML (see cluster-config/); without it the node is a standalone one that"
                    + " keeps everything in memory (env SLUICE_CLUSTER_CONFIG).")
    Path clusterConfig;

    @Option(
            names = "--cluster-host",
            paramLabel = "ADDRESS",
            defaultValue = "127.0.0.1",
            description = "Address other nodes reach this one at (env SLUICE_CLUSTER_HOST). Default: ${DEFAULT-VALUE}.")
    String clusterHost;

    @Option(
            names = "--hz-port",
            paramLabel = "PORT",
            defaultValue = "0",
            description =
                    "Hazelcast member port; 0 takes the cluster file's (env SLUICE_HZ_PORT). Default: ${DEFAULT-VALUE}.")
    int hazelcastPort;

    @Option(
            names = "--backup-count",
            paramLabel = "N",
            defaultValue = "1",
            description =
                    "Synchronous backups of every partition, 0..6 (env SLUICE_BACKUP_COUNT). Default: ${DEFAULT-VALUE}.")
    int backupCount;

    /** The version printed by --version: the jar's, when it has one. */
    static final class Version implements IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = NodeOptions.class.getPackage().getImplementationVersion();
            return new String[] {"Sluice " + (v == null ? "(development build)" : v)};
        }
    }
}
