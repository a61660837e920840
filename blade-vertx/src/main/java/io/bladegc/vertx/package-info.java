/**
 * Blade for Vert.x Web: {@link io.bladegc.vertx.BladeRouteHandler} joins or starts the node (with the Blade agent it
 * joins its node; without, it starts one, GCI mode) and, as the first handler of a {@code Router}, puts every request
 * through the node's gate. A request is in flight from the handler until its response has ended (a chunked response
 * included) or its connection closed; while the node drains and collects, new requests are answered {@code 503} with
 * {@code Retry-After} and {@code Blade-Retry-After-Ms} before the application's handlers see them. Vert.x 4 is the
 * application's: this module declares {@code vertx-web} {@code provided}. See {@code docs/reactive.md}.
 */
package io.bladegc.vertx;
