package io.bladegc.coordinator.lb;

import java.util.Objects;

/**
 * Generic mode: no load-balancer adapter. The coordinator still grants slots one at a time, but it tells no load
 * balancer anything; traffic moves away from a collecting node because its readiness endpoint reports it out and its
 * gate answers new requests with 503 + {@code Retry-After}, which a load balancer configured to retry 503 on another
 * backend (nginx {@code proxy_next_upstream http_503}, Envoy retriable status codes, HAProxy {@code retry-on 503})
 * hides from clients.
 */
public final class NoLoadBalancer implements LoadBalancer {

    @Override
    public void drain(String node) {
        Objects.requireNonNull(node, "node");
    }

    @Override
    public void ready(String node) {
        Objects.requireNonNull(node, "node");
    }

    @Override
    public String describe() {
        return "no load-balancer adapter (generic mode): nodes are not taken out of rotation; a collecting node's"
                + " readiness endpoint and its 503 + Retry-After gate move traffic away, so the load balancer must"
                + " retry 503 on another backend";
    }

    @Override
    public String toString() {
        return "NoLoadBalancer";
    }
}
