package io.bladegc.benchmarks;

import io.bladegc.benchmarks.cluster.ClusterSpec;
import io.bladegc.benchmarks.cluster.DemoServerProcess;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The demo server in a child JVM, for integration tests: started with the given JVM flags and demo arguments on the
 * classpath failsafe passes ({@code bladegc.benchmarks.classpath}), found by its {@code LISTENING <port>} line (within
 * 60 s), stopped by pid (SIGTERM, then SIGKILL) by {@link #close()}; its stderr in {@code target/demo-<name>.log}, its
 * stdout in {@code target/demo-<name>.out}. The tests' face of {@link DemoServerProcess}.
 */
final class DemoProcess implements AutoCloseable {
    private final DemoServerProcess server;

    private DemoProcess(DemoServerProcess server) {
        this.server = server;
    }

    static String requiredProperty(String name) {
        String v = System.getProperty(name);
        if (v == null || v.isBlank()) {
            throw new IllegalStateException("system property " + name + " is not set; run through Maven (failsafe)");
        }
        return v;
    }

    static DemoProcess start(String name, List<String> jvmFlags, List<String> demoArgs) throws Exception {
        return new DemoProcess(DemoServerProcess.start(name, ClusterSpec.currentJava(),
            requiredProperty("bladegc.benchmarks.classpath"), jvmFlags, demoArgs,
            Path.of("target", "demo-" + name + ".out"), Path.of("target", "demo-" + name + ".log")));
    }

    URI uri(String path) {
        return server.uri(path);
    }

    String stderr() throws IOException {
        return Files.readString(server.process().stderr());
    }

    @Override
    public void close() throws InterruptedException {
        server.close();
    }
}
