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
        pb.environment().remove(CoordinatorCommandLine.TOKEN_ENV);
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
            .contains("--bind", "--port", "--token", "--k=", "--k-fraction", "--min-healthy", "--lease",
                "--member-timeout", "--config");
    }

    @Test
    void badOptionsAndAnUnprotectedPublicAddressAreRefused() throws Exception {
        Process bad = launch("--nope", "--lease", "soon");
        assertThat(bad.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(bad.exitValue()).isEqualTo(2);
        String err = all(bad.getErrorStream());
        assertThat(err).contains("blade-coordinator: Unknown option: '--nope'",
            "blade-coordinator: Invalid value for option '--lease': 'soon'", "blade-coordinator: see --help");

        Process open = launch("--bind", "0.0.0.0", "--port", "0");
        assertThat(open.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(open.exitValue()).isEqualTo(2);
        assertThat(all(open.getErrorStream())).contains("refusing to listen on 0.0.0.0", "--token");
    }

    @Test
    void startsWithOneSummaryLineAndStopsGracefullyOnSigterm() throws Exception {
        Path config = dir.resolve("coordinator.properties");
        Files.writeString(config, "k=2\nlease=2s\nport=7\n");
        Process p = launch("--config", config.toString(), "--port", "0");
        String summary = firstLine(p);
        assertThat(summary).startsWith("blade-coordinator 0.1.0-SNAPSHOT listening on http://127.0.0.1:")
            .contains("K=2", "lease=2000 ms", "first grant after one lease", "token not set", "load balancer: ");
        URI base = baseOf(summary);

        assertThat(http.send(HttpRequest.newBuilder(base.resolve("/health")).build(),
            HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
        for (String n : List.of("a", "b", "c")) {
            post(base, n, "join", "");
        }
        List<CompletableFuture<HttpResponse<String>>> ab = new ArrayList<>();
        for (String n : List.of("a", "b")) { // K=2 from the file: both at once, once the start-up hold is over
            ab.add(postAsync(base, n, "acquire", "{\"gcId\":1,\"leadMillis\":10,\"waitMillis\":20000}"));
        }
        for (CompletableFuture<HttpResponse<String>> r : ab) {
            assertThat(r.get(30, TimeUnit.SECONDS).body()).contains("\"status\":\"GRANTED\"");
        }
        CompletableFuture<HttpResponse<String>> waiting =
            postAsync(base, "c", "acquire", "{\"gcId\":1,\"leadMillis\":10,\"waitMillis\":20000}");
        Thread.sleep(500);
        assertThat(waiting).isNotDone();

        p.destroy(); // SIGTERM
        assertThat(p.waitFor(15, TimeUnit.SECONDS)).as("exited after SIGTERM").isTrue();
        assertThat(p.exitValue()).isIn(0, 143);
        HttpResponse<String> answered = waiting.get(5, TimeUnit.SECONDS);
        assertThat(answered.statusCode()).isEqualTo(503);
        assertThat(answered.body()).contains("shutting down");
    }

    /**
     * Issue 3's "coordinator killed mid-grant and restarted": the restarted coordinator knows nothing of the grant,
     * so it must not grant anyone until that grant's lease has run out, its epochs must continue above the old ones,
     * and the old holder's late release must be rejected.
     */
    @Test
    void aCoordinatorKilledMidGrantAndRestartedNeverLetsTwoCollect() throws Exception {
        Process first = launch("--port", "0", "--lease", "3s");
        URI base = baseOf(firstLine(first));
        post(base, "a", "join", "");
        post(base, "b", "join", "");
        String waitForIt = "{\"gcId\":1,\"leadMillis\":10,\"waitMillis\":20000}";
        HttpResponse<String> granted = post(base, "a", "acquire", waitForIt);
        assertThat(granted.body()).contains("\"status\":\"GRANTED\"");
        long epoch = field(granted.body(), "epoch");
        long deadline = field(granted.body(), "deadline");

        first.destroyForcibly(); // SIGKILL while a holds the slot
        assertThat(first.waitFor(15, TimeUnit.SECONDS)).isTrue();
        Process second = launch("--port", "" + base.getPort(), "--lease", "3s");
        assertThat(baseOf(firstLine(second))).isEqualTo(base);
        post(base, "a", "join", ""); // what an agent does when its heartbeat is answered 404
        post(base, "b", "join", "");
        HttpResponse<String> b = post(base, "b", "acquire", waitForIt);
        long grantedAt = field(b.body(), "grantedAt");
        assertThat(b.body()).contains("\"status\":\"GRANTED\"");
        assertThat(grantedAt).as("b's grant comes only after a's old lease ran out").isGreaterThanOrEqualTo(deadline);
        assertThat(field(b.body(), "epoch")).as("epochs continue above the killed coordinator's").isGreaterThan(epoch);
        HttpResponse<String> late = post(base, "a", "release", "{\"epoch\":" + epoch + ",\"pauseMillis\":5}");
        assertThat(late.statusCode()).isEqualTo(409);
        assertThat(late.body()).contains("STALE_EPOCH");
    }

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private static String firstLine(Process p) throws Exception {
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        return CompletableFuture.supplyAsync(() -> {
            try {
                return out.readLine();
            } catch (IOException e) {
                return "unreadable: " + e;
            }
        }).get(30, TimeUnit.SECONDS);
    }

    private static URI baseOf(String summary) {
        Matcher m = LISTENING.matcher(summary);
        assertThat(m.find()).as("summary line names the address: " + summary).isTrue();
        return URI.create("http://127.0.0.1:" + m.group(1));
    }

    private static long field(String json, String name) {
        Matcher m = Pattern.compile("\"" + name + "\":(\\d+)").matcher(json);
        assertThat(m.find()).as(name + " in " + json).isTrue();
        return Long.parseLong(m.group(1));
    }

    private HttpResponse<String> post(URI base, String node, String op, String body) throws Exception {
        return postAsync(base, node, op, body).get(30, TimeUnit.SECONDS);
    }

    private CompletableFuture<HttpResponse<String>> postAsync(URI base, String node, String op, String body) {
        return http.sendAsync(HttpRequest.newBuilder(base.resolve("/v1/nodes/" + node + "/" + op))
            .header(TestKeys.HEADER, TestKeys.of(node)).timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
            HttpResponse.BodyHandlers.ofString());
    }
}
