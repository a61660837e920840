/**
 * Blade's servlet filter on the {@code javax.servlet} API (Servlet 4: Tomcat 9, Jetty 10, Spring Boot 2; tested on
 * Tomcat 9): {@code io.bladegc.servlet.javax.BladeFilter} and its {@code InFlightListener}.
 *
 * <p>Both classes are generated at build time, not written: they are the class files of the Jakarta
 * {@link io.bladegc.servlet.BladeFilter} and {@code io.bladegc.servlet.InFlightListener} (module
 * {@code servlet-filter}), with {@code jakarta.servlet} renamed to {@code javax.servlet} and the two classes moved
 * into this package by the maven-shade-plugin (see this module's {@code pom.xml}). So the javax filter has the Jakarta
 * one's constructors, init-params, behaviour, log lines (under its own class name) and Micrometer meters; read the
 * Jakarta {@link io.bladegc.servlet.BladeFilter} for them. Everything else, the servlet-free
 * {@link io.bladegc.servlet.AbstractBladeFilter} and {@link io.bladegc.servlet.FilterCore} the shell extends and
 * uses, comes once, from the {@code blade-servlet-filter} dependency.
 *
 * <p>Registration in a {@code web.xml}: as for the Jakarta filter, with
 * {@code <filter-class>io.bladegc.servlet.javax.BladeFilter</filter-class>}, first in the chain, on {@code /*}, with
 * {@code <async-supported>true</async-supported>}. In Spring Boot 2: a {@code FilterRegistrationBean} of
 * {@code new BladeFilter(meterRegistry)} with the highest precedence and async support. Tomcat runs filters only on
 * paths some servlet is mapped to, so the readiness endpoint needs a servlet on {@code /} (a standalone Tomcat's
 * default servlet, Spring's {@code DispatcherServlet}); an embedded Tomcat without one answers {@code 404} there.
 */
package io.bladegc.servlet.javax;
