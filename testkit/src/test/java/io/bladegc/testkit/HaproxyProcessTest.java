package io.bladegc.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HaproxyProcessTest {
    @TempDir
    Path dir;

    @Test
    void startsWithItsSocketAnswersTheRuntimeApiAndStopsClean() throws Exception {
        Optional<Path> binary = HaproxyProcess.find();
        assumeTrue(binary.isPresent(), "no haproxy on the PATH or in /usr/sbin");
        int port = FreePorts.one();
        HaproxyProcess haproxy = HaproxyProcess.start(binary.get(), dir, socket -> String.join("\n",
            "global",
            "  stats socket " + socket + " mode 600 level admin",
            "defaults",
            "  mode http",
            "  timeout connect 1s",
            "  timeout client 1s",
            "  timeout server 1s",
            "frontend fe",
            "  bind 127.0.0.1:" + port,
            ""));
        Path socket = haproxy.adminSocket();
        try {
            assertThat(Files.readString(dir.resolve("haproxy.cfg"))).contains("stats socket " + socket);
            assertThat(haproxy.adminCommand("show info")).contains("Name: HAProxy");
        } finally {
            haproxy.close();
        }

        assertThat(haproxy.process().isAlive()).isFalse();
        assertThat(socket.getParent()).doesNotExist();
    }
}
