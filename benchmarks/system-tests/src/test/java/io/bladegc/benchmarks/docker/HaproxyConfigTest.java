package io.bladegc.benchmarks.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.bladegc.testkit.HaproxyProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HAProxy configurations under {@code docker/} pass {@code haproxy -c -f} of the HAProxy on this machine: the
 * compose one and the one in the Kubernetes ConfigMap. The backends' names do not resolve here; the configurations
 * say {@code init-addr last,libc,none}, so the only warnings allowed are the unresolved addresses. Skipped (with a
 * message) when there is no {@code haproxy} binary.
 */
class HaproxyConfigTest {
    @TempDir
    Path tmp;

    @Test
    void composeConfigurationPassesHaproxyCheck() throws Exception {
        check(DockerDir.file("haproxy/haproxy.cfg"));
    }

    @Test
    void kubernetesConfigMapConfigurationPassesHaproxyCheck() throws Exception {
        Path cfg = tmp.resolve("haproxy.cfg");
        Files.writeString(cfg, kubernetesHaproxyCfg());
        check(cfg);
    }

    /** @return {@code data."haproxy.cfg"} of the ConfigMap in {@code docker/kubernetes/load-balancer.yaml} */
    static String kubernetesHaproxyCfg() throws IOException {
        for (JsonNode doc : DockerDir.yamlDocuments(DockerDir.file("kubernetes/load-balancer.yaml"))) {
            if (doc.path("kind").asText().equals("ConfigMap") && doc.path("data").has("haproxy.cfg")) {
                return doc.path("data").path("haproxy.cfg").asText();
            }
        }
        throw new AssertionError("no ConfigMap with haproxy.cfg in docker/kubernetes/load-balancer.yaml");
    }

    private void check(Path cfg) throws Exception {
        Optional<Path> haproxy = HaproxyProcess.find();
        assumeTrue(haproxy.isPresent(), "no haproxy binary on the PATH or in /usr/sbin: `haproxy -c` of "
            + cfg + " not run (apt-get install haproxy)");
        Path out = tmp.resolve("haproxy-check.out");
        Process p = new ProcessBuilder(haproxy.get().toString(), "-c", "-f", cfg.toString())
            .redirectErrorStream(true).redirectOutput(out.toFile()).start();
        try {
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("haproxy -c finished").isTrue();
        } finally {
            p.destroyForcibly();
        }
        String output = Files.readString(out, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as("haproxy -c -f %s exit code; output:%n%s", cfg, output).isZero();
        assertThat(output).contains("Configuration file is valid");
        assertThat(output.lines().filter(l -> l.contains("[WARNING]") || l.contains("[ALERT]")))
            .as("warnings other than the unresolved backend names in:%n%s", output)
            .allMatch(l -> l.contains("[WARNING]") && l.contains("could not resolve address"));
    }
}
