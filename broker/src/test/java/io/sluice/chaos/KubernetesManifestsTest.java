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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * k8s/ parses as YAML and agrees with itself and with cluster-config/kubernetes.yaml and
 * kubernetes-api.yaml. (The Kubernetes schemas themselves are checked by k8s/validate in mvn verify.)
 */
class KubernetesManifestsTest {
    private static final String BASE = "../k8s/base";
    private static final String OVERLAY = "../k8s/overlays/api-discovery";

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

    private static Map<String, Map<String, Object>> manifests(String... files) throws Exception {
        Map<String, Map<String, Object>> byKindAndName = new HashMap<>();
        for (String file : files) {
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

    /** What k8s/base applies: the files its kustomization.yaml lists. */
    @SuppressWarnings("unchecked")
    private static Map<String, Map<String, Object>> base() throws Exception {
        Map<String, Object> kustomization;
        try (Reader r = Files.newBufferedReader(Path.of(BASE, "kustomization.yaml"), StandardCharsets.UTF_8)) {
            kustomization = new Yaml().load(r);
        }
        List<String> resources = (List<String>) kustomization.get("resources");
        return manifests(resources.stream().map(f -> BASE + "/" + f).toArray(String[]::new));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> container(Map<String, Object> sts) {
        return ((List<Map<String, Object>>) get(sts, "spec", "template", "spec", "containers")).get(0);
    }

    /** Bytes of a Kubernetes quantity such as 1Gi or 512Mi. */
    private static long bytes(String quantity) {
        Matcher m = Pattern.compile("(\\d+)(Ki|Mi|Gi)").matcher(quantity);
        assertTrue(m.matches(), "a binary quantity: " + quantity);
        long unit = switch (m.group(2)) {
            case "Ki" -> 1L << 10;
            case "Mi" -> 1L << 20;
            default -> 1L << 30;
        };
        return Long.parseLong(m.group(1)) * unit;
    }

    @Test
    @SuppressWarnings("unchecked")
    void manifestsAgree() throws Exception {
        Map<String, Map<String, Object>> all = base();
        Map<String, Object> headless = all.get("Service/sluice-hz");
        Map<String, Object> client = all.get("Service/sluice");
        Map<String, Object> sts = all.get("StatefulSet/sluice");
        Map<String, Object> pdb = all.get("PodDisruptionBudget/sluice");
        assertNotNull(all.get("Namespace/sluice"));
        assertNotNull(headless);
        assertNotNull(client);
        assertNotNull(sts);
        assertNotNull(pdb);

        Map<String, Object> container = container(sts);
        List<String> args = new ArrayList<>(((List<Object>) container.get("args"))
                .stream().map(String::valueOf).toList());
        Map<String, String> env = new HashMap<>();
        for (Map<String, Object> e : (List<Map<String, Object>>) container.get("env")) {
            env.put(
                    (String) e.get("name"),
                    e.get("value") == null ? "(from " + e.get("valueFrom") + ")" : (String) e.get("value"));
        }
        Map<String, Object> hzConfig;
        try (Reader r = Files.newBufferedReader(
                ClusterProcess.CLUSTER_CONFIG.resolve("kubernetes.yaml"), StandardCharsets.UTF_8)) {
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
                () -> assertEquals("/health/ready", get(container, "readinessProbe", "httpGet", "path")),
                () -> assertEquals("/health/live", get(container, "livenessProbe", "httpGet", "path")),
                () -> assertEquals("/health/live", get(container, "startupProbe", "httpGet", "path")),
                () -> assertEquals("http", get(container, "readinessProbe", "httpGet", "port")),
                () -> assertEquals("http", get(container, "livenessProbe", "httpGet", "port")),
                () -> assertTrue(
                        args.containsAll(List.of("--cluster-config", "--cluster-host", "$(POD_IP)", "--port", "9324")),
                        "args " + args),
                () -> assertEquals(
                        "http://sluice." + namespace + ".svc.cluster.local:9324", env.get("SLUICE_BASE_URL")),
                () -> assertTrue(env.containsKey("POD_IP")),
                () -> {
                    String mountPath =
                            get(((List<Map<String, Object>>) container.get("volumeMounts")).get(0), "mountPath");
                    assertEquals(mountPath + "/hazelcast.yaml", args.get(args.indexOf("--cluster-config") + 1));
                });
    }

    @Test
    @SuppressWarnings("unchecked")
    void serviceAccountSecretAndSpread() throws Exception {
        Map<String, Map<String, Object>> all = base();
        Map<String, Object> sts = all.get("StatefulSet/sluice");
        Map<String, Object> pod = get(sts, "spec", "template", "spec");
        Map<String, Object> container = container(sts);
        Map<String, Object> account = all.get("ServiceAccount/" + pod.get("serviceAccountName"));
        Map<String, Object> secret = all.get("Secret/sluice-credentials");
        Map<String, Object> credentials = ((List<Map<String, Object>>) container.get("env"))
                .stream()
                        .filter(e -> "SLUICE_CREDENTIALS".equals(e.get("name")))
                        .findFirst()
                        .orElseThrow();
        Map<String, Object> podLabels = get(sts, "spec", "template", "metadata", "labels");
        List<Map<String, Object>> spread = (List<Map<String, Object>>) pod.get("topologySpreadConstraints");
        assertAll(
                () -> assertEquals("sluice", pod.get("serviceAccountName")),
                () -> assertNotNull(account, "the ServiceAccount the pods run as"),
                () -> assertEquals(
                        Boolean.FALSE, account.get("automountServiceAccountToken"), "DNS discovery needs no token"),
                () -> assertNotNull(secret, "Secret sluice-credentials"),
                () -> assertEquals("sluice-credentials", get(credentials, "valueFrom", "secretKeyRef", "name")),
                () -> assertEquals("credentials", get(credentials, "valueFrom", "secretKeyRef", "key")),
                () -> assertTrue(((Map<String, Object>) secret.get("stringData")).containsKey("credentials")),
                () -> assertEquals(
                        List.of("kubernetes.io/hostname", "topology.kubernetes.io/zone"),
                        spread.stream().map(c -> c.get("topologyKey")).toList()),
                () -> assertTrue(
                        spread.stream()
                                .allMatch(c -> podLabels
                                        .entrySet()
                                        .containsAll(((Map<String, Object>) get(c, "labelSelector", "matchLabels"))
                                                .entrySet())),
                        "spread counts these pods"));
    }

    @Test
    void jvmHeapFitsTheMemoryLimit() throws Exception {
        Map<String, Object> container = container(base().get("StatefulSet/sluice"));
        long limit = bytes(get(container, "resources", "limits", "memory"));
        long request = bytes(get(container, "resources", "requests", "memory"));
        List<String> command = get(container, "command");
        String percentage = command.stream()
                .filter(a -> a.startsWith("-XX:MaxRAMPercentage="))
                .findFirst()
                .orElseThrow();
        double heap = limit * Double.parseDouble(percentage.substring(percentage.indexOf('=') + 1)) / 100;
        assertAll(
                () -> assertEquals(limit, request, "memory request = limit"),
                () -> assertTrue(
                        command.stream().noneMatch(a -> a.startsWith("-Xmx")),
                        "the heap follows the limit, not a fixed -Xmx"),
                () -> assertTrue(
                        limit - heap >= 256L << 20,
                        "at least 256 MiB outside the heap, have " + (limit - (long) heap)));
    }

    @Test
    @SuppressWarnings("unchecked")
    void apiDiscoveryOverlay() throws Exception {
        Map<String, Object> kustomization;
        try (Reader r = Files.newBufferedReader(Path.of(OVERLAY, "kustomization.yaml"), StandardCharsets.UTF_8)) {
            kustomization = new Yaml().load(r);
        }
        Map<String, Map<String, Object>> overlay =
                manifests(OVERLAY + "/rbac.yaml", OVERLAY + "/serviceaccount-token.yaml");
        Map<String, Map<String, Object>> base = base();
        Map<String, Object> sts = base.get("StatefulSet/sluice");
        String namespace = get(sts, "metadata", "namespace");
        String account = get(sts, "spec", "template", "spec", "serviceAccountName");
        Map<String, Object> role = overlay.get("Role/sluice-hazelcast-discovery");
        Map<String, Object> binding = overlay.get("RoleBinding/sluice-hazelcast-discovery");
        Map<String, Object> subject = ((List<Map<String, Object>>) binding.get("subjects")).get(0);
        Map<String, List<String>> verbsByResource = new HashMap<>();
        for (Map<String, Object> rule : (List<Map<String, Object>>) role.get("rules")) {
            for (String resource : (List<String>) rule.get("resources")) {
                verbsByResource.put(resource, (List<String>) rule.get("verbs"));
            }
        }
        Map<String, Object> hz;
        try (Reader r = Files.newBufferedReader(
                ClusterProcess.CLUSTER_CONFIG.resolve("kubernetes-api.yaml"), StandardCharsets.UTF_8)) {
            hz = new Yaml().load(r);
        }
        Map<String, Object> join = get(hz, "hazelcast", "network", "join", "kubernetes");
        assertAll(
                () -> assertEquals(List.of("../../base", "rbac.yaml"), kustomization.get("resources")),
                () -> assertEquals(namespace, get(role, "metadata", "namespace")),
                () -> assertEquals(namespace, get(binding, "metadata", "namespace")),
                () -> assertEquals("Role", get(binding, "roleRef", "kind")),
                () -> assertEquals((String) get(role, "metadata", "name"), get(binding, "roleRef", "name")),
                () -> assertEquals("ServiceAccount", subject.get("kind")),
                () -> assertEquals(account, subject.get("name")),
                () -> assertEquals(namespace, subject.get("namespace")),
                () -> assertTrue(verbsByResource.get("endpoints").containsAll(List.of("get", "list"))),
                () -> assertTrue(verbsByResource.get("endpointslices").containsAll(List.of("get", "list"))),
                () -> assertTrue(verbsByResource.get("pods").containsAll(List.of("get", "list"))),
                () -> assertEquals(
                        Boolean.TRUE,
                        get(overlay.get("ServiceAccount/" + account), "automountServiceAccountToken"),
                        "API discovery needs the token"),
                () -> assertEquals(namespace, join.get("namespace")),
                () -> assertEquals(
                        (String) get(base.get("Service/sluice-hz"), "metadata", "name"), join.get("service-name")),
                () -> assertEquals(Boolean.FALSE, join.get("expose-externally"), "no services or nodes to read"));
    }
}
