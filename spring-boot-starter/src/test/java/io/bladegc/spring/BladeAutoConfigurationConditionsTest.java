package io.bladegc.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.api.Blade;
import io.bladegc.servlet.BladeFilter;
import io.bladegc.servlet.BladeMeters;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;

/** When the auto-configuration applies and what it registers, without a server (the filter is not started). */
class BladeAutoConfigurationConditionsTest {
    private final WebApplicationContextRunner web = new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(BladeAutoConfiguration.class));

    @Test
    void applicationsMeterRegistryGetsTheNodesMetersUntilTheContextCloses() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        web.withBean(MeterRegistry.class, () -> registry).run(context -> {
            assertThat(context).hasSingleBean(BladeMeters.class).hasBean("bladeFilterRegistration");
            assertThat(registry.find("blade.node.collections").functionCounter()).isNotNull();
            assertThat(registry.find("blade.coordination.phase").functionTimers()).hasSize(4);
        });
        assertThat(registry.getMeters()).as("removed on close").isEmpty();
    }

    @Test
    void withoutAMeterRegistryTheFilterStillRegisters() {
        web.run(context -> assertThat(context).hasBean("bladeFilterRegistration").hasSingleBean(BladeMeters.class));
    }

    @Test
    void withoutMicrometerTheFilterStillRegisters() {
        web.withClassLoader(new FilteredClassLoader(MeterRegistry.class)).run(context -> {
            assertThat(context).hasNotFailed().hasBean("bladeFilterRegistration")
                .doesNotHaveBean(BladeMeters.class);
        });
    }

    @Test
    void applicationsOwnFilterBeanMakesItBackOff() {
        web.withBean("ownBlade", BladeFilter.class, BladeFilter::new).run(context -> {
            assertThat(context).doesNotHaveBean("bladeFilterRegistration").hasSingleBean(BladeFilter.class);
            assertThat(context.getBeansOfType(FilterRegistrationBean.class)).isEmpty();
        });
    }

    @Test
    void aServletApplicationGetsTheServletFilterAndNoWebFilter() {
        web.withConfiguration(AutoConfigurations.of(BladeReactiveAutoConfiguration.class)).run(context ->
            assertThat(context).hasBean("bladeFilterRegistration").doesNotHaveBean(BladeWebFilter.class));
    }

    @Test
    void aReactiveApplicationGetsTheWebFilterAndNoServletFilter() {
        try {
            new ReactiveWebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BladeAutoConfiguration.class,
                    BladeReactiveAutoConfiguration.class))
                .run(context -> {
                    assertThat(context).hasSingleBean(BladeWebFilter.class).doesNotHaveBean("bladeFilterRegistration");
                    assertThat(context.getBean(BladeWebFilter.class).isPassThrough()).isFalse();
                });
        } finally {
            Blade.stopNode();
        }
    }

    @Test
    void bladeEnabledFalseLeavesTheWebFilterOut() {
        new ReactiveWebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BladeReactiveAutoConfiguration.class))
            .withPropertyValues("blade.enabled=false")
            .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(BladeWebFilter.class));
    }

    @Test
    void aBadPropertyLeavesTheWebFilterAPassThrough() {
        new ReactiveWebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(BladeReactiveAutoConfiguration.class))
            .withPropertyValues("blade.drain-timeout=soon")
            .run(context -> assertThat(context.getBean(BladeWebFilter.class).isPassThrough()).isTrue());
    }

    @Test
    void notInANonWebApplication() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(BladeAutoConfiguration.class))
            .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(BladeProperties.class)
                .doesNotHaveBean("bladeFilterRegistration"));
    }

    @Test
    void propertiesAreDocumentedForTheIde() throws Exception {
        String metadata;
        try (InputStream in = BladeProperties.class.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("configuration metadata").isNotNull();
            metadata = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        for (String property : new String[] {"blade.enabled", "blade.readiness-path", "blade.gc-overlap",
            "blade.drain-timeout", "blade.margin", "blade.sample-interval"}) {
            assertThat(metadata).contains("\"name\": \"" + property + "\"");
        }
    }
}
