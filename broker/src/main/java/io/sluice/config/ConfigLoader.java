package io.sluice.config;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;

/**
 * Builds the configuration with picocli from, in rising precedence: the defaults of
 * {@link NodeOptions}, a YAML file ({@code --config FILE} or {@code SLUICE_CONFIG}), environment
 * variables {@code SLUICE_*}, and command-line flags. The environment and the file reach picocli
 * as its default values, so type conversion and messages are picocli's for all three.
 */
public final class ConfigLoader {
    private static final String CONFIG_FLAG = "--config";
    private static final String ENV_PREFIX = "SLUICE_";

    private ConfigLoader() {}

    /**
     * @return the configuration, or empty when --help or --version was asked for (then printed to {@code out})
     * @throws IllegalArgumentException with one line for the user when an option is wrong
     */
    public static Optional<BrokerConfig> load(List<String> args, Map<String, String> env, PrintWriter out) {
        NodeOptions options = new NodeOptions();
        CommandLine cli = new CommandLine(options);
        String file = configFile(args, env);
        Map<String, String> yaml = file == null ? Map.of() : readYaml(Path.of(file));
        checkKeys(cli, yaml, file);
        cli.setDefaultValueProvider(spec -> defaultOf(spec, env, yaml));
        cli.setOverwrittenOptionsAllowed(true); // the last of a repeated flag wins, as in most tools
        try {
            cli.parseArgs(args.toArray(String[]::new));
        } catch (ParameterException e) {
            throw new IllegalArgumentException(e.getMessage() + " (see --help)");
        }
        if (cli.isUsageHelpRequested()) {
            cli.usage(out);
            out.flush();
            return Optional.empty();
        }
        if (cli.isVersionHelpRequested()) {
            cli.printVersionHelp(out);
            out.flush();
            return Optional.empty();
        }
        return Optional.of(toConfig(options));
    }

    /** {@link #load(List, Map, PrintWriter)} for a node that is to start: help or version is an error. */
    public static BrokerConfig load(List<String> args, Map<String, String> env) {
        return load(args, env, new PrintWriter(System.out))
                .orElseThrow(() -> new IllegalArgumentException("--help and --version start no node"));
    }

    /** The environment variable of an option: SLUICE_ and its name in capitals. */
    static String envName(String flag) {
        return ENV_PREFIX + flag.substring(2).toUpperCase(Locale.ROOT).replace('-', '_');
    }

    /** The YAML key of an option: its name in camelCase. */
    static String yamlKey(String flag) {
        StringBuilder sb = new StringBuilder();
        boolean upper = false;
        for (char c : flag.substring(2).toCharArray()) {
            if (c == '-') {
                upper = true;
            } else {
                sb.append(upper ? Character.toUpperCase(c) : c);
                upper = false;
            }
        }
        return sb.toString();
    }

    private static String defaultOf(ArgSpec spec, Map<String, String> env, Map<String, String> yaml) {
        if (!(spec instanceof OptionSpec option) || option.usageHelp() || option.versionHelp()) {
            return null;
        }
        String flag = option.longestName();
        String fromEnv = env.get(envName(flag));
        if (fromEnv != null) {
            return fromEnv.trim();
        }
        String fromFile = yaml.get(yamlKey(flag));
        return fromFile != null ? fromFile.trim() : option.defaultValue();
    }

    private static BrokerConfig toConfig(NodeOptions o) {
        check(o.port >= 0 && o.port <= 65535, "--port must be 0..65535, got " + o.port);
        check(o.partitions >= 1 && o.partitions <= 1024, "--partitions must be 1..1024, got " + o.partitions);
        check(o.inFlightLimit >= 1, "--in-flight-limit must be positive, got " + o.inFlightLimit);
        check(o.fifoInFlightLimit >= 1, "--fifo-in-flight-limit must be positive, got " + o.fifoInFlightLimit);
        check(
                o.maxRequestBytes >= 1_100_000,
                "--max-request-bytes must leave room for a 1 MiB message (at least" + " 1100000), got "
                        + o.maxRequestBytes);
        check(o.maxHeaderBytes >= 4096, "--max-header-bytes must be at least 4096, got " + o.maxHeaderBytes);
        check(
                o.maxInitialLineBytes >= 1024,
                "--max-initial-line-bytes must be at least 1024, got " + o.maxInitialLineBytes);
        check(o.idleTimeoutSeconds >= 1, "--idle-timeout must be at least 1 second, got " + o.idleTimeoutSeconds);
        check(o.maxConnections >= 1, "--max-connections must be positive, got " + o.maxConnections);
        check(o.eventLoops >= 0 && o.eventLoops <= 256, "--event-loops must be 0..256, got " + o.eventLoops);
        check(o.backupCount >= 0 && o.backupCount <= 6, "--backup-count must be 0..6, got " + o.backupCount);
        check(o.hazelcastPort >= 0 && o.hazelcastPort <= 65535, "--hz-port must be 0..65535, got " + o.hazelcastPort);
        check(o.accountId.matches("[0-9]{12}"), "--account-id must be 12 digits, got " + o.accountId);
        check(
                o.clusterConfig == null || Files.isReadable(o.clusterConfig),
                "--cluster-config: cannot read " + o.clusterConfig);
        List<AccessKey> keys = new ArrayList<>();
        if (o.credentials != null) {
            keys.addAll(AccessKey.parseAll(o.credentials, o.accountId));
        }
        if (o.credentialsFile != null) {
            try {
                keys.addAll(AccessKey.parseAll(Files.readString(o.credentialsFile), o.accountId));
            } catch (IOException e) {
                throw new IllegalArgumentException(
                        "--credentials-file: cannot read " + o.credentialsFile + ": " + e.getMessage());
            }
        }
        ClusterSettings cluster = new ClusterSettings(
                o.clusterConfig == null ? null : o.clusterConfig.toString(),
                o.clusterHost,
                o.hazelcastPort,
                o.backupCount);
        return new BrokerConfig(
                o.host,
                o.port,
                o.baseUrl,
                o.accountId,
                o.region,
                o.partitions,
                o.shortPollSampling,
                o.inFlightLimit,
                o.maxRequestBytes,
                o.fifoInFlightLimit,
                cluster,
                List.copyOf(keys),
                new HttpLimits(o.maxHeaderBytes, o.maxInitialLineBytes, o.idleTimeoutSeconds, o.maxConnections),
                o.vertxMetrics,
                o.eventLoops,
                o.nativeTransport);
    }

    private static void check(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }

    /** --config is read before the other options: the file supplies their defaults. */
    private static String configFile(List<String> args, Map<String, String> env) {
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.equals(CONFIG_FLAG) && i + 1 < args.size()) {
                return args.get(i + 1);
            }
            if (a.startsWith(CONFIG_FLAG + "=")) {
                return a.substring(CONFIG_FLAG.length() + 1);
            }
        }
        return env.get(envName(CONFIG_FLAG));
    }

    private static void checkKeys(CommandLine cli, Map<String, String> yaml, String file) {
        Set<String> known = new TreeSet<>();
        for (OptionSpec o : cli.getCommandSpec().options()) {
            known.add(yamlKey(o.longestName()));
        }
        for (String key : yaml.keySet()) {
            if (!known.contains(key)) {
                throw new IllegalArgumentException(file + ": unknown option '" + key + "'; known: " + known);
            }
        }
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
        } catch (RuntimeException e) {
            if (e instanceof IllegalArgumentException) {
                throw e;
            }
            throw new IllegalArgumentException(file + ": not valid YAML: "
                    + e.getMessage().lines().findFirst().orElse(""));
        }
    }
}
