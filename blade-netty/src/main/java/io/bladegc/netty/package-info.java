/**
 * Blade for Netty HTTP servers: {@link io.bladegc.netty.BladeHttpGate} joins or starts the node (with the Blade
 * agent it joins its node; without, it starts one, GCI mode) and makes a {@link io.bladegc.netty.BladeHttpHandler}
 * per channel, placed after the HTTP codec of an HTTP/1.1 connection or of each HTTP/2 stream. A request is in flight
 * from its {@code HttpRequest} until the write of its response's last content completes; while the node drains and
 * collects, new requests are answered {@code 503} with {@code Retry-After} and {@code Blade-Retry-After-Ms} before
 * the application's handlers see them. Netty 4.1 is the application's: this module declares {@code netty-codec-http}
 * {@code provided}. See {@code docs/netty.md}.
 */
package io.bladegc.netty;
