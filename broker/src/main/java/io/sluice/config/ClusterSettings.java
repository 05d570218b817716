package io.sluice.config;

/**
 * How a node joins its cluster.
 *
 * @param configFile  a Hazelcast member YAML (see cluster-config/), or null for a cluster of one
 * @param host        the address other nodes reach this one at (event bus, Hazelcast public address)
 * @param hazelcastPort the Hazelcast member port, or 0 for the file's (5701 by default, auto-incremented)
 * @param backupCount synchronous backups of every partition's records: 1 survives one node loss, 2 two
 */
public record ClusterSettings(String configFile, String host, int hazelcastPort, int backupCount) {}
