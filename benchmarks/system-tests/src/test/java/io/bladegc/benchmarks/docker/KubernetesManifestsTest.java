package io.bladegc.benchmarks.docker;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code docker/kubernetes/}: every document of the files {@code kustomization.yaml} lists parses and has the
 * expected kind; the backends are a StatefulSet with the agent in {@code JAVA_TOOL_OPTIONS} and a readiness probe on
 * {@code /blade/ready}; the coordinator runs beside HAProxy in the load-balancer pod and drives its runtime API on
 * localhost, mapping each backend pod to the HAProxy server that addresses it; the Services and the Secret the
 * containers name exist; and every {@code /opt/blade/...} path a container uses is one its image's Dockerfile copied.
 */
class KubernetesManifestsTest {
    private static final Map<String, JsonNode> BY_KIND_AND_NAME = new LinkedHashMap<>();

    @BeforeAll
    static void read() throws IOException {
        JsonNode kustomization = DockerDir.yaml(DockerDir.file("kubernetes/kustomization.yaml"));
        for (String file : DockerDir.strings(kustomization.path("resources"))) {
            for (JsonNode doc : DockerDir.yamlDocuments(DockerDir.file("kubernetes/" + file))) {
                BY_KIND_AND_NAME.put(doc.path("kind").asText() + "/" + doc.path("metadata").path("name").asText(),
                    doc);
            }
        }
    }

    @Test
    void theExpectedObjects() {
        assertThat(BY_KIND_AND_NAME).containsOnlyKeys("Secret/blade-token", "Service/blade-backend",
            "StatefulSet/blade-backend", "ConfigMap/blade-haproxy", "Deployment/blade-lb", "Service/blade-frontend",
            "Service/blade-coordinator");
    }

    @Test
    void backendsRunTheAgentAndAreProbedOnTheReadinessEndpoint() {
        JsonNode backend = container(get("StatefulSet/blade-backend"), "backend");
        Map<String, JsonNode> env = env(backend);
        assertThat(env.get("JAVA_TOOL_OPTIONS").path("value").asText())
            .contains("-javaagent:/opt/blade/blade-agent.jar", "-XX:ParallelGCThreads=1");
        assertThat(env.get("BLADE_NODE_ID").path("valueFrom").path("fieldRef").path("fieldPath").asText())
            .as("the node id is the pod's name").isEqualTo("metadata.name");
        assertThat(backend.path("readinessProbe").path("httpGet").path("path").asText()).isEqualTo("/blade/ready");
        assertThat(backend.path("resources").path("limits").path("memory").asText()).isNotEmpty();
        assertThat(backend.path("resources").path("requests").path("cpu").asText()).isNotEmpty();

        URI coordinator = URI.create(env.get("BLADE_COORDINATOR").path("value").asText());
        JsonNode service = get("Service/" + coordinator.getHost());
        assertThat(service.path("spec").path("ports").path(0).path("port").asInt()).isEqualTo(coordinator.getPort());
        assertThat(labels(get("Deployment/blade-lb"))).as("the coordinator Service selects the load-balancer pod")
            .containsAllEntriesOf(selector(service));
        assertThat(labels(get("StatefulSet/blade-backend"))).containsAllEntriesOf(selector(get("Service/blade-backend")));
        assertThat(get("StatefulSet/blade-backend").path("spec").path("serviceName").asText()).isEqualTo("blade-backend");
    }

    @Test
    void theCoordinatorSidecarDrivesHaproxyOnLocalhostWithTheBackendPodsAsServers() throws IOException {
        JsonNode lb = get("Deployment/blade-lb");
        JsonNode coordinator = container(lb, "coordinator");
        container(lb, "haproxy");
        List<String> args = DockerDir.strings(coordinator.path("args"));
        HaproxyCfg cfg = HaproxyCfg.parse(HaproxyConfigTest.kubernetesHaproxyCfg());
        assertThat(argument(args, "--haproxy")).isEqualTo("127.0.0.1:" + cfg.statsPort().orElseThrow());
        assertThat(lb.path("spec").path("replicas").asInt()).as("one coordinator").isEqualTo(1);

        JsonNode sts = get("StatefulSet/blade-backend");
        int replicas = sts.path("spec").path("replicas").asInt();
        String service = sts.path("spec").path("serviceName").asText();
        int port = sts.path("spec").path("template").path("spec").path("containers").path(0).path("ports").path(0)
            .path("containerPort").asInt();
        Map<String, String> serverOfPod = new LinkedHashMap<>();
        for (HaproxyCfg.Server s : cfg.servers().get("app")) {
            String pod = s.host().split("\\.")[0];
            assertThat(s.host()).as("server %s: a pod of the StatefulSet through its headless Service", s.name())
                .startsWith(pod + "." + service + ".");
            assertThat(s.port()).isEqualTo(port);
            serverOfPod.put(pod, "app/" + s.name());
        }
        List<String> pods = new ArrayList<>();
        for (int i = 0; i < replicas; i++) {
            pods.add("blade-backend-" + i);
        }
        assertThat(serverOfPod).as("HAProxy's servers against the StatefulSet's pods")
            .containsOnlyKeys(pods.toArray(String[]::new));
        Map<String, String> mapped = new LinkedHashMap<>();
        for (String pair : argument(args, "--haproxy-servers").split(",")) {
            mapped.put(pair.split("=")[0], pair.split("=")[1]);
        }
        assertThat(mapped).as("--haproxy-servers: each pod (node id) to its server").isEqualTo(serverOfPod);
    }

    @Test
    void containersUseWhatTheirImagesCopiedAndTheSecretTheyName() throws IOException {
        Map<String, Dockerfile> images = Map.of(
            "blade-backend:0.1.0-SNAPSHOT", Dockerfile.read(DockerDir.file("backend/Dockerfile")),
            "blade-coordinator:0.1.0-SNAPSHOT", Dockerfile.read(DockerDir.file("coordinator/Dockerfile")));
        JsonNode compose = DockerDir.yaml(DockerDir.file("compose.yaml")).path("services");
        assertThat(compose.path("backend1").path("image").asText()).isIn(images.keySet());
        assertThat(compose.path("coordinator").path("image").asText()).isIn(images.keySet());
        int checked = 0;
        for (JsonNode workload : List.of(get("StatefulSet/blade-backend"), get("Deployment/blade-lb"))) {
            for (JsonNode c : workload.path("spec").path("template").path("spec").path("containers")) {
                for (JsonNode e : c.path("env")) {
                    JsonNode ref = e.path("valueFrom").path("secretKeyRef");
                    if (!ref.isMissingNode()) {
                        assertThat(get("Secret/" + ref.path("name").asText()).path("stringData")
                            .has(ref.path("key").asText())).as("secret key %s", ref).isTrue();
                    }
                }
                Dockerfile image = images.get(c.path("image").asText());
                if (image == null) {
                    continue; // the official haproxy image
                }
                List<String> texts = new ArrayList<>(DockerDir.strings(c.path("command")));
                texts.addAll(DockerDir.strings(c.path("args")));
                c.path("env").forEach(e -> texts.add(e.path("value").asText()));
                assertThat(DockerImagesIT.imagePaths(texts)).as("%s: image paths", c.path("name").asText())
                    .isNotEmpty().allMatch(image::provides);
                checked++;
            }
        }
        assertThat(checked).as("containers of our images").isEqualTo(2);
    }

    private static JsonNode get(String kindAndName) {
        assertThat(BY_KIND_AND_NAME).containsKey(kindAndName);
        return BY_KIND_AND_NAME.get(kindAndName);
    }

    private static JsonNode container(JsonNode workload, String name) {
        for (JsonNode c : workload.path("spec").path("template").path("spec").path("containers")) {
            if (c.path("name").asText().equals(name)) {
                return c;
            }
        }
        throw new AssertionError("no container " + name + " in " + workload.path("metadata").path("name"));
    }

    private static Map<String, JsonNode> env(JsonNode container) {
        Map<String, JsonNode> out = new LinkedHashMap<>();
        container.path("env").forEach(e -> out.put(e.path("name").asText(), e));
        return out;
    }

    private static Map<String, String> labels(JsonNode workload) {
        Map<String, String> out = new LinkedHashMap<>();
        workload.path("spec").path("template").path("metadata").path("labels").fields()
            .forEachRemaining(e -> out.put(e.getKey(), e.getValue().asText()));
        return out;
    }

    private static Map<String, String> selector(JsonNode service) {
        Map<String, String> out = new LinkedHashMap<>();
        service.path("spec").path("selector").fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().asText()));
        assertThat(out).as("selector of %s", service.path("metadata").path("name")).isNotEmpty();
        return out;
    }

    private static String argument(List<String> args, String flag) {
        int i = args.indexOf(flag);
        assertThat(i).as("%s in %s", flag, args).isGreaterThanOrEqualTo(0).isLessThan(args.size() - 1);
        return args.get(i + 1);
    }
}
