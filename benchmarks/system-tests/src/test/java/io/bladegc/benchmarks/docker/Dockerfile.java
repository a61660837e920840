package io.bladegc.benchmarks.docker;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The instructions of a Dockerfile the tests care about: {@code COPY} (sources relative to the build context, one
 * destination), {@code ENV} ({@code KEY=value} pairs, values optionally in double quotes) and the exec forms of
 * {@code ENTRYPOINT} and {@code CMD}. Lines continued with {@code \} are joined; comments are skipped. Immutable.
 *
 * @param copies     every {@code COPY}, in order
 * @param env        every {@code ENV} variable
 * @param entrypoint the last {@code ENTRYPOINT} (exec form), or empty
 * @param cmd        the last {@code CMD} (exec form), or empty
 */
record Dockerfile(List<Copy> copies, Map<String, String> env, List<String> entrypoint, List<String> cmd) {
    private static final Pattern ENV_PAIR = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)=(\"([^\"]*)\"|(\\S+))");

    /**
     * One {@code COPY}.
     *
     * @param sources     paths in the build context
     * @param destination the path in the image ({@code /} at the end: a directory)
     */
    record Copy(List<String> sources, String destination) {
    }

    /** Reads and parses {@code file}; an instruction this parser does not understand is an error naming it. */
    static Dockerfile read(Path file) throws IOException {
        List<Copy> copies = new ArrayList<>();
        Map<String, String> env = new LinkedHashMap<>();
        List<String> entrypoint = List.of();
        List<String> cmd = List.of();
        for (String line : instructions(Files.readAllLines(file))) {
            String[] parts = line.split("\\s+", 2);
            String keyword = parts[0].toUpperCase(Locale.ROOT);
            String rest = parts.length > 1 ? parts[1].strip() : "";
            switch (keyword) {
                case "COPY" -> {
                    List<String> tokens = new ArrayList<>();
                    for (String t : rest.split("\\s+")) {
                        if (!t.startsWith("--")) {
                            tokens.add(t);
                        }
                    }
                    if (tokens.size() < 2) {
                        throw new IllegalArgumentException(file + ": COPY needs a source and a destination: " + line);
                    }
                    copies.add(new Copy(List.copyOf(tokens.subList(0, tokens.size() - 1)),
                        tokens.get(tokens.size() - 1)));
                }
                case "ENV" -> {
                    Matcher m = ENV_PAIR.matcher(rest);
                    boolean any = false;
                    while (m.find()) {
                        env.put(m.group(1), m.group(3) != null ? m.group(3) : m.group(4));
                        any = true;
                    }
                    if (!any) {
                        throw new IllegalArgumentException(file + ": ENV without KEY=value: " + line);
                    }
                }
                case "ENTRYPOINT" -> entrypoint = execForm(file, line, rest);
                case "CMD" -> cmd = execForm(file, line, rest);
                default -> {
                    // FROM, USER, EXPOSE, HEALTHCHECK, ...: nothing the tests compare
                }
            }
        }
        return new Dockerfile(List.copyOf(copies), Map.copyOf(env), entrypoint, cmd);
    }

    /** @return the image's command line: entrypoint, then cmd */
    List<String> command() {
        List<String> out = new ArrayList<>(entrypoint);
        out.addAll(cmd);
        return out;
    }

    /**
     * @return whether {@code imagePath} is something a {@code COPY} put in the image: a destination file, or a path
     *     below a destination directory
     */
    boolean provides(String imagePath) {
        for (Copy c : copies) {
            String d = c.destination();
            if (d.equals(imagePath) || d.endsWith("/") && imagePath.startsWith(d)) {
                return true;
            }
        }
        return false;
    }

    private static List<String> execForm(Path file, String line, String rest) throws IOException {
        if (!rest.startsWith("[")) {
            throw new IllegalArgumentException(file + ": only the exec form (a JSON array) is used here: " + line);
        }
        JsonNode array = DockerDir.json(rest);
        return List.copyOf(DockerDir.strings(array));
    }

    private static List<String> instructions(List<String> lines) {
        List<String> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String raw : lines) {
            String line = raw.strip();
            if (line.startsWith("#") || line.isEmpty() && current.length() == 0) {
                continue;
            }
            boolean continued = line.endsWith("\\");
            current.append(continued ? line.substring(0, line.length() - 1) : line).append(' ');
            if (!continued) {
                out.add(current.toString().strip());
                current.setLength(0);
            }
        }
        if (current.length() > 0) {
            out.add(current.toString().strip());
        }
        return out;
    }
}
