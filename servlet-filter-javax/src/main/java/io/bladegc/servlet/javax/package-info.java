/**
 * Blade's servlet filter on the {@code javax.servlet} API (Servlet 4: Tomcat 9, Spring Boot 2):
 * {@link io.bladegc.servlet.javax.BladeFilter}, a thin adapter over the servlet-free
 * {@link io.bladegc.servlet.FilterCore} that the Jakarta {@code io.bladegc.servlet.BladeFilter} uses too, so both
 * filters behave, log and measure alike.
 */
package io.bladegc.servlet.javax;
