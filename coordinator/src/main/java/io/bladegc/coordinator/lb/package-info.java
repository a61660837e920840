/**
 * Load-balancer adapters: through a {@link io.bladegc.coordinator.lb.LoadBalancer} ({@code drain}, {@code ready};
 * failures are {@link io.bladegc.coordinator.lb.LoadBalancerException}) the coordinator takes a node out of rotation
 * while it collects. {@link io.bladegc.coordinator.lb.HaproxyRuntimeApi} drives HAProxy's runtime API (endpoint:
 * {@link io.bladegc.coordinator.lb.RuntimeApiEndpoint}); with {@link io.bladegc.coordinator.lb.NoLoadBalancer} no
 * balancer is told anything. Implementations are thread-safe, and calls for one node take effect in the order they
 * were made.
 */
package io.bladegc.coordinator.lb;
