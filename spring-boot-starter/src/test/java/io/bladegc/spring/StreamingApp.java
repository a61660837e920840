package io.bladegc.spring;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.web.embedded.netty.NettyReactiveWebServerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A WebFlux application on Reactor Netty with the starter's auto-configuration, for {@code BladeWebFilterIT}:
 * {@code /fast} answers {@code ok}; {@code /slow} streams one server-sent event at once and the last one when the
 * test completes {@link #release}; {@code /ticks} streams three events a millisecond apart.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(StreamingApp.Routes.class)
public class StreamingApp {
    /** The body of {@code /slow}. */
    static final String SLOW_BODY = "data:first\n\ndata:last\n\n";
    /** The body of {@code /ticks}. */
    static final String TICKS_BODY = "data:0\n\ndata:1\n\ndata:2\n\n";

    /** Completed by the test: {@code /slow} sends its last event. */
    final CompletableFuture<String> release = new CompletableFuture<>();
    /** Counted down when {@code /slow} has sent its first event. */
    final CountDownLatch slowStarted = new CountDownLatch(1);
    /** When {@code /slow} handed its last event on to be written. */
    volatile long lastEventNanos;

    /** Reactor Netty, though Tomcat is on the test class path too (for the servlet tests). */
    @Bean
    NettyReactiveWebServerFactory nettyFactory() {
        return new NettyReactiveWebServerFactory();
    }

    @RestController
    static class Routes {
        private final StreamingApp app;

        Routes(StreamingApp app) {
            this.app = app;
        }

        @GetMapping("/fast")
        Mono<String> fast() {
            return Mono.just("ok");
        }

        @GetMapping(value = "/slow", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
        Flux<String> slow() {
            return Flux.concat(Mono.just("first").doOnNext(e -> app.slowStarted.countDown()),
                Mono.fromFuture(app.release).doOnNext(e -> app.lastEventNanos = System.nanoTime()));
        }

        @GetMapping(value = "/ticks", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
        Flux<String> ticks() {
            return Flux.range(0, 3).delayElements(Duration.ofMillis(1)).map(String::valueOf);
        }
    }
}
