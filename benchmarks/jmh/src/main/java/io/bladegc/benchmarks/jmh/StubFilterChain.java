package io.bladegc.benchmarks.jmh;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;

/** The application behind the filter, reduced to a counter so that the call cannot be optimised away. */
final class StubFilterChain implements FilterChain {
    private long calls;

    @Override
    public void doFilter(ServletRequest request, ServletResponse response) {
        calls++;
    }

    long calls() {
        return calls;
    }
}
