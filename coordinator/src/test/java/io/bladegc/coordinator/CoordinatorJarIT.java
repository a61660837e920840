package io.bladegc.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The built {@code blade-coordinator.jar} in a child JVM: help, bad options, start-up line, SIGTERM. */
class CoordinatorJarIT {
    private static final Pattern LISTENING = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+) ");

    private final List<Process> processes = new ArrayList<>();

    @TempDir
    Path dir;

    @AfterEach
    void stop() {
        processes.forEach(Process::destroyForcibly);
    }

    private Process launch(String... args) throws IOException {
        String jar = System.getProperty("bladegc.coordinator.jar");
        assertThat(jar).as("system property bladegc.coordinator.jar (set by the failsafe configuration)").isNotNull();
        List<String> command = new ArrayList<>(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", jar));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().remove(CoordinatorOptions.TOKEN_ENV);
        Process p = pb.start();
        processes.add(p);
        return p;
    }

    private static String all(java.io.InputStream in) throws IOException {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }

    @Test
    void helpListsTheOptions() throws Exception {
        Process p = launch("--help");
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
        assertThat(all(p.getInputStream())).startsWith("Usage: java -jar blade-coordinator.jar")
            .contains("--bind", "--port", "--token", "--k ", "--k-fraction", "--min-healthy", "--lease",
                "--member-timeout", "--config");
    }

    @Test
    void badOptionsAndAnUnprotectedPublicAddressAreRefused() throws Exception {
        Process bad = launch("--nope", "--lease", "soon");
        assertThat(bad.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(bad.exitValue()).isEqualTo(2);
        String err = all(bad.getErrorStream());
        assertThat(err).contains("unknown option '--nope'", "malformed value for 'lease': 'soon'", "see --help");

        Process open = launch("--bind", "0.0.0.0", "--port", "0");
        assertThat(open.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(open.exitValue()).isEqualTo(2);
        assertThat(all(open.getErrorStream())).contains("refusing to listen on 0.0.0.0", "--token");
    }

    @Test
    void startsWithOneSummaryLineAndStopsGracefullyOnSigterm() throws Exception {
        Path config = dir.resolve("coordinator.properties");
        Files.writeString(config, "k=2\nlease=15s\nport=7\n");
        Process p = launch("--config", config.toString(), "--port", "0");
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<String> firstLine = CompletableFuture.supplyAsync(() -> {
            try {
                return out.readLine();
            } catch (IOException e) {
                return "unreadable: " + e;
            }
        });
        String summary = firstLine.get(30, TimeUnit.SECONDS);
        assertThat(summary).startsWith("blade-coordinator 0.1.0-SNAPSHOT listening on http://127.0.0.1:")
            .contains("K=2", "lease=15000 ms", "token not set", "load balancer: ");
        Matcher m = LISTENING.matcher(summary);
        assertThat(m.find()).isTrue();
        URI base = URI.create("http://127.0.0.1:" + m.group(1));

        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        assertThat(http.send(HttpRequest.newBuilder(base.resolve("/health")).build(),
            HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
        for (String n : List.of("a", "b", "c")) {
            http.send(HttpRequest.newBuilder(base.resolve("/v1/nodes/" + n + "/join"))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        }
        for (String n : List.of("a", "b")) { // K=2 from the file: both at once
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(base.resolve("/v1/nodes/" + n + "/acquire"))
                .POST(HttpRequest.BodyPublishers.ofString("{\"gcId\":1,\"leadMillis\":10}")).build(),
                HttpResponse.BodyHandlers.ofString());
            assertThat(r.body()).contains("\"status\":\"GRANTED\"");
        }
        CompletableFuture<HttpResponse<String>> waiting = http.sendAsync(
            HttpRequest.newBuilder(base.resolve("/v1/nodes/c/acquire")).timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString("{\"gcId\":1,\"leadMillis\":10,\"waitMillis\":20000}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        Thread.sleep(500);
        assertThat(waiting).isNotDone();

        p.destroy(); // SIGTERM
        assertThat(p.waitFor(15, TimeUnit.SECONDS)).as("exited after SIGTERM").isTrue();
        assertThat(p.exitValue()).isIn(0, 143);
        HttpResponse<String> answered = waiting.get(5, TimeUnit.SECONDS);
        assertThat(answered.statusCode()).isEqualTo(503);
        assertThat(answered.body()).contains("shutting down");
    }
}
