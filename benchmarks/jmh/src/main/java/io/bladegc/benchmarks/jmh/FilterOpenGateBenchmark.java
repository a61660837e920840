package io.bladegc.benchmarks.jmh;

import io.bladegc.api.Blade;
import io.bladegc.api.BladeNode;
import io.bladegc.api.BladeOptions;
import io.bladegc.api.GcDecision;
import io.bladegc.servlet.BladeFilter;
import jakarta.servlet.ServletException;
import java.io.IOException;
import java.util.Map;
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

/**
 * What {@link BladeFilter} adds to a request while the gate is open: {@link #baseline()} calls the application
 * (a stub chain) directly, {@link #throughFilter()} calls it through the filter as configured by default, and
 * {@link #throughFilterWithGcOverlap()} through a filter with {@code gcOverlap=true}. The differences are the
 * filter's cost: the dispatcher-type and readiness-path checks and {@code tryEnter}/{@code exit} on the gate; with
 * {@code gcOverlap=true} also two {@code System.nanoTime()} reads, two reads of the node's pause counter and one add
 * into the GC-overlap histogram. Goal: at most 50 ns added and 0 B/op (run with {@code -prof gc}).
 *
 * <p>The filters join a real node started in GCI mode, with an upcall handler that always defers so that the
 * node never closes the gate during the measurement (a closed gate would shed into the stub response, which
 * throws). Single-threaded: it measures the path, not contention on the
 * gate's counter.
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
    private StubHttpServletRequest request;
    private StubHttpServletResponse response;
    private StubFilterChain chain;
    private BladeFilter filter;
    private BladeFilter timedFilter;
    private BladeNode node;

    @Setup(Level.Trial)
    public void setUp() {
        request = new StubHttpServletRequest("/app", "/app/orders/42");
        response = new StubHttpServletResponse();
        chain = new StubFilterChain();
        // Start the node first and keep its gate open before any filter attaches (an attached gate arms the node's
        // default drain-and-collect handler).
        node = Blade.startNode(BladeOptions.defaults());
        node.register(r -> GcDecision.DEFER);
        filter = new BladeFilter();
        filter.init(new StubFilterConfig(Map.of()));
        timedFilter = new BladeFilter();
        timedFilter.init(new StubFilterConfig(Map.of(BladeFilter.GC_OVERLAP_PARAM, "true")));
        if (filter.isPassThrough() || timedFilter.isPassThrough()) {
            throw new IllegalStateException("the filter did not reach a Blade node; see its log line");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        long inFlight = filter.inFlight();
        filter.destroy();
        timedFilter.destroy();
        Blade.stopNode();
        if (inFlight != 0) {
            throw new IllegalStateException("in-flight count leaked: " + inFlight);
        }
    }

    /** @return the chain's call count, so that nothing is dead code */
    @Benchmark
    public long baseline() throws IOException, ServletException {
        chain.doFilter(request, response);
        return chain.calls();
    }

    /** @return the chain's call count, so that nothing is dead code */
    @Benchmark
    public long throughFilter() throws IOException, ServletException {
        filter.doFilter(request, response, chain);
        return chain.calls();
    }

    /** @return the chain's call count, so that nothing is dead code */
    @Benchmark
    public long throughFilterWithGcOverlap() throws IOException, ServletException {
        timedFilter.doFilter(request, response, chain);
        return chain.calls();
    }
}
