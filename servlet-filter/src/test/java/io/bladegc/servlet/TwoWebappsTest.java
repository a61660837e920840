package io.bladegc.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.bladegc.api.Blade;
import io.bladegc.api.BladeNode;
import jakarta.servlet.Filter;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Map;
import javax.management.ObjectName;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.server.handler.ContextHandlerCollection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Two webapps in one JVM, each with its own copy of blade-api and of the filter (separate child-first class
 * loaders, as a servlet container gives them), end up on one node: the first starts it, the second joins it, and
 * the test, with a third copy of Blade, drives both gates through {@link Blade#node()}.
 */
class TwoWebappsTest {
    private final ChildFirstLoader loaderA = ChildFirstLoader.webapp("webapp-a");
    private final ChildFirstLoader loaderB = ChildFirstLoader.webapp("webapp-b");
    private JettyApp app;

    @AfterEach
    void stop() throws Exception {
        try {
            if (app != null) {
                app.close();
            }
        } finally {
            try {
                stopNodeStartedBy(loaderA);
                stopNodeStartedBy(loaderB);
                Blade.stopNode();
            } finally {
                loaderA.close();
                loaderB.close();
            }
        }
    }

    private static void stopNodeStartedBy(ClassLoader loader) throws ReflectiveOperationException {
        loader.loadClass(Blade.class.getName()).getMethod("stopNode").invoke(null);
    }

    private static Filter filterFrom(ClassLoader loader) throws ReflectiveOperationException {
        return (Filter) loader.loadClass(BladeFilter.class.getName()).getConstructor().newInstance();
    }

    private static ServletContextHandler webapp(String path, ClassLoader loader, Filter filter) {
        ServletContextHandler context = JettyApp.context(path, filter, Map.of());
        context.setClassLoader(loader);
        JettyApp.servlet(context, "/hello", new TestServlets.Hello());
        return context;
    }

    @Test
    void bothWebappsShareOneNodeAndOneGate() throws Exception {
        assertThat(Blade.node()).isEmpty();
        Filter filterA = filterFrom(loaderA);
        Filter filterB = filterFrom(loaderB);
        assertThat(filterA.getClass()).isNotSameAs(filterB.getClass()).isNotSameAs(BladeFilter.class);
        assertThat(filterA.getClass().getClassLoader()).isSameAs(loaderA);
        assertThat(filterB.getClass().getClassLoader()).isSameAs(loaderB);

        app = JettyApp.start(new ContextHandlerCollection(webapp("/a", loaderA, filterA),
            webapp("/b", loaderB, filterB)));

        assertThat(ManagementFactory.getPlatformMBeanServer().queryNames(new ObjectName("io.bladegc:*"), null))
            .as("one node published").hasSize(1);
        BladeNode node = QuietNode.quiet(Blade.node().orElseThrow());
        assertThat(node.getClass().getClassLoader()).as("the test's copy of Blade reaches it through the channel")
            .isNotIn(loaderA, loaderB);

        assertThat(app.get("/a/hello").statusCode()).isEqualTo(200);
        assertThat(app.get("/b/hello").statusCode()).isEqualTo(200);

        node.gate().close();
        assertThat(app.get("/a/hello").statusCode()).isEqualTo(503);
        assertThat(app.get("/b/hello").statusCode()).isEqualTo(503);
        assertThat(app.get("/a/blade/ready").statusCode()).isEqualTo(503);
        assertThat(app.get("/b/blade/ready").statusCode()).isEqualTo(503);

        node.gate().open();
        assertThat(app.get("/a/hello").statusCode()).isEqualTo(200);
        assertThat(app.get("/b/hello").statusCode()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(10)).until(() -> node.gate().inFlight() == 0);
    }

    @Test
    void webappWithoutMicrometerServesEvenWhenGivenARegistry() throws Exception {
        ChildFirstLoader noMicrometer = ChildFirstLoader.webapp("webapp-without-micrometer", "io.micrometer.");
        try {
            Filter filter = (Filter) noMicrometer.loadClass(BladeFilter.class.getName())
                .getConstructor(Object.class)
                .newInstance(new io.micrometer.core.instrument.simple.SimpleMeterRegistry());
            app = JettyApp.start(webapp("/c", noMicrometer, filter));
            QuietNode.quiet(Blade.node().orElseThrow());
            assertThat(app.get("/c/hello").statusCode()).isEqualTo(200);
            assertThat(filter.getClass().getMethod("isPassThrough").invoke(filter)).isEqualTo(false);
        } finally {
            if (app != null) {
                app.close();
                app = null;
            }
            stopNodeStartedBy(noMicrometer);
            noMicrometer.close();
        }
    }
}
