package io.bladegc.coordinator.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RouteTest {

    @Test
    void routesNodeCalls() throws ApiException {
        Route r = Route.match(HttpMethod.POST, "/v1/nodes/web-1.prod_a/acquire?x=1");
        assertThat(r.endpoint()).isEqualTo(Route.Endpoint.ACQUIRE);
        assertThat(r.validNode()).isEqualTo("web-1.prod_a");
        for (Route.Endpoint e : Route.Endpoint.values()) {
            assertThat(e.mutating()).isEqualTo(e.method() == HttpMethod.POST);
            assertThat(e.allows(HttpMethod.HEAD)).isEqualTo(!e.mutating());
        }
        assertThat(Route.match(HttpMethod.HEAD, "/health").endpoint()).isEqualTo(Route.Endpoint.HEALTH);
        assertThat(Route.match(HttpMethod.GET, "/v1/cluster").endpoint()).isEqualTo(Route.Endpoint.CLUSTER);
        assertThat(Route.match(HttpMethod.GET, "/health").endpoint()).isEqualTo(Route.Endpoint.HEALTH);
        assertThat(Route.match(HttpMethod.GET, "/metrics").endpoint()).isEqualTo(Route.Endpoint.METRICS);
    }

    @ParameterizedTest
    @ValueSource(strings = {"/", "/v1", "/v1/nodes/a", "/v1/nodes/a/", "/v1/nodes/a/fly", "/v1/nodes/a/join/x",
        "/v2/cluster", "*", "http://evil/v1/cluster", "/v1/cluster/"})
    void unknownPathsAre404(String uri) {
        assertThatThrownBy(() -> Route.match(HttpMethod.POST, uri)).isInstanceOfSatisfying(ApiException.class,
            e -> assertThat(e.status()).isEqualTo(HttpResponseStatus.NOT_FOUND));
    }

    @Test
    void wrongMethodsAre405WithAllow() {
        assertThatThrownBy(() -> Route.match(HttpMethod.GET, "/v1/nodes/a/join"))
            .isInstanceOfSatisfying(ApiException.class, e -> {
                assertThat(e.status()).isEqualTo(HttpResponseStatus.METHOD_NOT_ALLOWED);
                assertThat(e.headers()).containsEntry("allow", "POST");
            });
        assertThatThrownBy(() -> Route.match(HttpMethod.DELETE, "/v1/cluster"))
            .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.headers()).containsEntry("allow", "GET, HEAD"));
        assertThatThrownBy(() -> Route.match(HttpMethod.valueOf("BREW"), "/health"))
            .isInstanceOf(ApiException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"a%2Fb", "a b", "ä", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "a:b", ""})
    void badNodeIdsAre400(String id) throws ApiException {
        Route r = Route.match(HttpMethod.POST, "/v1/nodes/" + id + "/join");
        assertThatThrownBy(r::validNode).isInstanceOfSatisfying(ApiException.class, e -> {
            assertThat(e.status()).isEqualTo(HttpResponseStatus.BAD_REQUEST);
            assertThat(e.getMessage()).startsWith("invalid node id");
        });
    }

    @Test
    void echoedInputIsShortAndPrintable() {
        assertThat(Route.printable("a\r\nb")).isEqualTo("a??b");
        assertThat(Route.printable("x".repeat(500))).hasSize(83);
    }
}
