/**
 * Blade's servlet filter on the {@code javax.servlet} API (Servlet 4: Tomcat 9, Spring Boot 2):
 * {@link io.bladegc.servlet.javax.BladeFilter} and its {@code InFlightListener}, a thin shell over the servlet-free
 * {@link io.bladegc.servlet.AbstractBladeFilter} that the Jakarta {@code io.bladegc.servlet.BladeFilter} extends
 * too, so both filters behave, log and measure alike.
 */
package io.bladegc.servlet.javax;
