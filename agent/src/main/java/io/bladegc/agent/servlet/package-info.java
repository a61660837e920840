/**
 * The advice templates of {@code instrument=servlet}: {@code ServletInstrumentation} has Byte Buddy inline
 * {@link io.bladegc.agent.servlet.JakartaEntryAdvice} or its {@code javax.servlet} mirror
 * {@link io.bladegc.agent.servlet.JavaxEntryAdvice} into each {@code Servlet.service} and {@code Filter.doFilter};
 * the first entry of a request passes the gate through {@code GateBridge}. Both are package-private, written by hand
 * (nothing generates one from the other) and never loaded themselves, only read as templates.
 */
package io.bladegc.agent.servlet;
