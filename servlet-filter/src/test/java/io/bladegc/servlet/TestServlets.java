package io.bladegc.servlet;

import io.bladegc.api.Gate;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Servlets the filter tests run behind {@link BladeFilter}. Also the javax filter's tests': its build generates their
 * copy from this file, with {@code jakarta.servlet} renamed to {@code javax.servlet} (see its pom).
 */
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
                    throw new RuntimeException(e);
                }
                async.complete();
            }, "late-completer");
            t.setDaemon(true);
            t.start();
            dispatchReturned.countDown();
        }
    }

    /** Goes async, dispatches back to itself, goes async again there, then another thread completes when released. */
    static final class RestartedAsync extends HttpServlet {
        final CountDownLatch secondCycle = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) {
            if (req.getDispatcherType() == DispatcherType.REQUEST) {
                req.startAsync().dispatch();
                return;
            }
            AsyncContext async = req.startAsync();
            async.setTimeout(0);
            Thread t = new Thread(() -> {
                await(release);
                try {
                    async.getResponse().getWriter().write("second cycle");
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
                async.complete();
            }, "second-cycle-completer");
            t.setDaemon(true);
            t.start();
            secondCycle.countDown();
        }
    }

    /** Goes async and dispatches back to itself; the async dispatch answers synchronously. */
    static final class DispatchedAsync extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            if (req.getDispatcherType() == DispatcherType.REQUEST) {
                req.startAsync().dispatch();
                return;
            }
            resp.getWriter().write("dispatched");
        }
    }

    /** Goes async and lets the async timeout expire. */
    static final class AsyncTimeout extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) {
            if (req.getDispatcherType() == DispatcherType.REQUEST) {
                req.startAsync().setTimeout(100);
            }
        }
    }

    /** Goes async and completes from another thread before the dispatch returns. */
    static final class CompletesBeforeReturn extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws ServletException {
            AsyncContext async = req.startAsync();
            Thread t = new Thread(async::complete, "early-completer");
            t.start();
            try {
                t.join();
            } catch (InterruptedException e) {
                throw new ServletException(e);
            }
        }
    }

    /** Goes async, then throws. */
    static final class AsyncThenThrow extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) {
            if (req.getDispatcherType() == DispatcherType.REQUEST) {
                req.startAsync();
                throw new IllegalStateException("boom after startAsync (expected by the test)");
            }
        }
    }

    /** Throws. */
    static final class Throwing extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) {
            throw new IllegalStateException("boom (expected by the test)");
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

    /** Records the in-flight count it sees, and answers it with the request's {@link Gate#ADMITTED_ATTRIBUTE}. */
    static final class Probe extends HttpServlet {
        final AtomicLong seen = new AtomicLong(-1);
        private final LongSupplier inFlight;

        Probe(LongSupplier inFlight) {
            this.inFlight = inFlight;
        }

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            seen.set(inFlight.getAsLong());
            resp.getWriter().write("in flight " + seen.get() + ", admitted " + req.getAttribute(Gate.ADMITTED_ATTRIBUTE)
                + ";");
        }
    }

    /**
     * Collects garbage during the request and waits until the node has seen the pause. Under a concurrent collector
     * (ZGC, Shenandoah) the pauses may be shorter than the 1 ms resolution of GC notifications and never show:
     * {@link #pauseSeen} tells.
     */
    static final class CollectsDuringRequest extends HttpServlet {
        final AtomicBoolean pauseSeen = new AtomicBoolean();
        private final LongSupplier pauseNanos;

        CollectsDuringRequest(LongSupplier pauseNanos) {
            this.pauseNanos = pauseNanos;
        }

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            long before = pauseNanos.getAsLong();
            System.gc();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (pauseNanos.getAsLong() == before && System.nanoTime() < deadline) {
                sleep(5);
            }
            pauseSeen.set(pauseNanos.getAsLong() != before);
            resp.getWriter().write("collected");
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

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
