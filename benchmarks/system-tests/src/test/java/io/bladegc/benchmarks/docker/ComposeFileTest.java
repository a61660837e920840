package io.bladegc.benchmarks.docker;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.bladegc.api.BladeOptionsParser;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code docker/compose.yaml} parses, every path it names exists, and its services agree with each other and with
 * the files they mount: HAProxy's servers are the backend services, the coordinator drives that HAProxy's runtime
 * API and maps each node id to the server of the backend that carries it, the agents reach the coordinator with
 * the coordinator's token, the load generator goes through HAProxy, Prometheus scrapes the coordinator and every
 * backend, and Grafana finds Prometheus and the dashboard.
 */
class ComposeFileTest {
    private static final Path COMPOSE = DockerDir.file("compose.yaml");
    private static JsonNode services;

    @BeforeAll
    static void read() throws IOException {
        JsonNode compose = DockerDir.yaml(COMPOSE);
        services = compose.path("services");
        assertThat(services.isObject()).as("compose.yaml has services").isTrue();
    }

    @Test
    void everyBuildAndVolumePathExistsAndEveryDependencyIsAService() {
        Path dir = COMPOSE.getParent();
        services.fields().forEachRemaining(e -> {
            JsonNode s = e.getValue();
            if (s.has("build")) {
                Path context = dir.resolve(s.path("build").path("context").asText()).normalize();
                assertThat(context).as("%s build context", e.getKey()).isDirectory();
                assertThat(context.resolve(s.path("build").path("dockerfile").asText()))
                    .as("%s Dockerfile", e.getKey()).isRegularFile();
            }
            for (String volume : DockerDir.strings(s.path("volumes"))) {
                String source = volume.split(":")[0];
                assertThat(source).as("%s volume %s: a path relative to compose.yaml", e.getKey(), volume)
                    .startsWith("./");
                assertThat(dir.resolve(source)).as("%s volume source", e.getKey()).exists();
            }
            s.path("depends_on").fieldNames().forEachRemaining(d ->
                assertThat(services.has(d)).as("%s depends on %s", e.getKey(), d).isTrue());
        });
    }

    @Test
    void haproxyServesTheBackendServicesAndTheCoordinatorDrivesIt() throws IOException {
        HaproxyCfg cfg = HaproxyCfg.parse(Files.readString(DockerDir.file("haproxy/haproxy.cfg")));
        Map<String, String> nodeOfService = backends();
        int backendPort = demoPort();
        String haproxy = serviceMounting("/usr/local/etc/haproxy/haproxy.cfg");

        assertThat(cfg.servers()).as("haproxy.cfg backends").containsOnlyKeys("app");
        Map<String, String> serviceOfServer = new LinkedHashMap<>();
        for (HaproxyCfg.Server server : cfg.servers().get("app")) {
            assertThat(server.port()).as("server %s port: the backend's --port", server.name()).isEqualTo(backendPort);
            serviceOfServer.put(server.name(), server.host());
        }
        assertThat(serviceOfServer.values()).as("HAProxy's servers against the backend services")
            .containsExactlyInAnyOrderElementsOf(nodeOfService.keySet());

        List<String> coordinator = DockerDir.strings(services.path("coordinator").path("command"));
        URI runtimeApi = URI.create("tcp://" + argument(coordinator, "--haproxy"));
        assertThat(runtimeApi.getHost()).as("the coordinator's --haproxy host").isEqualTo(haproxy);
        assertThat(cfg.statsPort()).as("haproxy.cfg stats socket ipv4@...:port").hasValue(runtimeApi.getPort());

        Map<String, String> mapped = new LinkedHashMap<>();
        for (String pair : argument(coordinator, "--haproxy-servers").split(",")) {
            String[] nodeAndServer = pair.split("=");
            String[] backendAndServer = nodeAndServer[1].split("/");
            assertThat(backendAndServer[0]).as("backend of %s", pair).isEqualTo("app");
            assertThat(serviceOfServer).as("servers of haproxy.cfg").containsKey(backendAndServer[1]);
            mapped.put(nodeAndServer[0], nodeOfService.get(serviceOfServer.get(backendAndServer[1])));
        }
        assertThat(mapped).as("--haproxy-servers: each node id to the server of the backend with that id")
            .hasSize(nodeOfService.size())
            .allSatisfy((node, nodeThere) -> assertThat(nodeThere).isEqualTo(node));

        List<String> load = DockerDir.strings(services.path("loadgen").path("command"));
        URI url = URI.create(load.get(0));
        assertThat(url.getHost()).as("the load generator goes through HAProxy").isEqualTo(haproxy);
        assertThat(cfg.frontendPorts()).contains(url.getPort());
    }

    @Test
    void agentsReachTheCoordinatorWithItsTokenAndOnlyAgentVariables() {
        List<String> coordinator = DockerDir.strings(services.path("coordinator").path("command"));
        String expected = "http://coordinator:" + argument(coordinator, "--port");
        assertThat(argument(coordinator, "--bind")).isEqualTo("0.0.0.0");
        String token = services.path("coordinator").path("environment").path("BLADE_COORDINATOR_TOKEN").asText();
        assertThat(token).as("the coordinator's token (needed beyond loopback)").isNotBlank();
        Set<String> agentVariables = new TreeSet<>();
        BladeOptionsParser.KEYS.forEach(k -> agentVariables.add(BladeOptionsParser.envName(k)));
        for (String service : backends().keySet()) {
            JsonNode env = services.path(service).path("environment");
            assertThat(env.path("BLADE_COORDINATOR").asText()).as("%s BLADE_COORDINATOR", service)
                .isEqualTo(expected);
            assertThat(env.path("BLADE_TOKEN").asText()).as("%s BLADE_TOKEN", service).isEqualTo(token);
            env.fieldNames().forEachRemaining(name -> {
                if (name.startsWith(BladeOptionsParser.ENV_PREFIX)) {
                    assertThat(agentVariables).as("%s: %s, an unknown BLADE_* variable disables the agent",
                        service, name).contains(name);
                }
            });
        }
    }

    @Test
    void prometheusScrapesTheCoordinatorAndEveryBackend() throws IOException {
        String prometheus = serviceMounting("/etc/prometheus/prometheus.yml");
        assertThat(prometheus).isEqualTo("prometheus");
        JsonNode config = DockerDir.yaml(DockerDir.file("prometheus/prometheus.yml"));
        Map<String, List<String>> targets = new LinkedHashMap<>();
        for (JsonNode job : config.path("scrape_configs")) {
            List<String> t = new ArrayList<>();
            job.path("static_configs").forEach(c -> t.addAll(DockerDir.strings(c.path("targets"))));
            assertThat(job.path("metrics_path").asText("/metrics")).isEqualTo("/metrics");
            targets.put(job.path("job_name").asText(), t);
        }
        List<String> coordinator = DockerDir.strings(services.path("coordinator").path("command"));
        assertThat(targets).containsOnlyKeys("blade-coordinator", "blade-backend");
        assertThat(targets.get("blade-coordinator")).containsExactly("coordinator:" + argument(coordinator, "--port"));
        assertThat(targets.get("blade-backend")).containsExactlyInAnyOrderElementsOf(
            backends().keySet().stream().map(s -> s + ":" + demoPort()).toList());
    }

    @Test
    void grafanaFindsPrometheusAndTheDashboard() throws IOException {
        String dashboardMount = null;
        for (String volume : DockerDir.strings(services.path("grafana").path("volumes"))) {
            String[] parts = volume.split(":");
            if (parts[0].equals("./grafana/blade-dashboard.json")) {
                dashboardMount = parts[1];
            } else {
                assertThat(parts[0] + ":" + parts[1]).isEqualTo("./grafana/provisioning:/etc/grafana/provisioning");
            }
        }
        assertThat(dashboardMount).as("grafana mounts the dashboard").isNotNull();
        JsonNode provider = DockerDir.yaml(DockerDir.file("grafana/provisioning/dashboards/blade.yaml"))
            .path("providers").path(0);
        assertThat(Path.of(dashboardMount).getParent().toString()).as("the provider's folder holds the dashboard")
            .isEqualTo(provider.path("options").path("path").asText());

        JsonNode datasource = DockerDir.yaml(DockerDir.file("grafana/provisioning/datasources/prometheus.yaml"))
            .path("datasources").path(0);
        assertThat(datasource.path("type").asText()).isEqualTo("prometheus");
        URI url = URI.create(datasource.path("url").asText());
        assertThat(url.getHost()).isEqualTo(serviceMounting("/etc/prometheus/prometheus.yml"));
        assertThat(DockerDir.strings(services.path(url.getHost()).path("ports"))).contains(url.getPort() + ":"
            + url.getPort());
    }

    @Test
    void commandLinesUseWhatTheirImagesCopied() throws IOException {
        var fields = services.fields();
        while (fields.hasNext()) {
            var e = fields.next();
            JsonNode build = e.getValue().path("build");
            if (build.isMissingNode()) {
                continue;
            }
            Dockerfile image = Dockerfile.read(COMPOSE.getParent().resolve(build.path("context").asText())
                .resolve(build.path("dockerfile").asText()));
            List<String> texts = new ArrayList<>(DockerDir.strings(e.getValue().path("entrypoint")));
            texts.addAll(DockerDir.strings(e.getValue().path("command")));
            e.getValue().path("environment").forEach(v -> texts.add(v.asText()));
            assertThat(DockerImagesIT.imagePaths(texts)).as("%s: image paths, each copied by its Dockerfile",
                e.getKey()).allMatch(image::provides);
        }
    }

    /** @return the backend services (those with an agent node id) and their node ids */
    private static Map<String, String> backends() {
        Map<String, String> out = new LinkedHashMap<>();
        services.fields().forEachRemaining(e -> {
            JsonNode id = e.getValue().path("environment").path("BLADE_NODE_ID");
            if (!id.isMissingNode()) {
                out.put(e.getKey(), id.asText());
            }
        });
        assertThat(out).as("backend services").hasSize(3);
        assertThat(new TreeSet<>(out.values())).as("node ids, one per backend").hasSize(out.size());
        return out;
    }

    /** @return the port DemoServer listens on in the backend image (its CMD's --port) */
    private static int demoPort() {
        try {
            return Integer.parseInt(argument(Dockerfile.read(DockerDir.file("backend/Dockerfile")).cmd(), "--port"));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static String serviceMounting(String target) {
        List<String> found = new ArrayList<>();
        services.fields().forEachRemaining(e -> {
            for (String volume : DockerDir.strings(e.getValue().path("volumes"))) {
                if (volume.split(":")[1].equals(target)) {
                    found.add(e.getKey());
                }
            }
        });
        assertThat(found).as("services mounting %s", target).hasSize(1);
        return found.get(0);
    }

    private static String argument(List<String> args, String flag) {
        int i = args.indexOf(flag);
        assertThat(i).as("%s in %s", flag, args).isGreaterThanOrEqualTo(0).isLessThan(args.size() - 1);
        return args.get(i + 1);
    }
}
