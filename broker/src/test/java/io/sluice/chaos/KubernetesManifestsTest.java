package io.sluice.chaos;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/** k8s/ parses as YAML and agrees with itself and with cluster-config/kubernetes.yaml. */
class KubernetesManifestsTest {

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o, String... path) {
        Object cur = o;
        for (String p : path) {
            cur = ((Map<String, Object>) cur).get(p);
        }
        return (Map<String, Object>) cur;
    }

    @SuppressWarnings("unchecked")
    private static <T> T get(Object o, String... path) {
        Object cur = o;
        for (String p : path) {
            cur = ((Map<String, Object>) cur).get(p);
        }
        return (T) cur;
    }

    private static Map<String, Map<String, Object>> manifests() throws Exception {
        Map<String, Map<String, Object>> byKindAndName = new HashMap<>();
        for (String file : List.of("../k8s/namespace.yaml", "../k8s/sluice.yaml")) {
            try (Reader r = Files.newBufferedReader(Path.of(file), StandardCharsets.UTF_8)) {
                for (Object doc : new Yaml().loadAll(r)) {
                    if (doc != null) {
                        Map<String, Object> m = map(doc);
                        byKindAndName.put(m.get("kind") + "/" + get(m, "metadata", "name"), m);
                    }
                }
            }
        }
        return byKindAndName;
    }

    @Test
    @SuppressWarnings("unchecked")
    void manifestsAgree() throws Exception {
        Map<String, Map<String, Object>> all = manifests();
        Map<String, Object> headless = all.get("Service/sluice-hz");
        Map<String, Object> client = all.get("Service/sluice");
        Map<String, Object> sts = all.get("StatefulSet/sluice");
        Map<String, Object> pdb = all.get("PodDisruptionBudget/sluice");
        assertNotNull(all.get("Namespace/sluice"));
        assertNotNull(headless);
        assertNotNull(client);
        assertNotNull(sts);
        assertNotNull(pdb);

        Map<String, Object> container = ((List<Map<String, Object>>) get(sts, "spec", "template", "spec", "containers")).get(0);
        List<String> args = new ArrayList<>(((List<Object>) container.get("args")).stream().map(String::valueOf).toList());
        Map<String, String> env = new HashMap<>();
        for (Map<String, Object> e : (List<Map<String, Object>>) container.get("env")) {
            env.put((String) e.get("name"), e.get("value") == null ? "(from " + e.get("valueFrom") + ")" : (String) e.get("value"));
        }
        Map<String, Object> hzConfig;
        try (Reader r = Files.newBufferedReader(Path.of("../cluster-config/kubernetes.yaml"), StandardCharsets.UTF_8)) {
            hzConfig = new Yaml().load(r);
        }
        String serviceDns = get(hzConfig, "hazelcast", "network", "join", "kubernetes", "service-dns");
        String namespace = get(sts, "metadata", "namespace");
        Map<String, Object> headlessPort = ((List<Map<String, Object>>) get(headless, "spec", "ports")).get(0);
        Map<String, Object> clientPort = ((List<Map<String, Object>>) get(client, "spec", "ports")).get(0);

        assertAll(
                () -> assertEquals(3, (Integer) get(sts, "spec", "replicas")),
                () -> assertEquals("sluice-hz", get(sts, "spec", "serviceName")),
                () -> assertEquals("Parallel", get(sts, "spec", "podManagementPolicy")),
                () -> assertEquals(30, (Integer) get(sts, "spec", "template", "spec", "terminationGracePeriodSeconds")),
                () -> assertEquals("None", get(headless, "spec", "clusterIP")),
                () -> assertEquals(Boolean.TRUE, get(headless, "spec", "publishNotReadyAddresses")),
                () -> assertEquals(5701, headlessPort.get("port")),
                () -> assertEquals("hazelcast", headlessPort.get("name")),
                () -> assertEquals(9324, clientPort.get("port")),
                () -> assertEquals(1, (Integer) get(pdb, "spec", "maxUnavailable")),
                () -> assertEquals("sluice-hz." + namespace + ".svc.cluster.local", serviceDns),
                () -> assertEquals("/health", get(container, "readinessProbe", "httpGet", "path")),
                () -> assertNotNull(container.get("livenessProbe")),
                () -> assertTrue(args.containsAll(List.of("--cluster-config", "--cluster-host", "$(POD_IP)", "--port", "9324")), "args " + args),
                () -> assertEquals("http://sluice." + namespace + ".svc.cluster.local:9324", env.get("SLUICE_BASE_URL")),
                () -> assertTrue(env.containsKey("POD_IP")),
                () -> {
                    String mountPath = get(((List<Map<String, Object>>) container.get("volumeMounts")).get(0), "mountPath");
                    assertEquals(mountPath + "/hazelcast.yaml", args.get(args.indexOf("--cluster-config") + 1));
                });
    }
}
