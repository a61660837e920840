package io.bladegc.coordinator.http;

/**
 * An error answer that ends the connection, passed down the pipeline in the place of the request it answers (a
 * request the decoder could not frame, one too large, one too slow, one too many). {@link PipelinedRequests} sends it
 * after the answers to every request read before it, then closes the connection; nothing read after it is executed.
 *
 * @param problem the status, code and message of the answer
 */
public record FinalAnswer(ApiException problem) {
}
