package io.bladegc.coordinator;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Supplier;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The coordinator's {@code --config} file: Java properties with the same keys as the options, without the dashes
 * ({@code k=2}, {@code lease=15s}); values are trimmed. Read once, when picocli first asks it for an option's value
 * (after the flags are read, so {@code --config} is known). An unreadable file or an unknown key is a problem,
 * reported by {@link #problems()}, not an exception. Not thread-safe: one per parse.
 */
final class CoordinatorConfigFile {
    private final CommandSpec spec;
    private final Supplier<String> path;
    private final List<String> problems = new ArrayList<>();
    private Map<String, String> values;

    /**
     * @param spec the coordinator's options: the keys the file may hold
     * @param path the file's path once the flags are read, {@code null} for none
     */
    CoordinatorConfigFile(CommandSpec spec, Supplier<String> path) {
        this.spec = spec;
        this.path = path;
    }

    /** @return the file's value for {@code arg}, or {@code null} when the file does not set it or there is none */
    String value(ArgSpec arg) {
        if (!(arg instanceof OptionSpec option)) {
            return null;
        }
        return values().get(option.longestName().substring(2));
    }

    /** @return what is wrong with the file, one line each; empty when it is fine or there is none */
    List<String> problems() {
        values();
        return List.copyOf(problems);
    }

    private Map<String, String> values() {
        if (values == null) {
            String file = path.get();
            values = file == null ? Map.of() : read(Path.of(file));
        }
        return values;
    }

    private Map<String, String> read(Path file) {
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            p.load(in);
        } catch (IOException | IllegalArgumentException e) {
            problems.add("cannot read --config " + file + ": " + e.getMessage());
            return Map.of();
        }
        List<String> keys = new ArrayList<>();
        for (OptionSpec option : spec.options()) {
            String key = option.longestName().substring(2);
            if (!key.equals("config") && !key.equals("help")) {
                keys.add(key);
            }
        }
        Map<String, String> read = new LinkedHashMap<>();
        for (String name : p.stringPropertyNames()) {
            if (keys.contains(name)) {
                read.put(name, p.getProperty(name).trim());
            } else {
                problems.add("unknown key '" + name + "' in " + file + "; valid: " + String.join(", ", keys));
            }
        }
        return read;
    }
}
