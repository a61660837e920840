package io.bladegc.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NginxProcessTest {
    @TempDir
    Path dir;

    @Test
    void servesLogsUpstreamsInItsDirectoryAndStopsWithItsWorker() throws Exception {
        Optional<Path> binary = NginxProcess.find();
        assumeTrue(binary.isPresent(), "no nginx on the PATH or in /usr/sbin: apt-get install -y nginx");
        int[] ports = FreePorts.take(2);
        NginxProcess nginx = NginxProcess.start(binary.get(), dir, ports[0], String.join("\n",
            "    upstream backend {",
            "        server 127.0.0.1:" + ports[1] + ";",
            "    }",
            "    server {",
            "        listen 127.0.0.1:" + ports[0] + ";",
            "        location / { return 200 \"ok\\n\"; }",
            "        location /proxied { proxy_pass http://backend; }",
            "    }"));
        List<ProcessHandle> workers;
        try {
            HttpClient http = HttpClient.newHttpClient();
            assertThat(http.send(HttpRequest.newBuilder(nginx.uri("/")).build(),
                HttpResponse.BodyHandlers.ofString()).body()).isEqualTo("ok\n");
            // it answered, so the master has forked its worker
            workers = ProcessHandle.of(nginx.process().pid()).orElseThrow().children().toList();
            assertThat(workers).as("nginx's worker").hasSize(1);
            // nothing listens on the upstream's port: a refused connection, 502
            assertThat(http.send(HttpRequest.newBuilder(nginx.uri("/proxied")).build(),
                HttpResponse.BodyHandlers.discarding()).statusCode()).isEqualTo(502);

            // nginx writes a request's line in its log phase, after the response has gone out: the client can read
            // the file before the second line is there (seen once in a helper's run)
            List<String> access = Files.readAllLines(nginx.accessLog());
            for (long deadline = System.nanoTime() + 10_000_000_000L; access.size() < 2
                && System.nanoTime() < deadline; access = Files.readAllLines(nginx.accessLog())) {
                Thread.sleep(10);
            }
            assertThat(access).hasSize(2);
            String[] served = access.get(0).split("\t");
            assertThat(served).hasSize(5).startsWith("200", "-", "-").endsWith("GET / HTTP/1.1");
            assertThat(Double.parseDouble(served[3])).as("request time, seconds").isBetween(0.0, 10.0);
            assertThat(access.get(1).split("\t")).startsWith("502", "502", "127.0.0.1:" + ports[1]);
            assertThat(dir.resolve("temp/proxy")).isDirectory();
        } finally {
            nginx.close();
        }

        assertThat(nginx.process().isAlive()).isFalse();
        assertThat(workers).noneMatch(ProcessHandle::isAlive);
        assertThat(dir.resolve("nginx.pid")).doesNotExist();
        assertThat(Files.readString(nginx.log())).contains("exit");
    }
}
