package io.bladegc.benchmarks.docker;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@code docker/grafana/blade-dashboard.json} parses, has unique panel ids, and every panel and query reads from
 * the datasource variable {@code DS_PROMETHEUS} (so the dashboard works provisioned and imported alike). That every
 * metric it queries exists is {@link GrafanaDashboardScrapeIT}'s job.
 */
class GrafanaDashboardTest {
    static final String DATASOURCE_UID = "${DS_PROMETHEUS}";

    @Test
    void panelsQueryPrometheusThroughTheDatasourceVariable() throws IOException {
        JsonNode dashboard = DockerDir.json(DockerDir.file("grafana/blade-dashboard.json"));
        assertThat(dashboard.path("uid").asText()).isEqualTo("blade");
        JsonNode variable = dashboard.path("templating").path("list").path(0);
        assertThat(variable.path("name").asText()).isEqualTo("DS_PROMETHEUS");
        assertThat(variable.path("type").asText()).isEqualTo("datasource");
        assertThat(variable.path("query").asText()).isEqualTo("prometheus");

        Set<Integer> ids = new HashSet<>();
        int queries = 0;
        for (JsonNode panel : dashboard.path("panels")) {
            assertThat(ids.add(panel.path("id").asInt())).as("panel id %s unique", panel.path("id")).isTrue();
            if (panel.path("type").asText().equals("row")) {
                continue;
            }
            assertThat(panel.path("datasource").path("uid").asText()).as("panel %s", panel.path("title"))
                .isEqualTo(DATASOURCE_UID);
            assertThat(panel.path("targets").size()).as("queries of %s", panel.path("title")).isPositive();
            for (JsonNode target : panel.path("targets")) {
                assertThat(target.path("datasource").path("uid").asText()).isEqualTo(DATASOURCE_UID);
                assertThat(PromQl.metricNames(target.path("expr").asText()))
                    .as("metrics of %s", target.path("expr")).isNotEmpty();
                queries++;
            }
        }
        assertThat(queries).isGreaterThan(10);
    }

    /** @return every metric name the dashboard's queries read, each with the first query that reads it */
    static Map<String, String> metricNames() throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        for (JsonNode panel : DockerDir.json(DockerDir.file("grafana/blade-dashboard.json")).path("panels")) {
            for (JsonNode target : panel.path("targets")) {
                String expr = target.path("expr").asText();
                Set<String> names = new LinkedHashSet<>(PromQl.metricNames(expr));
                names.forEach(n -> out.putIfAbsent(n, panel.path("title").asText() + ": " + expr));
            }
        }
        return out;
    }
}
