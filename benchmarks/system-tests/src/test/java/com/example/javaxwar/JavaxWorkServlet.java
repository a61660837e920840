package com.example.javaxwar;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.servlet.AsyncContext;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/**
 * {@code com.example.war.WorkServlet} for a {@code javax.servlet} container (Tomcat 9): the same requests and the same
 * {@code X-Gc-Span} header, no Blade code.
 */
public class JavaxWorkServlet extends HttpServlet {
    private static final List<GarbageCollectorMXBean> BEANS = ManagementFactory.getGarbageCollectorMXBeans();
    private static volatile Object sink;

    private final ScheduledExecutorService later = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "war-async");
        t.setDaemon(true);
        return t;
    });

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse res) throws IOException {
        String entry = span();
        sink = new byte[64 * 1024];
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

    /** @return {@code name=from-to;...} from the counts at entry ({@code name=count;...}) and now */
    private static void answer(HttpServletResponse res, String entry) throws IOException {
        String[] from = entry.split(";");
        StringBuilder span = new StringBuilder();
        for (int i = 0; i < BEANS.size(); i++) {
            span.append(i == 0 ? "" : ";").append(from[i]).append('-').append(BEANS.get(i).getCollectionCount());
        }
        res.setHeader("X-Gc-Span", span.toString());
        res.setContentType("text/plain");
        res.getWriter().write("ok");
    }

    private static String span() {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < BEANS.size(); i++) {
            s.append(i == 0 ? "" : ";").append(BEANS.get(i).getName()).append('=')
                .append(BEANS.get(i).getCollectionCount());
        }
        return s.toString();
    }
}
