package io.bladegc.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class CoordinatorReplicaTest {
    private static final String PEERS = "c1=127.0.0.1:9001,c2=127.0.0.1:9002,c3=127.0.0.1:9003";

    @Test
    void withoutPeersTheCoordinatorIsStandalone() {
        assertThat(CoordinatorReplica.parse(null, null, "d")).isNull();
        assertThat(CoordinatorReplica.parse("none", null, "d")).isNull();
    }

    @Test
    void peersIdAndDirectory() {
        CoordinatorReplica.Settings s = CoordinatorReplica.parse(PEERS, "c2", "/var/lib/blade");
        assertThat(s.self().toString()).isEqualTo("c2");
        assertThat(s.group().getPeers()).hasSize(3);
        assertThat(s.group().getGroupId()).isEqualTo(CoordinatorReplica.GROUP);
        assertThat(s.dir()).isEqualTo(Path.of("/var/lib/blade", "c2"));
        assertThat(CoordinatorReplica.summary(s)).contains("replica c2 of c1=127.0.0.1:9001,c2=");
    }

    @Test
    void badReplicationOptionsNameTheProblem() {
        assertThatThrownBy(() -> CoordinatorReplica.parse(null, "c1", "d")).hasMessageContaining("--id needs --peers");
        assertThatThrownBy(() -> CoordinatorReplica.parse(PEERS, null, "d"))
            .hasMessageContaining("--peers needs --id");
        assertThatThrownBy(() -> CoordinatorReplica.parse(PEERS, "c9", "d"))
            .hasMessageContaining("--id c9 is not one of --peers");
        assertThatThrownBy(() -> CoordinatorReplica.parse("c1=127.0.0.1", "c1", "d"))
            .hasMessageContaining("'c1=127.0.0.1' is not id=host:port");
        assertThatThrownBy(() -> CoordinatorReplica.parse("c1=h:70000", "c1", "d"))
            .hasMessageContaining("no valid port");
        assertThatThrownBy(() -> CoordinatorReplica.parse("c1=h:1,c1=h:2", "c1", "d"))
            .hasMessageContaining("id 'c1' given twice");
    }
}
