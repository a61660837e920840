/**
 * Blade for gRPC servers (grpc-java): {@link io.bladegc.grpc.BladeServerInterceptor} puts each call through the
 * node's gate (in flight until it completes or is cancelled; closed {@code UNAVAILABLE} with
 * {@code grpc-retry-pushback-ms} while the node drains and collects), and {@link io.bladegc.grpc.BladeHealth}
 * publishes the same readiness over the standard health service. Both work with the Blade agent (they join its node)
 * and without it (the interceptor starts a node, GCI mode). grpc-java is the application's: this module declares it
 * {@code provided}, {@code grpc-services} only for {@code BladeHealth}. See {@code docs/grpc.md}.
 */
package io.bladegc.grpc;
