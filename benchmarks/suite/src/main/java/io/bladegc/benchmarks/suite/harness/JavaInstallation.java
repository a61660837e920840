package io.bladegc.benchmarks.suite.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A JDK found on this machine: its {@code java} and its version, read from the installation's {@code release} file
 * ({@code JAVA_VERSION="25.0.3"}). Immutable.
 *
 * @param java    the {@code bin/java} executable
 * @param version the full version, e.g. {@code 25.0.3}
 * @param feature the feature release, e.g. 25
 */
public record JavaInstallation(Path java, String version, int feature) {
    private static final Pattern JAVA_VERSION = Pattern.compile("(?m)^JAVA_VERSION=\"([0-9]+)([^\"]*)\"");

    /**
     * @param jvmDir a directory of JDKs, such as {@code /usr/lib/jvm}
     * @param minFeature the lowest feature release wanted
     * @return the first installation (by directory name) of at least {@code minFeature} with a {@code bin/java}
     */
    public static Optional<JavaInstallation> find(Path jvmDir, int minFeature) throws IOException {
        if (!Files.isDirectory(jvmDir)) {
            return Optional.empty();
        }
        List<Path> homes;
        try (Stream<Path> s = Files.list(jvmDir)) {
            homes = new ArrayList<>(s.sorted().toList());
        }
        for (Path home : homes) {
            Path java = home.resolve("bin").resolve("java");
            Path release = home.resolve("release");
            if (Files.isExecutable(java) && Files.isRegularFile(release)) {
                Optional<JavaInstallation> jdk = parse(java, Files.readString(release));
                if (jdk.isPresent() && jdk.get().feature() >= minFeature) {
                    return jdk;
                }
            }
        }
        return Optional.empty();
    }

    /** @return the installation described by a {@code release} file's text, empty when it names no version */
    static Optional<JavaInstallation> parse(Path java, String release) {
        Matcher m = JAVA_VERSION.matcher(release);
        if (!m.find()) {
            return Optional.empty();
        }
        return Optional.of(new JavaInstallation(java, m.group(1) + m.group(2), Integer.parseInt(m.group(1))));
    }
}
