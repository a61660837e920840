package io.bladegc.testkit;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Finds the programs the harness runs (HAProxy, nginx), which Debian installs to {@code /usr/sbin}. */
final class Executables {
    private Executables() {
    }

    /**
     * @param name the program's file name, e.g. {@code haproxy}
     * @return {@code name} on the {@code PATH}, else in the sbin directories (not on a user's {@code PATH}); empty
     *     when there is none
     */
    static Optional<Path> find(String name) {
        List<String> dirs = new ArrayList<>();
        String path = System.getenv("PATH");
        if (path != null) {
            dirs.addAll(List.of(path.split(File.pathSeparator)));
        }
        dirs.addAll(List.of("/usr/sbin", "/usr/local/sbin", "/sbin"));
        for (String d : dirs) {
            if (d.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(d, name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }
}
