package io.sluice.config;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * Builds the configuration from, in rising precedence: the defaults, a YAML file
 * ({@code --config FILE} or {@code SLUICE_CONFIG}), environment variables {@code SLUICE_*},
 * and command-line flags {@code --name value}. Every option has all three spellings; see
 * {@link Option}.
 */
public final class ConfigLoader {

    /** Each option: its flag, its environment variable and its YAML key. */
    public enum Option {
        HOST("--host", "SLUICE_HOST", "host"),
        PORT("--port", "SLUICE_PORT", "port"),
        BASE_URL("--base-url", "SLUICE_BASE_URL", "baseUrl"),
        ACCOUNT_ID("--account-id", "SLUICE_ACCOUNT_ID", "accountId"),
        REGION("--region", "SLUICE_REGION", "region"),
        PARTITIONS("--partitions", "SLUICE_PARTITIONS", "partitions"),
        SHORT_POLL_SAMPLING("--short-poll-sampling", "SLUICE_SHORT_POLL_SAMPLING", "shortPollSampling"),
        IN_FLIGHT_LIMIT("--in-flight-limit", "SLUICE_IN_FLIGHT_LIMIT", "inFlightLimit"),
        MAX_REQUEST_BYTES("--max-request-bytes", "SLUICE_MAX_REQUEST_BYTES", "maxRequestBytes"),
        FIFO_IN_FLIGHT_LIMIT("--fifo-in-flight-limit", "SLUICE_FIFO_IN_FLIGHT_LIMIT", "fifoInFlightLimit"),
        CLUSTER_CONFIG("--cluster-config", "SLUICE_CLUSTER_CONFIG", "clusterConfig"),
        CLUSTER_HOST("--cluster-host", "SLUICE_CLUSTER_HOST", "clusterHost"),
        HZ_PORT("--hz-port", "SLUICE_HZ_PORT", "hazelcastPort"),
        BACKUP_COUNT("--backup-count", "SLUICE_BACKUP_COUNT", "backupCount");

        final String flag;
        final String env;
        final String yamlKey;

        Option(String flag, String env, String yamlKey) {
            this.flag = flag;
            this.env = env;
            this.yamlKey = yamlKey;
        }
    }

    private ConfigLoader() { }

    /** @throws IllegalArgumentException with a message for the user when an option is wrong */
    public static BrokerConfig load(List<String> args, Map<String, String> env) {
        Map<String, String> flags = parseFlags(args);
        String file = flags.containsKey("--config") ? flags.get("--config") : env.get("SLUICE_CONFIG");
        Map<String, String> yaml = file == null ? Map.of() : readYaml(Path.of(file));
        BrokerConfig c = BrokerConfig.defaults();
        for (Option o : Option.values()) {
            String v = flags.containsKey(o.flag) ? flags.get(o.flag)
                    : env.containsKey(o.env) ? env.get(o.env) : yaml.get(o.yamlKey);
            if (v != null) {
                c = apply(c, o, v.trim());
            }
        }
        return validate(c);
    }

    private static BrokerConfig apply(BrokerConfig c, Option o, String v) {
        return switch (o) {
            case HOST -> c.withHost(v);
            case PORT -> c.withPort(integer(o, v));
            case BASE_URL -> c.withBaseUrl(v);
            case ACCOUNT_ID -> c.withAccountId(v);
            case REGION -> c.withRegion(v);
            case PARTITIONS -> c.withPartitions(integer(o, v));
            case SHORT_POLL_SAMPLING -> c.withShortPollSampling(bool(o, v));
            case IN_FLIGHT_LIMIT -> c.withInFlightLimit(integer(o, v));
            case MAX_REQUEST_BYTES -> c.withMaxRequestBytes(integer(o, v));
            case FIFO_IN_FLIGHT_LIMIT -> c.withFifoInFlightLimit(integer(o, v));
            case CLUSTER_CONFIG -> c.withCluster(c.cluster().withConfigFile(v));
            case CLUSTER_HOST -> c.withCluster(c.cluster().withHost(v));
            case HZ_PORT -> c.withCluster(c.cluster().withHazelcastPort(integer(o, v)));
            case BACKUP_COUNT -> c.withCluster(c.cluster().withBackupCount(integer(o, v)));
        };
    }

    private static BrokerConfig validate(BrokerConfig c) {
        if (c.port() < 0 || c.port() > 65535) {
            throw new IllegalArgumentException("port must be 0..65535, got " + c.port());
        }
        if (c.partitions() < 1 || c.partitions() > 1024) {
            throw new IllegalArgumentException("partitions must be 1..1024, got " + c.partitions());
        }
        if (c.inFlightLimit() < 1 || c.fifoInFlightLimit() < 1) {
            throw new IllegalArgumentException("inFlightLimit and fifoInFlightLimit must be positive");
        }
        if (c.maxRequestBytes() < 1_100_000) {
            throw new IllegalArgumentException("maxRequestBytes must leave room for a 1 MiB message, got " + c.maxRequestBytes());
        }
        if (c.cluster().backupCount() < 0 || c.cluster().backupCount() > 6) {
            throw new IllegalArgumentException("backupCount must be 0..6, got " + c.cluster().backupCount());
        }
        if (c.cluster().configFile() != null && !Files.isReadable(Path.of(c.cluster().configFile()))) {
            throw new IllegalArgumentException("cannot read cluster config " + c.cluster().configFile());
        }
        if (!c.accountId().matches("[0-9]{12}")) {
            throw new IllegalArgumentException("accountId must be 12 digits, got " + c.accountId());
        }
        return c;
    }

    private static Map<String, String> parseFlags(List<String> args) {
        Map<String, String> flags = new LinkedHashMap<>();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (!a.startsWith("--")) {
                throw new IllegalArgumentException("unexpected argument: " + a);
            }
            int eq = a.indexOf('=');
            if (eq > 0) {
                flags.put(a.substring(0, eq), a.substring(eq + 1));
            } else if (i + 1 < args.size()) {
                flags.put(a, args.get(++i));
            } else {
                throw new IllegalArgumentException("missing value for " + a);
            }
        }
        for (String f : flags.keySet()) {
            if (!f.equals("--config") && Arrays.stream(Option.values()).noneMatch(o -> o.flag.equals(f))) {
                throw new IllegalArgumentException("unknown option: " + f);
            }
        }
        return flags;
    }

    private static Map<String, String> readYaml(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            Object doc = new Yaml(new SafeConstructor(new LoaderOptions())).load(in);
            Map<String, String> out = new LinkedHashMap<>();
            if (doc instanceof Map<?, ?> m) {
                m.forEach((k, v) -> {
                    if (v != null) {
                        out.put(String.valueOf(k), String.valueOf(v));
                    }
                });
            } else if (doc != null) {
                throw new IllegalArgumentException(file + ": expected a YAML mapping of option: value");
            }
            return out;
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read config file " + file + ": " + e.getMessage());
        }
    }

    private static int integer(Option o, String v) {
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(o.yamlKey + " must be an integer, got '" + v + "'");
        }
    }

    private static boolean bool(Option o, String v) {
        if (v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(v);
        }
        throw new IllegalArgumentException(o.yamlKey + " must be true or false, got '" + v + "'");
    }
}
