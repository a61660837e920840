package io.bladegc.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bladegc.commandline.ToolCommandLine;
import io.bladegc.commandline.UsageException;
import io.bladegc.coordinator.lb.HaproxyRuntimeApi;
import io.bladegc.coordinator.lb.LoadBalancer;
import io.bladegc.coordinator.lb.NoLoadBalancer;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LoadBalancerOptionsTest {

    private static LoadBalancer loadBalancer(String... args) {
        return ToolCommandLine.options(new CoordinatorCommandLine(Map.of()), args).loadBalancer();
    }

    @Test
    void withoutHaproxyTheCoordinatorRunsInGenericMode() {
        assertThat(loadBalancer()).isInstanceOf(NoLoadBalancer.class);
        assertThat(loadBalancer("--haproxy", "none")).isInstanceOf(NoLoadBalancer.class);
    }

    @Test
    void haproxyWithItsServerMapping() {
        var lb = loadBalancer("--haproxy", "127.0.0.1:9999", "--haproxy-servers", "n1=app/s1, n2=app/s2",
            "--haproxy-drain", "maint");
        assertThat(lb).isInstanceOf(HaproxyRuntimeApi.class);
        assertThat(((HaproxyRuntimeApi) lb).drainState()).isEqualTo(HaproxyRuntimeApi.AdminState.MAINT);
        assertThat(lb.describe()).contains("127.0.0.1:9999");
    }

    @Test
    void incompleteOrMalformedSettingsAreUsageErrorsNamingTheOption() {
        assertThatThrownBy(() -> loadBalancer("--haproxy", "/tmp/admin.sock"))
            .isInstanceOf(UsageException.class).hasMessageContaining("--haproxy-servers");
        assertThatThrownBy(() -> loadBalancer("--haproxy-servers", "n1=app/s1"))
            .isInstanceOf(UsageException.class).hasMessageContaining("--haproxy");
        assertThatThrownBy(() -> loadBalancer("--haproxy", "/tmp/a.sock", "--haproxy-servers", "n1"))
            .hasMessageContaining("'n1' is not node=backend/server");
        assertThatThrownBy(() -> loadBalancer("--haproxy", "/tmp/a.sock", "--haproxy-servers", "n1=app/s1",
            "--haproxy-drain", "off"))
            .hasMessageContaining("drain or maint");
        assertThatThrownBy(() -> loadBalancer("--haproxy", "/tmp/a.sock", "--haproxy-servers", "n1=app/s 1"))
            .isInstanceOf(UsageException.class);
    }
}
