package io.bladegc.spring;

import io.bladegc.servlet.BladeFilter;
import io.bladegc.servlet.BladeMeters;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.DispatcherType;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;

/**
 * Puts a Spring Boot servlet web application behind Blade: registers {@link BladeFilter} on {@code /*}, first in the
 * chain ({@link Ordered#HIGHEST_PRECEDENCE}), with async support, for {@link DispatcherType#REQUEST} dispatches,
 * configured by {@link BladeProperties} ({@code blade.*}). The filter joins the JVM's Blade node (the
 * {@code -javaagent}'s) or starts one in GCI mode.
 *
 * <p>Active in servlet web applications when {@link BladeFilter} is on the class path and {@code blade.enabled} is
 * not {@code false}. It backs off when the application defines its own {@link BladeFilter} bean or
 * {@code FilterRegistrationBean<BladeFilter>}.
 *
 * <p>With Micrometer on the class path and one {@link MeterRegistry} bean (or a primary one, as Spring Boot
 * Actuator's composite), the filter registers its {@code blade.gate.*} and {@code blade.request.*} meters there, and a
 * {@link BladeMeters} bean (unless the application has one) registers the node's {@code blade.node.*},
 * {@code blade.coordination.*} and {@code blade.explicit.gc.*} meters; Spring Boot Actuator also binds it to every
 * other registry it configures. Without a registry there are no meters.
 *
 * <p>The node outlives the application context (another webapp of the JVM may use it); an application that wants it
 * stopped on shutdown calls {@link io.bladegc.api.Blade#stopNode()}.
 */
@AutoConfiguration
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(BladeFilter.class)
@ConditionalOnProperty(prefix = "blade", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(BladeProperties.class)
public class BladeAutoConfiguration {

    /** Name of the filter in the servlet container; its registration bean is {@code bladeFilterRegistration}. */
    public static final String FILTER_NAME = "bladeFilter";

    /** For Spring Boot only. */
    public BladeAutoConfiguration() {
    }

    static FilterRegistrationBean<BladeFilter> registration(BladeFilter filter, BladeProperties properties) {
        FilterRegistrationBean<BladeFilter> registration = new FilterRegistrationBean<>(filter);
        registration.setName(FILTER_NAME);
        registration.addUrlPatterns("/*");
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
        registration.setAsyncSupported(true);
        registration.setDispatcherTypes(DispatcherType.REQUEST);
        registration.setInitParameters(properties.initParameters());
        return registration;
    }

    /** With Micrometer: the filter and the node's meters go to the application's registry. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    static class WithMicrometer {

        @Bean
        @ConditionalOnMissingBean(value = BladeFilter.class, parameterizedContainer = FilterRegistrationBean.class)
        FilterRegistrationBean<BladeFilter> bladeFilterRegistration(BladeProperties properties,
                                                        ObjectProvider<MeterRegistry> registry) {
            return registration(new BladeFilter(registry.getIfUnique(), BladeProperties.NAMES), properties);
        }

        @Bean
        @ConditionalOnMissingBean
        BladeMeters bladeMeters(ObjectProvider<MeterRegistry> registry) {
            BladeMeters meters = new BladeMeters();
            registry.ifUnique(meters::bindTo);
            return meters;
        }
    }

    /** Without Micrometer: the filter alone. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingClass("io.micrometer.core.instrument.MeterRegistry")
    static class WithoutMicrometer {

        @Bean
        @ConditionalOnMissingBean(value = BladeFilter.class, parameterizedContainer = FilterRegistrationBean.class)
        FilterRegistrationBean<BladeFilter> bladeFilterRegistration(BladeProperties properties) {
            return registration(new BladeFilter(null, BladeProperties.NAMES), properties);
        }
    }
}
