package io.bladegc.benchmarks.jmh;

import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletContext;
import java.util.Collections;
import java.util.Enumeration;
import java.util.Map;

/** A filter configuration with the given init-params and without a servlet context (the filter tolerates none). */
final class StubFilterConfig implements FilterConfig {
    private final Map<String, String> initParams;

    StubFilterConfig(Map<String, String> initParams) {
        this.initParams = Map.copyOf(initParams);
    }

    @Override
    public String getFilterName() {
        return "blade";
    }

    @Override
    public ServletContext getServletContext() {
        return null;
    }

    @Override
    public String getInitParameter(String name) {
        return initParams.get(name);
    }

    @Override
    public Enumeration<String> getInitParameterNames() {
        return Collections.enumeration(initParams.keySet());
    }
}
