package io.bladegc.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class FreePortsTest {
    @Test
    void portsTakenTogetherAreDistinctAndBindable() throws Exception {
        int[] ports = FreePorts.take(5);

        assertThat(Arrays.stream(ports).distinct().count()).isEqualTo(5);
        for (int port : ports) {
            assertThat(port).isPositive();
            try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                assertThat(s.getLocalPort()).isEqualTo(port);
            }
        }
    }
}
