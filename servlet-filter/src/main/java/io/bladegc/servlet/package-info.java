/**
 * Blade's servlet filter: where requests are admitted, counted and shed.
 *
 * <p>{@link io.bladegc.servlet.BladeFilter} (Jakarta Servlet) puts a webapp behind the JVM's Blade
 * {@link io.bladegc.api.Gate}. While the gate is open a request costs one atomic add on the way in and one on the way
 * out (plus two clock reads and one histogram add for the GC-overlap measurement, which can be switched off); while
 * Blade drains the node for a planned collection, new requests get {@code 503} with {@code Retry-After}, requests
 * already admitted run to the end (also asynchronous ones, which finish in their
 * {@link io.bladegc.servlet.InFlightRequest}), and the readiness endpoint tells the load balancer the node is
 * draining. {@link io.bladegc.servlet.GcOverlapHistogram} records, per request, how much stop-the-world pause time
 * overlapped it, so a latency tail can be attributed to GC or not.
 *
 * <p>Written once, for both servlet APIs: the request path ({@link io.bladegc.servlet.AbstractBladeFilter}, with
 * {@link io.bladegc.servlet.InFlightRequest} for asynchronous requests) and everything it uses
 * ({@link io.bladegc.servlet.FilterCore} with {@code FilterSettings}, {@link io.bladegc.servlet.SettingNames},
 * {@code FilterMetrics}, {@link io.bladegc.servlet.RetryHint} and the GC-overlap histogram) reference no servlet
 * API, so the javax filter ({@code io.bladegc.servlet.javax.BladeFilter}, module
 * {@code blade-servlet-filter-javax}) shares them; the Jakarta filter and its {@code InFlightListener} are the
 * Jakarta shell: the few calls that name {@code jakarta.servlet} types. The javax shell is not written but generated
 * from their class files at build time ({@code jakarta.servlet} renamed to {@code javax.servlet}, the two classes
 * moved to {@code io.bladegc.servlet.javax}), so these two classes may use only public and protected members of this
 * package, and only servlet API that {@code javax.servlet} 4 has as well.
 *
 * <p>The filter works alone (it starts a node in GCI mode when it finds none) and under the Blade agent (it joins
 * the agent's node). Micrometer is optional: meters are registered only when the application supplies a
 * {@code MeterRegistry} (see {@link io.bladegc.servlet.BladeFilter}).
 */
package io.bladegc.servlet;
