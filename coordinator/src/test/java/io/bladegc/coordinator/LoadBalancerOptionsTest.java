package io.bladegc.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bladegc.coordinator.lb.HaproxyRuntimeApi;
import io.bladegc.coordinator.lb.NoLoadBalancer;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LoadBalancerOptionsTest {

    private static CoordinatorOptions.Parsed parse(String... args) {
        CoordinatorOptions.Parsed p = CoordinatorOptions.parse(args, Map.of());
        assertThat(p.errors()).isEmpty();
        return p;
    }

    @Test
    void withoutHaproxyTheCoordinatorRunsInGenericMode() {
        assertThat(CoordinatorMain.loadBalancer(parse())).isInstanceOf(NoLoadBalancer.class);
    }

    @Test
    void haproxyWithItsServerMapping() {
        var lb = CoordinatorMain.loadBalancer(parse("--haproxy", "127.0.0.1:9999", "--haproxy-servers",
            "n1=app/s1, n2=app/s2", "--haproxy-drain", "maint"));
        assertThat(lb).isInstanceOf(HaproxyRuntimeApi.class);
        assertThat(((HaproxyRuntimeApi) lb).drainState()).isEqualTo(HaproxyRuntimeApi.AdminState.MAINT);
        assertThat(lb.describe()).contains("127.0.0.1:9999");
    }

    @Test
    void incompleteOrMalformedSettingsNameTheKey() {
        assertThatThrownBy(() -> CoordinatorMain.loadBalancer(parse("--haproxy", "/tmp/admin.sock")))
            .hasMessageContaining("--haproxy-servers");
        assertThatThrownBy(() -> CoordinatorMain.loadBalancer(parse("--haproxy-servers", "n1=app/s1")))
            .hasMessageContaining("--haproxy");
        assertThatThrownBy(() -> CoordinatorMain.loadBalancer(parse("--haproxy", "/tmp/a.sock",
            "--haproxy-servers", "n1")))
            .hasMessageContaining("'n1' is not node=backend/server");
        assertThatThrownBy(() -> CoordinatorMain.loadBalancer(parse("--haproxy", "/tmp/a.sock",
            "--haproxy-servers", "n1=app/s1", "--haproxy-drain", "off")))
            .hasMessageContaining("drain or maint");
        assertThatThrownBy(() -> CoordinatorMain.loadBalancer(parse("--haproxy", "/tmp/a.sock",
            "--haproxy-servers", "n1=app/s 1")))
            .isInstanceOf(IllegalArgumentException.class);
    }
}
