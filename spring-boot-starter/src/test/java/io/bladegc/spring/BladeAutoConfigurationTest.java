package io.bladegc.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.bladegc.api.Blade;
import io.bladegc.api.BladeNode;
import io.bladegc.api.GcDecision;
import io.bladegc.servlet.BladeFilter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.servlet.DispatcherType;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.web.servlet.context.ServletWebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A real Spring Boot application (embedded Tomcat, Actuator's meter registry) with nothing of Blade but the starter on
 * its class path.
 */
class BladeAutoConfigurationTest {
    /** Tomcat's base directory, removed after the class (Spring Boot's default, a temporary one, outlives it). */
    @TempDir
    static Path tomcatBase;

    private static final Duration WAIT = Duration.ofSeconds(10);
    /** The filter's logger (JUL, bridged to Spring Boot's logging), held strongly: JUL keeps loggers weakly. */
    private static final Logger FILTER_LOG = Logger.getLogger(BladeFilter.class.getName());
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    /** The application: one endpoint, no Blade code. */
    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @Import(HelloController.class)
    static class HelloApp {
    }

    @RestController
    static class HelloController {
        @GetMapping("/hello")
        String hello() {
            return "hello";
        }
    }

    /** What an application that registers Blade itself adds. */
    static class OwnRegistration {
        @Bean
        FilterRegistrationBean<BladeFilter> ownBlade() {
            FilterRegistrationBean<BladeFilter> registration = new FilterRegistrationBean<>(new BladeFilter());
            registration.addInitParameter(BladeFilter.READINESS_PATH_PARAM, "/own/ready");
            registration.setAsyncSupported(true);
            return registration;
        }
    }

    private ConfigurableApplicationContext app;

    @BeforeEach
    void noNode() {
        assertThat(Blade.node()).as("no Blade node before the application starts").isEmpty();
    }

    @AfterEach
    void stop() {
        try {
            if (app != null) {
                app.close();
            }
        } finally {
            Blade.stopNode();
        }
    }

    @Test
    void filterGatesRequestsAnswersReadinessAndRegistersMeters() throws Exception {
        app = start(new Class<?>[] {HelloApp.class}, "blade.drain-timeout=250ms", "blade.margin=7ms",
            "blade.sample-interval=4ms", "blade.gc-overlap=true");
        BladeNode node = quiet(Blade.node().orElseThrow(() -> new AssertionError("the filter started no node")));
        assertThat(node.summary()).contains("margin 7 ms").contains("heap read every 4 ms");

        @SuppressWarnings("unchecked")
        FilterRegistrationBean<BladeFilter> registration =
            app.getBean("bladeFilterRegistration", FilterRegistrationBean.class);
        assertThat(registration.getFilterName()).isEqualTo(BladeAutoConfiguration.FILTER_NAME);
        assertThat(registration.getUrlPatterns()).containsExactly("/*");
        assertThat(registration.getOrder()).isEqualTo(Ordered.HIGHEST_PRECEDENCE);
        assertThat(registration.isAsyncSupported()).isTrue();
        assertThat(registration.determineDispatcherTypes()).isEqualTo(EnumSet.of(DispatcherType.REQUEST));
        assertThat(registration.getInitParameters()).isEqualTo(Map.of("drainTimeout", "250ms", "margin", "7ms",
            "sampleInterval", "4ms", BladeFilter.GC_OVERLAP_PARAM, "true"));
        BladeFilter filter = registration.getFilter();
        assertThat(filter.isPassThrough()).isFalse();

        HttpResponse<String> hello = get("/hello");
        assertThat(hello.statusCode()).isEqualTo(200);
        assertThat(hello.body()).isEqualTo("hello");
        // the response may reach the client before the filter has recorded the request
        await().atMost(WAIT).until(() -> filter.gcOverlap().snapshot().requests() == 1);
        HttpResponse<String> ready = get("/blade/ready");
        assertThat(ready.statusCode()).isEqualTo(200);
        assertThat(ready.body()).isEqualTo("ready");
        assertThat(filter.gcOverlap().snapshot().requests()).as("readiness is not a request").isEqualTo(1);

        node.gate().close();
        HttpResponse<String> shed = get("/hello");
        assertThat(shed.statusCode()).isEqualTo(503);
        assertThat(shed.headers().firstValue("Retry-After")).hasValueSatisfying(v ->
            assertThat(Long.parseLong(v)).isGreaterThanOrEqualTo(1));
        HttpResponse<String> draining = get("/blade/ready");
        assertThat(draining.statusCode()).isEqualTo(503);
        assertThat(draining.body()).isEqualTo("draining");

        node.gate().open();
        assertThat(get("/hello").statusCode()).isEqualTo(200);
        assertThat(get("/blade/ready").statusCode()).isEqualTo(200);

        MeterRegistry registry = app.getBean(MeterRegistry.class);
        assertThat(registry.get("blade.gate.shed").functionCounter().count()).isEqualTo(1);
        assertThat(registry.get("blade.gate.open").gauge().value()).isEqualTo(1);
        await().atMost(WAIT).until(() -> registry.get("blade.gate.inflight").gauge().value() == 0);
        assertThat(registry.find("blade.request.gc.share").gauges()).hasSize(3);
        assertThat(registry.get("blade.node.gate.open").gauge().value()).isEqualTo(1);
        assertThat(registry.get("blade.node.needed.lead").gauge().value()).isPositive();
        assertThat(registry.get("blade.node.collections").functionCounter().count()).isNotNegative();
        assertThat(registry.find("blade.coordination.grants").functionCounter()).isNotNull();
        assertThat(registry.find("blade.explicit.gc.calls").functionCounters()).hasSize(3);

        app.close();
        assertThat(registry.find("blade.gate.shed").meters()).as("the filter's meters go with the application")
            .isEmpty();
        assertThat(registry.find("blade.node.collections").meters()).as("and the node's").isEmpty();
    }

    @Test
    void disabledLeavesTheApplicationAlone() throws Exception {
        app = start(new Class<?>[] {HelloApp.class}, "blade.enabled=false");

        assertThat(app.getBeansOfType(FilterRegistrationBean.class)).doesNotContainKey("bladeFilterRegistration");
        assertThat(app.getBeanNamesForType(BladeProperties.class)).isEmpty();
        assertThat(Blade.node()).as("no node started").isEmpty();
        assertThat(get("/hello").statusCode()).isEqualTo(200);
        assertThat(get("/blade/ready").statusCode()).isEqualTo(404);
        assertThat(app.getBean(MeterRegistry.class).find("blade.node.collections").meters()).isEmpty();
    }

    @Test
    void applicationsOwnRegistrationMakesItBackOff() throws Exception {
        app = start(new Class<?>[] {HelloApp.class, OwnRegistration.class}, "blade.readiness-path=/auto/ready");
        quiet(Blade.node().orElseThrow(() -> new AssertionError("the application's filter started no node")));

        assertThat(app.getBeansOfType(FilterRegistrationBean.class)).containsKey("ownBlade")
            .doesNotContainKey("bladeFilterRegistration");
        assertThat(get("/own/ready").statusCode()).as("the application's filter").isEqualTo(200);
        assertThat(get("/auto/ready").statusCode()).as("no auto-configured filter").isEqualTo(404);
        assertThat(get("/hello").statusCode()).isEqualTo(200);
        assertThat(app.getBean(MeterRegistry.class).find("blade.node.collections").meters())
            .as("the node's meters still").isNotEmpty();
    }

    @Test
    void badPropertyNeverStopsTheApplicationAndIsNamedAsThePropertyItIs() throws Exception {
        List<String> warnings = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getLevel() == Level.WARNING) {
                    warnings.add(record.getMessage());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        FILTER_LOG.addHandler(capture);
        try {
            app = start(new Class<?>[] {HelloApp.class}, "blade.drain-timeout=soon");
        } finally {
            FILTER_LOG.removeHandler(capture);
        }

        @SuppressWarnings("unchecked")
        FilterRegistrationBean<BladeFilter> registration =
            app.getBean("bladeFilterRegistration", FilterRegistrationBean.class);
        assertThat(registration.getFilter().isPassThrough()).isTrue();
        assertThat(get("/hello").statusCode()).isEqualTo(200);
        assertThat(warnings).containsExactly("Blade filter 'bladeFilter' in context '': bad property: malformed "
            + "option 'blade.drain-timeout=soon': expected a duration such as 20ms or 1s; valid properties: "
            + "blade.enabled, blade.readiness-path, "
            + "blade.gc-overlap, blade.drain-timeout, blade.margin, blade.sample-interval; running as a pass-through "
            + "that never sheds");
    }

    @Test
    void theAgentsOwnOptionsAreNoPropertiesOfTheFilter() throws Exception {
        app = start(new Class<?>[] {HelloApp.class}, "blade.coordinator=http://127.0.0.1:7070", "blade.node-id=n1",
            "blade.instrument=servlet", "blade.explicit-gc=coordinate");

        @SuppressWarnings("unchecked")
        FilterRegistrationBean<BladeFilter> registration =
            app.getBean("bladeFilterRegistration", FilterRegistrationBean.class);
        assertThat(registration.getInitParameters()).as("left to the agent, which reads -Dblade.* and BLADE_*")
            .isEmpty();
        assertThat(registration.getFilter().isPassThrough()).isFalse();
        quiet(Blade.node().orElseThrow(() -> new AssertionError("the filter started no node")));
    }

    private static ConfigurableApplicationContext start(Class<?>[] sources, String... properties) {
        return new SpringApplicationBuilder(sources)
            .properties("server.port=0", "server.address=127.0.0.1", "server.tomcat.basedir=" + tomcatBase,
                "spring.main.banner-mode=off",
                "logging.level.root=warn", "logging.level.io.bladegc=info")
            .properties(properties)
            .run();
    }

    private HttpResponse<String> get(String path) throws Exception {
        int port = ((ServletWebServerApplicationContext) app).getWebServer().getPort();
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10)).GET().build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }

    /**
     * Keeps the node's own drains out of the test: the node the filter started arms its default handler, which may
     * close the gate whenever the heap watcher sees a collection coming; this test drives the gate itself.
     */
    private static BladeNode quiet(BladeNode node) {
        node.register(request -> GcDecision.DEFER);
        // a drain handed to the node's gc thread just before the handler changed reopens the gate within the drain
        // timeout plus one collection
        await().during(Duration.ofMillis(100)).atMost(Duration.ofSeconds(10)).until(node.gate()::isOpen);
        return node;
    }
}
