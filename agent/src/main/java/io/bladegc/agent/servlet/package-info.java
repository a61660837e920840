/**
 * The servlet entry advice of {@code instrument=servlet}: {@code ServletInstrumentation} has Byte Buddy inline
 * {@link io.bladegc.agent.servlet.EntryAdvice} into each {@code Servlet.service} and {@code Filter.doFilter}; the
 * first entry of a request passes the gate through {@code GateBridge}. The advice is written once, against
 * {@code jakarta.servlet}, and never loaded itself, only read as a template;
 * {@link io.bladegc.agent.servlet.EntryAdviceTemplates} serves it, and makes its {@code javax.servlet} twin from its
 * class file by renaming the API's types.
 */
package io.bladegc.agent.servlet;
