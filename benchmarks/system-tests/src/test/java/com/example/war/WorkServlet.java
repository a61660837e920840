package com.example.war;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A plain web application's servlet, with no Blade code: {@code GET /work} allocates 64 KiB and answers; with
 * {@code ?asyncMs=N} it goes asynchronous and completes N ms later on another thread. Every answer carries
 * {@code X-Gc-Span}: for each collector bean, its collection count when the request entered and when it was answered
 * ({@code name=from-to;...}), so a test can tell which collections happened while the request was in flight.
 * Also the javax application's ({@code com.example.javaxwar}, for Tomcat 9): the build generates its copy from this file
 * with {@code jakarta.servlet} renamed to {@code javax.servlet} (see the pom).
 */
public class WorkServlet extends HttpServlet {
    private static final List<GarbageCollectorMXBean> BEANS = ManagementFactory.getGarbageCollectorMXBeans();
    private static volatile Object sink;

    private final ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "war-async");
        t.setDaemon(true);
        return t;
    });

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
        long[] entry = counts();
        byte[][] garbage = new byte[64][];
        for (int i = 0; i < garbage.length; i++) {
            garbage[i] = new byte[1024];
        }
        sink = garbage;
        String async = req.getParameter("asyncMs");
        if (async == null) {
            answer(res, entry);
            return;
        }
        AsyncContext ctx = req.startAsync();
        later.schedule(() -> {
            try {
                answer((HttpServletResponse) ctx.getResponse(), entry);
            } catch (IOException e) {
                ((HttpServletResponse) ctx.getResponse()).setStatus(500);
            }
            ctx.complete();
        }, Long.parseLong(async), TimeUnit.MILLISECONDS);
    }

    @Override
    public void destroy() {
        later.shutdownNow();
    }

    private static void answer(HttpServletResponse res, long[] entry) throws IOException {
        long[] exit = counts();
        StringBuilder span = new StringBuilder();
        for (int i = 0; i < BEANS.size(); i++) {
            span.append(i == 0 ? "" : ";").append(BEANS.get(i).getName()).append('=').append(entry[i]).append('-')
                .append(exit[i]);
        }
        res.setHeader("X-Gc-Span", span.toString());
        res.setContentType("text/plain");
        res.getWriter().write("ok");
    }

    private static long[] counts() {
        long[] c = new long[BEANS.size()];
        for (int i = 0; i < c.length; i++) {
            c[i] = BEANS.get(i).getCollectionCount();
        }
        return c;
    }
}
