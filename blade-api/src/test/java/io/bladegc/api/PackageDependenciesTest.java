package io.bladegc.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.spi.ToolProvider;
import org.junit.jupiter.api.Test;

/** The packages of blade-api as jdeps reads them from the compiled classes. */
class PackageDependenciesTest {

    @Test
    void theApiPackageDoesNotDependOnTheNodeThatImplementsIt() throws Exception {
        assertThat(dependencies().get("io.bladegc.api")).as("io.bladegc.api and api.internal imported each other")
            .containsOnly("io.bladegc.api.jmx");
    }

    @Test
    void noPackageReachesItselfThroughOthers() throws Exception {
        Map<String, Set<String>> deps = dependencies();
        for (String p : deps.keySet()) {
            assertThat(reachable(deps, p)).as("packages %s depends on, directly or not", p).doesNotContain(p);
        }
    }

    /** @return each package of blade-api and the other io.bladegc packages it uses */
    private static Map<String, Set<String>> dependencies() throws Exception {
        Path classes = Path.of(Blade.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        StringWriter out = new StringWriter();
        int status = ToolProvider.findFirst("jdeps").orElseThrow().run(new PrintWriter(out), new PrintWriter(out),
            "-verbose:package", "-filter:none", classes.toString());
        assertThat(status).as(out.toString()).isZero();
        Map<String, Set<String>> deps = new TreeMap<>();
        for (String line : out.toString().split("\\R")) {
            String[] w = line.trim().split("\\s+");
            if (w.length >= 3 && w[1].equals("->") && w[0].startsWith("io.bladegc.")) {
                Set<String> uses = deps.computeIfAbsent(w[0], k -> new TreeSet<>());
                if (w[2].startsWith("io.bladegc.") && !w[2].equals(w[0])) {
                    uses.add(w[2]);
                }
            }
        }
        assertThat(deps).containsKeys("io.bladegc.api", "io.bladegc.api.internal");
        return deps;
    }

    private static Set<String> reachable(Map<String, Set<String>> deps, String from) {
        Set<String> seen = new HashSet<>();
        ArrayDeque<String> next = new ArrayDeque<>(deps.getOrDefault(from, Set.of()));
        while (!next.isEmpty()) {
            String p = next.pop();
            if (seen.add(p)) {
                next.addAll(deps.getOrDefault(p, Set.of()));
            }
        }
        return seen;
    }
}
