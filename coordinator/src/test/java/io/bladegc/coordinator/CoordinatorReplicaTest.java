package io.bladegc.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CoordinatorReplicaTest {
    private static final String PEERS = "c1=127.0.0.1:9001,c2=127.0.0.1:9002,c3=127.0.0.1:9003";

    @Test
    void withoutPeersTheCoordinatorIsStandalone() {
        assertThat(CoordinatorReplica.parse(Map.of())).isNull();
        assertThat(CoordinatorReplica.parse(Map.of("peers", "none"))).isNull();
    }

    @Test
    void peersIdAndDirectory() {
        CoordinatorReplica.Settings s = CoordinatorReplica.parse(Map.of("peers", PEERS, "id", "c2",
            "raft-dir", "/var/lib/blade"));
        assertThat(s.self().toString()).isEqualTo("c2");
        assertThat(s.group().getPeers()).hasSize(3);
        assertThat(s.group().getGroupId()).isEqualTo(CoordinatorReplica.GROUP);
        assertThat(s.dir()).isEqualTo(Path.of("/var/lib/blade", "c2"));
        assertThat(CoordinatorReplica.summary(s)).contains("replica c2 of c1=127.0.0.1:9001,c2=");
    }

    @Test
    void badReplicationOptionsNameTheProblem() {
        assertThatThrownBy(() -> CoordinatorReplica.parse(Map.of("id", "c1"))).hasMessageContaining("--id needs --peers");
        assertThatThrownBy(() -> CoordinatorReplica.parse(Map.of("peers", PEERS)))
            .hasMessageContaining("--peers needs --id");
        assertThatThrownBy(() -> CoordinatorReplica.parse(Map.of("peers", PEERS, "id", "c9")))
            .hasMessageContaining("--id c9 is not one of --peers");
        assertThatThrownBy(() -> CoordinatorReplica.parse(Map.of("peers", "c1=127.0.0.1", "id", "c1")))
            .hasMessageContaining("'c1=127.0.0.1' is not id=host:port");
        assertThatThrownBy(() -> CoordinatorReplica.parse(Map.of("peers", "c1=h:70000", "id", "c1")))
            .hasMessageContaining("no valid port");
        assertThatThrownBy(() -> CoordinatorReplica.parse(Map.of("peers", "c1=h:1,c1=h:2", "id", "c1")))
            .hasMessageContaining("id 'c1' given twice");
    }
}
