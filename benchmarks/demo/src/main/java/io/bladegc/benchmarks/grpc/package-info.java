/**
 * The gRPC demo backend: {@link io.bladegc.benchmarks.grpc.GrpcBackend} (grpc-java's {@code SimpleService} with
 * garbage per unary call behind Blade's interceptor, and an HTTP {@code /stats} beside it) and
 * {@link io.bladegc.benchmarks.grpc.RoundRobinChannel}, the client channel over fixed backends with docs/grpc.md's
 * retry policy. The suite's {@code grpc-cluster} scenario and {@code GrpcClusterIT} run them.
 */
package io.bladegc.benchmarks.grpc;
