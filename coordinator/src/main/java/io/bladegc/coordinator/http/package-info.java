/**
 * The coordinator's HTTP/1.1 + JSON protocol: routes under {@code /v1/} ({@link io.bladegc.coordinator.http.Route}),
 * request bodies ({@link io.bladegc.coordinator.http.RequestBodies}), JSON answers
 * ({@link io.bladegc.coordinator.http.Json}, {@link io.bladegc.coordinator.http.Responses}), the shared-secret token
 * ({@link io.bladegc.coordinator.http.BearerToken}), and the small pipeline handlers that keep hostile clients out:
 * body limit ({@link io.bladegc.coordinator.http.BodyLimit}), malformed and smuggled requests
 * ({@link io.bladegc.coordinator.http.MalformedRequestHandler}), slow clients
 * ({@link io.bladegc.coordinator.http.RequestDeadlineHandler}) and pipelined requests
 * ({@link io.bladegc.coordinator.http.PipelinedRequests}). The wire protocol is documented in
 * {@code coordinator/API.md}.
 */
package io.bladegc.coordinator.http;
