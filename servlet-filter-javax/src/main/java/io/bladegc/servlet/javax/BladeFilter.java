package io.bladegc.servlet.javax;

import io.bladegc.api.BladeNode;
import io.bladegc.servlet.AbstractBladeFilter;
import io.bladegc.servlet.FilterCore;
import io.bladegc.servlet.SettingNames;
import java.io.IOException;
import javax.servlet.DispatcherType;
import javax.servlet.Filter;
import javax.servlet.FilterChain;
import javax.servlet.FilterConfig;
import javax.servlet.ServletContext;
import javax.servlet.ServletException;
import javax.servlet.ServletRequest;
import javax.servlet.ServletResponse;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/**
 * The Blade filter for containers on the {@code javax.servlet} API (Servlet 4: Tomcat 9, Jetty 10, Spring Boot 2;
 * tested on Tomcat 9). It differs from the Jakarta {@code io.bladegc.servlet.BladeFilter} in nothing but the
 * servlet API it implements: the same init-params, the same behaviour (counting in flight, async included;
 * {@code 503} with {@code Retry-After} and {@value #RETRY_AFTER_MS_HEADER} while the gate is closed; the readiness
 * endpoint; the GC overlap; the {@value io.bladegc.api.Gate#ADMITTED_ATTRIBUTE} mark against counting a request
 * twice), the same log lines (under this class's name) and the same Micrometer meters ({@code blade.gate.shed},
 * {@code blade.gate.inflight}, {@code blade.gate.open}, {@code blade.request.gc.overlap},
 * {@code blade.request.gc.share}). Both are written once, in {@link AbstractBladeFilter}, and only name their API's
 * types themselves; read the Jakarta class for the details.
 *
 * <p>Registration in a {@code web.xml}: as for the Jakarta filter, with
 * {@code <filter-class>io.bladegc.servlet.javax.BladeFilter</filter-class>}, first in the chain, on {@code /*}, with
 * {@code <async-supported>true</async-supported>}. In Spring Boot 2: a {@code FilterRegistrationBean} of
 * {@code new BladeFilter(meterRegistry)} with the highest precedence and async support. Tomcat runs filters only on
 * paths some servlet is mapped to, so the readiness endpoint needs a servlet on {@code /} (a standalone Tomcat's
 * default servlet, Spring's {@code DispatcherServlet}); an embedded Tomcat without one answers {@code 404} there.
 *
 * <p>Thread-safe: {@code doFilter} may run on any number of threads; {@code init} and {@code destroy} are called
 * by the container once each.
 */
public class BladeFilter
    extends AbstractBladeFilter<HttpServletRequest, HttpServletResponse, FilterChain, ServletException>
    implements Filter {

    /** A filter configured by its init-params, without Micrometer meters unless the servlet context supplies them. */
    public BladeFilter() {
        this(null);
    }

    /**
     * A filter that registers its meters in the given registry.
     *
     * @param meterRegistry an {@code io.micrometer.core.instrument.MeterRegistry}, typed {@code Object} so that this
     *                      class does not need Micrometer; {@code null} for none (the servlet context attribute
     *                      {@value #METER_REGISTRY_ATTRIBUTE} is then consulted). Anything else is logged and
     *                      ignored.
     */
    public BladeFilter(Object meterRegistry) {
        super(System.getLogger(BladeFilter.class.getName()), meterRegistry, SettingNames.INIT_PARAMS);
    }

    @Override
    public void init(FilterConfig config) {
        ServletContext context = config.getServletContext();
        start(config.getFilterName(), context == null ? null : context.getContextPath(),
            config.getInitParameterNames(), config::getInitParameter,
            context == null ? null : context.getAttribute(METER_REGISTRY_ATTRIBUTE));
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
        throws IOException, ServletException {
        if (request.getDispatcherType() == DispatcherType.REQUEST
            && request instanceof HttpServletRequest req && response instanceof HttpServletResponse res) {
            filter(req, req.getRequestURI(), req.getContextPath(), res, chain);
        } else {
            chain.doFilter(request, response); // forwards, includes, async and error dispatches: counted already
        }
    }

    @Override
    protected final void proceed(FilterChain chain, HttpServletRequest req, HttpServletResponse res)
        throws IOException, ServletException {
        chain.doFilter(req, res);
    }

    @Override
    protected final Object attribute(HttpServletRequest req, String name) {
        return req.getAttribute(name);
    }

    @Override
    protected final void setAttribute(HttpServletRequest req, String name, Object value) {
        req.setAttribute(name, value);
    }

    @Override
    protected final boolean isAsyncStarted(HttpServletRequest req) {
        return req.isAsyncStarted();
    }

    @Override
    protected final void addInFlightListener(HttpServletRequest req, FilterCore core, BladeNode n, long startNanos,
                                             long pauseAtEntry) {
        req.getAsyncContext().addListener(new InFlightListener(core, n, startNanos, pauseAtEntry));
    }

    @Override
    protected final void setStatus(HttpServletResponse res, int status) {
        res.setStatus(status);
    }

    @Override
    protected final void setHeader(HttpServletResponse res, String name, String value) {
        res.setHeader(name, value);
    }

    @Override
    protected final void writeText(HttpServletResponse res, String contentType, String text) throws IOException {
        res.setContentType(contentType);
        res.getWriter().write(text);
    }
}
