package io.bladegc.servlet.javax;

import io.bladegc.api.Gate;
import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import javax.servlet.AsyncContext;
import javax.servlet.ServletException;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/** Servlets the javax filter's tests run behind it in Tomcat. */
final class TestServlets {
    private TestServlets() {
    }

    /** Answers 200 {@code hello}. */
    static final class Hello extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            resp.setContentType("text/plain");
            resp.getWriter().write("hello");
        }
    }

    /** Holds the request thread until released. */
    static final class Blocking extends HttpServlet {
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            entered.countDown();
            await(release);
            resp.getWriter().write("slow done");
        }
    }

    /** Goes async; another thread completes the request once released. */
    static final class LateAsync extends HttpServlet {
        final CountDownLatch dispatchReturned = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) {
            AsyncContext async = req.startAsync();
            async.setTimeout(0);
            Thread t = new Thread(() -> {
                await(release);
                try {
                    async.getResponse().getWriter().write("late");
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
                async.complete();
            }, "late-completer");
            t.setDaemon(true);
            t.start();
            dispatchReturned.countDown();
        }
    }

    /** Forwards to {@code /probe}. */
    static final class Forwarding extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws ServletException, IOException {
            req.getRequestDispatcher("/probe").forward(req, resp);
        }
    }

    /** Includes {@code /probe} twice. */
    static final class Including extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws ServletException, IOException {
            req.getRequestDispatcher("/probe").include(req, resp);
            req.getRequestDispatcher("/probe").include(req, resp);
        }
    }

    /** Answers the in-flight count it sees and the request's {@link Gate#ADMITTED_ATTRIBUTE}. */
    static final class Probe extends HttpServlet {
        private final LongSupplier inFlight;

        Probe(LongSupplier inFlight) {
            this.inFlight = inFlight;
        }

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            resp.getWriter().write("in flight " + inFlight.getAsLong() + ", admitted "
                + req.getAttribute(Gate.ADMITTED_ATTRIBUTE) + ";");
        }
    }

    static void await(CountDownLatch latch) {
        try {
            if (!latch.await(20, TimeUnit.SECONDS)) {
                throw new IllegalStateException("test latch not released");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
