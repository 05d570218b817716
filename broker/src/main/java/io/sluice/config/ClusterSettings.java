package io.sluice.config;

/**
 * How a node joins its cluster.
 *
 * @param configFile  a Hazelcast member YAML (see cluster-config/), or null for a cluster of one
 * @param host        the address other nodes reach this one at (event bus, Hazelcast public address)
 * @param hazelcastPort the Hazelcast member port, or 0 for the file's (5701 by default, auto-incremented)
 * @param backupCount synchronous backups of every partition's records: 1 survives one node loss, 2 two
 */
public record ClusterSettings(String configFile, String host, int hazelcastPort, int backupCount) {

    public static ClusterSettings defaults() {
        return new ClusterSettings(null, "127.0.0.1", 0, 1);
    }

    public ClusterSettings withConfigFile(String v) { return new ClusterSettings(v, host, hazelcastPort, backupCount); }
    public ClusterSettings withHost(String v) { return new ClusterSettings(configFile, v, hazelcastPort, backupCount); }
    public ClusterSettings withHazelcastPort(int v) { return new ClusterSettings(configFile, host, v, backupCount); }
    public ClusterSettings withBackupCount(int v) { return new ClusterSettings(configFile, host, hazelcastPort, v); }
}
