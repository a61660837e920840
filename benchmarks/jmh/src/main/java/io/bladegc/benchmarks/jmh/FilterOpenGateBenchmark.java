package io.bladegc.benchmarks.jmh;

import io.bladegc.api.Blade;
import io.bladegc.api.BladeNode;
import io.bladegc.api.BladeOptions;
import io.bladegc.api.Gate;
import io.bladegc.api.GcDecision;
import io.bladegc.servlet.BladeFilter;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockFilterConfig;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

/**
 * What {@link BladeFilter} adds to a request while the gate is open: {@link #baseline()} calls the application
 * (an empty {@link MockFilterChain}) directly, {@link #throughFilter()} calls it through the filter as configured by
 * default, and {@link #throughFilterWithGcOverlap()} through a filter with {@code gcOverlap=true}. The differences
 * are the filter's cost: the dispatcher-type and readiness-path checks, the admitted mark and {@code tryEnter}/
 * {@code exit} on the gate; with {@code gcOverlap=true} also two {@code System.nanoTime()} reads, two reads of the
 * node's pause counter and one add into the GC-overlap histogram. Goal: at most 50 ns added and 0 B/op (run with
 * {@code -prof gc}).
 *
 * <p>The filters join a real node started in GCI mode, with an upcall handler that always defers so that the
 * node never closes the gate during the measurement; the tear-down fails the run if a request was shed or the
 * response written to. Every call reuses one request, one response and one chain (made in the set-up, so that no
 * call allocates for them): the chain is {@linkplain MockFilterChain#reset() reset} before each call (in the
 * baseline too), and the request does not keep the filter's admitted mark (see {@link UnmarkedRequest}).
 * Single-threaded: it measures the path, not contention on the gate's counter.
 *
 * <pre>
 * ./mvnw -q -pl benchmarks/jmh -am install -DskipTests
 * java -cp benchmarks/jmh/target/classes:$(cat benchmarks/jmh/target/classpath.txt) org.openjdk.jmh.Main \
 *     FilterOpenGateBenchmark -f 1 -wi 3 -i 5 -prof gc
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class FilterOpenGateBenchmark {
    private MockHttpServletRequest request;
    private MockHttpServletResponse response;
    private MockFilterChain chain;
    private BladeFilter filter;
    private BladeFilter timedFilter;
    private BladeNode node;

    @Setup(Level.Trial)
    public void setUp() {
        request = new UnmarkedRequest("/app", "/app/orders/42");
        response = new MockHttpServletResponse();
        chain = new MockFilterChain();
        // Start the node first and keep its gate open before any filter attaches (an attached gate arms the node's
        // default drain-and-collect handler).
        node = Blade.startNode(BladeOptions.defaults());
        node.register(r -> GcDecision.DEFER);
        filter = new BladeFilter();
        filter.init(new MockFilterConfig("blade"));
        timedFilter = new BladeFilter();
        MockFilterConfig timedConfig = new MockFilterConfig("blade");
        timedConfig.addInitParameter(BladeFilter.GC_OVERLAP_PARAM, "true");
        timedFilter.init(timedConfig);
        if (filter.isPassThrough() || timedFilter.isPassThrough()) {
            throw new IllegalStateException("the filter did not reach a Blade node; see its log line");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        long inFlight = filter.inFlight();
        long shed = filter.shedCount() + timedFilter.shedCount();
        filter.destroy();
        timedFilter.destroy();
        Blade.stopNode();
        if (inFlight != 0) {
            throw new IllegalStateException("in-flight count leaked: " + inFlight);
        }
        if (shed != 0 || response.getStatus() != HttpServletResponse.SC_OK || !response.getHeaderNames().isEmpty()
            || response.getContentAsByteArray().length != 0) {
            throw new IllegalStateException("the open-gate path shed or wrote to the response");
        }
    }

    /** @return the request the chain was called with, so that nothing is dead code */
    @Benchmark
    public ServletRequest baseline() throws IOException, ServletException {
        chain.reset();
        chain.doFilter(request, response);
        return chain.getRequest();
    }

    /** @return the request the chain was called with, so that nothing is dead code */
    @Benchmark
    public ServletRequest throughFilter() throws IOException, ServletException {
        chain.reset();
        filter.doFilter(request, response, chain);
        return chain.getRequest();
    }

    /** @return the request the chain was called with, so that nothing is dead code */
    @Benchmark
    public ServletRequest throughFilterWithGcOverlap() throws IOException, ServletException {
        chain.reset();
        timedFilter.doFilter(request, response, chain);
        return chain.getRequest();
    }

    /**
     * A request that is new to the filter on every call: it does not keep the {@value Gate#ADMITTED_ATTRIBUTE} mark
     * (any other attribute it keeps), so that each call takes the gate's counting path (with the mark kept, the next
     * call would pass through as admitted already) and the mock makes and drops no map entry per call, a cost that
     * would be the mock's, not the filter's.
     */
    private static final class UnmarkedRequest extends MockHttpServletRequest {
        UnmarkedRequest(String contextPath, String uri) {
            super("GET", uri);
            setContextPath(contextPath);
        }

        @Override
        public void setAttribute(String name, Object value) {
            if (!Gate.ADMITTED_ATTRIBUTE.equals(name)) {
                super.setAttribute(name, value);
            }
        }
    }
}
