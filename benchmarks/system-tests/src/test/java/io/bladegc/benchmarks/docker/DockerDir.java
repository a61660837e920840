package io.bladegc.benchmarks.docker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The repository's {@code docker/} folder as the tests read it: paths, and its YAML and JSON files parsed with
 * Jackson. The repository root comes from the system property {@code bladegc.repository.root} (set in
 * {@code benchmarks/pom.xml} for surefire and failsafe). Stateless.
 */
final class DockerDir {
    private static final ObjectMapper YAML = new YAMLMapper();
    private static final ObjectMapper JSON = new JsonMapper();

    private DockerDir() {
    }

    /** @return the repository root */
    static Path root() {
        String root = System.getProperty("bladegc.repository.root");
        if (root == null || root.isBlank()) {
            throw new IllegalStateException("system property bladegc.repository.root is not set"
                + " (benchmarks/system-tests/pom.xml sets it for surefire and failsafe)");
        }
        return Path.of(root).toAbsolutePath().normalize();
    }

    /** @return {@code docker/<relative>} under the repository root */
    static Path file(String relative) {
        return root().resolve("docker").resolve(relative);
    }

    /** @return the one YAML document in {@code file} */
    static JsonNode yaml(Path file) throws IOException {
        return YAML.readTree(file.toFile());
    }

    /** @return every YAML document in {@code file} ({@code ---} separated), empty ones left out */
    static List<JsonNode> yamlDocuments(Path file) throws IOException {
        List<JsonNode> out = new ArrayList<>();
        try (var parser = new YAMLFactory().createParser(file.toFile())) {
            for (var it = YAML.readValues(parser, JsonNode.class); it.hasNext(); ) {
                JsonNode doc = it.next();
                if (doc != null && !doc.isNull() && !doc.isMissingNode()) {
                    out.add(doc);
                }
            }
        }
        return out;
    }

    /** @return {@code text} parsed as JSON */
    static JsonNode json(String text) throws IOException {
        return JSON.readTree(text);
    }

    /** @return {@code file} parsed as JSON */
    static JsonNode json(Path file) throws IOException {
        return json(Files.readString(file));
    }

    /** @return the strings of a YAML or JSON array (a missing node gives none) */
    static List<String> strings(JsonNode array) {
        List<String> out = new ArrayList<>();
        array.forEach(n -> out.add(n.asText()));
        return out;
    }
}
