/**
 * The {@code grpc-cluster} scenario: three gRPC backends, no balancer, open-loop unary calls from the suite's JVM
 * with the client balancing and retrying, and its table.
 */
package io.bladegc.benchmarks.suite.grpc;
