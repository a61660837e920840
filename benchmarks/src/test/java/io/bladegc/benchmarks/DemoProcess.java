package io.bladegc.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The demo server in a child JVM, for integration tests: started with the given JVM flags and demo arguments, found
 * by its {@code LISTENING <port>} line, stopped by pid (SIGTERM, then SIGKILL) by {@link #close()}.
 */
final class DemoProcess implements AutoCloseable {
    private final Process process;
    private final int port;
    private final Path log;

    private DemoProcess(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    static String requiredProperty(String name) {
        String v = System.getProperty(name);
        if (v == null || v.isBlank()) {
            throw new IllegalStateException("system property " + name + " is not set; run through Maven (failsafe)");
        }
        return v;
    }

    static DemoProcess start(String name, List<String> jvmFlags, List<String> demoArgs) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmFlags);
        cmd.add("-cp");
        cmd.add(requiredProperty("blade.benchmarks.classpath"));
        cmd.add("io.bladegc.benchmarks.demo.DemoServer");
        cmd.addAll(demoArgs);
        Path log = Path.of("target", "demo-" + name + ".log");
        Files.createDirectories(log.getParent());
        Process p = new ProcessBuilder(cmd).redirectError(log.toFile()).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String line = CompletableFuture.supplyAsync(() -> {
                try {
                    String l;
                    while ((l = out.readLine()) != null) {
                        if (l.startsWith("LISTENING ")) {
                            return l;
                        }
                    }
                    return null;
                } catch (IOException e) {
                    return null;
                }
            }).get(60, TimeUnit.SECONDS);
            if (line == null) {
                throw new IllegalStateException("demo exited before listening; see " + log.toAbsolutePath() + ":\n"
                    + Files.readString(log));
            }
            return new DemoProcess(p, Integer.parseInt(line.substring("LISTENING ".length()).trim()), log);
        } catch (Exception e) {
            p.destroyForcibly();
            throw e;
        }
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    String stderr() throws IOException {
        return Files.readString(log);
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
