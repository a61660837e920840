package io.bladegc.spring;

import io.bladegc.api.BladeOptionsParser;
import java.lang.System.Logger.Level;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.web.server.WebFilter;

/**
 * Puts a Spring Boot reactive (WebFlux) web application behind Blade: registers a {@link BladeWebFilter} bean, first
 * among the application's {@link WebFilter}s ({@link org.springframework.core.Ordered#HIGHEST_PRECEDENCE}). The
 * filter joins the JVM's Blade node (the {@code -javaagent}'s) or starts one in GCI mode with the Blade options of
 * {@link BladeProperties} ({@code blade.drain-timeout}, {@code blade.margin}, {@code blade.sample-interval});
 * {@code blade.readiness-path} and {@code blade.gc-overlap} are the servlet filter's and do not apply here.
 *
 * <p>Active in reactive web applications when WebFlux is on the class path and {@code blade.enabled} is not
 * {@code false}; it backs off when the application defines its own {@link BladeWebFilter} bean. A bad Blade option
 * never stops the application: one {@code WARNING} line names it, and the filter passes every request through.
 *
 * <p>The node outlives the application context; an application that wants it stopped on shutdown calls
 * {@link io.bladegc.api.Blade#stopNode()}.
 */
@AutoConfiguration
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass(WebFilter.class)
@ConditionalOnProperty(prefix = "blade", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(BladeProperties.class)
public class BladeReactiveAutoConfiguration {
    private static final System.Logger LOG = System.getLogger(BladeWebFilter.class.getName());

    /** For Spring Boot only. */
    public BladeReactiveAutoConfiguration() {
    }

    @Bean
    @ConditionalOnMissingBean
    BladeWebFilter bladeWebFilter(BladeProperties properties) {
        BladeOptionsParser.Result parsed =
            BladeOptionsParser.parse(properties.nodeOptions(), BladeProperties::propertyName);
        if (!parsed.ok()) {
            LOG.log(Level.WARNING, "Blade WebFlux filter: bad properties: " + String.join("; ", parsed.errors())
                + "; passing every request through");
            return BladeWebFilter.passThrough();
        }
        return BladeWebFilter.start(parsed.options());
    }
}
