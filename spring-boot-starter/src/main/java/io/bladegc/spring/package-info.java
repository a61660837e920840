/**
 * Blade for Spring Boot 3: with {@code io.bladegc:blade-spring-boot-starter} on the class path, a servlet web
 * application runs behind {@link io.bladegc.servlet.BladeFilter} without any code, and a reactive one behind
 * {@link io.bladegc.spring.BladeWebFilter}.
 *
 * <p>{@link io.bladegc.spring.BladeAutoConfiguration} registers the filter first in the chain, configured by
 * {@link io.bladegc.spring.BladeProperties} ({@code blade.readiness-path}, {@code blade.gc-overlap},
 * {@code blade.drain-timeout}, ...), and, when the application has a Micrometer {@code MeterRegistry}, the filter's
 * meters and the node's ({@link io.bladegc.servlet.BladeMeters}). {@code blade.enabled=false} turns it off; an
 * application's own {@code BladeFilter} bean or registration makes it back off.
 *
 * <p>A reactive (WebFlux) application gets {@link io.bladegc.spring.BladeWebFilter} instead, a {@code WebFilter} of
 * highest precedence registered by {@link io.bladegc.spring.BladeReactiveAutoConfiguration}.
 */
package io.bladegc.spring;
