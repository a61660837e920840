package io.bladegc.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.bladegc.api.Blade;
import io.bladegc.api.BladeNode;
import io.bladegc.api.Gate;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two Blade entries on one request, through {@link Gate#ADMITTED_ATTRIBUTE}: two Blade filters mapped in one chain
 * count and shed a request once, and a request an outer entry (the agent's instrumentation, played here by a plain
 * filter) already admitted passes the Blade filter uncounted, even after the gate closed.
 */
class NestedBladeEntriesTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final BladeFilter outer = new BladeFilter();
    private final BladeFilter inner = new BladeFilter();
    private JettyApp app;
    private BladeNode node;

    @BeforeEach
    void start() throws Exception {
        ServletContextHandler context = new ServletContextHandler();
        context.setContextPath(JettyApp.CONTEXT);
        Filter marksAsAdmitted = (req, res, chain) -> {
            req.setAttribute(Gate.ADMITTED_ATTRIBUTE, Boolean.TRUE);
            chain.doFilter(req, res);
        };
        context.addFilter(new FilterHolder(marksAsAdmitted), "/marked", EnumSet.of(DispatcherType.REQUEST));
        addBlade(context, "blade-outer", outer);
        addBlade(context, "blade-inner", inner);
        JettyApp.servlet(context, "/count", new InFlightAndMark());
        JettyApp.servlet(context, "/marked", new InFlightAndMark());
        app = JettyApp.start(context);
        node = QuietNode.quiet(Blade.node().orElseThrow());
    }

    private static void addBlade(ServletContextHandler context, String name, BladeFilter filter) {
        FilterHolder holder = new FilterHolder(filter);
        holder.setName(name);
        holder.setAsyncSupported(true);
        holder.setInitParameters(Map.of(BladeFilter.GC_OVERLAP_PARAM, "true"));
        context.addFilter(holder, "/*", EnumSet.allOf(DispatcherType.class));
    }

    @AfterEach
    void stop() throws Exception {
        try {
            if (app != null) {
                app.close();
            }
        } finally {
            Blade.stopNode();
        }
    }

    @Test
    void twoBladeFiltersInOneChainCountARequestOnce() throws Exception {
        assertThat(outer.isPassThrough()).isFalse();
        assertThat(inner.isPassThrough()).isFalse();

        HttpResponse<String> counted = app.get("/app/count");
        assertThat(counted.statusCode()).isEqualTo(200);
        assertThat(counted.body()).isEqualTo("in flight 1; admitted true");
        await().atMost(WAIT).until(() -> node.gate().inFlight() == 0);
        assertThat(outer.gcOverlap().snapshot().requests()).as("the outer filter admitted it").isEqualTo(1);
        assertThat(inner.gcOverlap().snapshot().requests()).as("the inner one passed it on").isZero();
    }

    @Test
    void twoBladeFiltersInOneChainShedOnce() throws Exception {
        node.gate().close();

        HttpResponse<String> shed = app.get("/app/count");
        assertThat(shed.statusCode()).isEqualTo(503);
        assertThat(shed.headers().firstValue("Retry-After")).isPresent();
        assertThat(shed.headers().firstValue(BladeFilter.RETRY_AFTER_MS_HEADER)).isPresent();
        assertThat(outer.shedCount()).isEqualTo(1);
        assertThat(inner.shedCount()).isZero();
        assertThat(app.get("/app/blade/ready").statusCode()).isEqualTo(503);

        node.gate().open();
        assertThat(app.get("/app/count").body()).isEqualTo("in flight 1; admitted true");
    }

    @Test
    void requestAdmittedByAnOuterEntryPassesUncountedAndUnshed() throws Exception {
        HttpResponse<String> marked = app.get("/app/marked");
        assertThat(marked.body()).as("counted by the outer entry alone, which this test only plays")
            .isEqualTo("in flight 0; admitted true");

        node.gate().close();
        HttpResponse<String> admittedBeforeTheClose = app.get("/app/marked");
        assertThat(admittedBeforeTheClose.statusCode()).isEqualTo(200);
        assertThat(outer.shedCount() + inner.shedCount()).isZero();
        assertThat(outer.gcOverlap().snapshot().requests() + inner.gcOverlap().snapshot().requests()).isZero();
        assertThat(app.get("/app/count").statusCode()).as("an unmarked request is still shed").isEqualTo(503);
    }

    /** Answers the gate's in-flight count and the admitted mark it sees. */
    private final class InFlightAndMark extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            resp.getWriter().write("in flight " + node.gate().inFlight() + "; admitted "
                + req.getAttribute(Gate.ADMITTED_ATTRIBUTE));
        }
    }
}
