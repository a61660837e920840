package io.bladegc.agent.bridge;

import io.bladegc.api.RetryAfter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * What the servlet advice ({@code instrument=servlet}) and the Ratis client-request advice call from inside a servlet
 * container or a Ratis server: the JVM's gate, reached through JDK types only. The agent puts this class on the
 * bootstrap class path, so that code inlined into any container's, webapp's or Ratis' classes (whatever their class
 * loader) sees the one copy, and {@link #install} connects it to the node's gate. Until then every request passes
 * uncounted. The retry headers' values are {@link RetryAfter}'s, which the Blade filter uses too.
 *
 * <p>Thread-safe; {@link #enter()} and {@link #exit()} allocate nothing.
 */
public final class GateBridge {
    /** {@link #enter()}: the request is admitted; call {@link #exit()} once when it is finished. */
    public static final int ADMITTED = 1;
    /** {@link #enter()}: the gate is closed; answer 503 (a Ratis follower: {@code NotLeaderException}), no exit. */
    public static final int SHED = 0;
    /** {@link #enter()}: no gate is installed; let the request through uncounted. */
    public static final int PASS = -1;

    /**
     * The servlet request attribute marking a request admitted through the gate: {@code Gate.ADMITTED_ATTRIBUTE},
     * which the Blade filter sets, spelled out because this bootstrap class names no Blade type (not even through a
     * constant: javac keeps a reference to the class); {@code GateBridgeTest} holds the two equal.
     */
    public static final String ADMITTED_ATTRIBUTE = "io.bladegc.gate.admitted";

    private static final LongAdder SHED_COUNT = new LongAdder();
    private static final BiConsumer<Object, Throwable> EXIT_WHEN_DONE = (result, failure) -> exit();
    private static volatile BooleanSupplier tryEnter;
    private static volatile Runnable leave;
    private static volatile LongSupplier retryAfterNanos;

    private GateBridge() {
    }

    /**
     * Connects the bridge to a gate.
     *
     * @param tryEnter        the gate's {@code tryEnter}
     * @param exit            the gate's {@code exit}
     * @param retryAfterNanos the node's retry hint, in nanoseconds
     */
    public static void install(BooleanSupplier tryEnter, Runnable exit, LongSupplier retryAfterNanos) {
        GateBridge.retryAfterNanos = retryAfterNanos;
        GateBridge.leave = exit;
        GateBridge.tryEnter = tryEnter;
    }

    /** @return {@link #ADMITTED}, {@link #SHED} (counted) or {@link #PASS} */
    public static int enter() {
        BooleanSupplier t = tryEnter;
        if (t == null) {
            return PASS;
        }
        if (t.getAsBoolean()) {
            return ADMITTED;
        }
        SHED_COUNT.increment();
        return SHED;
    }

    /** Marks one admitted request finished. */
    public static void exit() {
        leave.run();
    }

    /** @return a callback for a request's future that calls {@link #exit()} once the future completes */
    public static BiConsumer<Object, Throwable> exitWhenDone() {
        return EXIT_WHEN_DONE;
    }

    /** @return requests shed so far (answered 503, or {@code NotLeaderException} by a Ratis follower) */
    public static long shedCount() {
        return SHED_COUNT.sum();
    }

    /** @return {@code Retry-After}: the node's hint in whole seconds, as {@link RetryAfter#seconds} rounds it */
    public static String retryAfterSeconds() {
        return Long.toString(RetryAfter.seconds(RetryAfter.nanos(retryAfterNanos)));
    }

    /** @return {@code Blade-Retry-After-Ms}: the same hint in milliseconds, as {@link RetryAfter#millis} rounds it */
    public static String retryAfterMillis() {
        return Long.toString(RetryAfter.millis(RetryAfter.nanos(retryAfterNanos)));
    }

    /**
     * A listener that keeps an asynchronous request in flight until its async cycle completes, then leaves the gate
     * exactly once; it follows a restarted cycle by registering itself again.
     *
     * @param listenerType the container's {@code AsyncListener} interface (jakarta or javax)
     * @return an instance of {@code listenerType}
     */
    public static Object asyncListener(Class<?> listenerType) {
        return Proxy.newProxyInstance(listenerType.getClassLoader(), new Class<?>[] {listenerType},
            new InFlightUntilComplete(listenerType));
    }

    /** The proxy's behaviour: {@code onComplete} leaves, {@code onStartAsync} re-registers, the rest wait. */
    private static final class InFlightUntilComplete implements InvocationHandler {
        private final Class<?> listenerType;
        private final AtomicBoolean left = new AtomicBoolean();

        InFlightUntilComplete(Class<?> listenerType) {
            this.listenerType = listenerType;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            switch (method.getName()) {
                case "onComplete" -> leaveOnce();
                case "onStartAsync" -> followNewCycle(proxy, method, args[0]);
                case "equals" -> {
                    return proxy == args[0];
                }
                case "hashCode" -> {
                    return System.identityHashCode(proxy);
                }
                case "toString" -> {
                    return "Blade in-flight listener";
                }
                default -> {
                    // onTimeout, onError: onComplete always follows
                }
            }
            return null;
        }

        private void leaveOnce() {
            if (left.compareAndSet(false, true)) {
                exit();
            }
        }

        /** The container drops listeners when a new async cycle starts: add this one again to see the end. */
        private void followNewCycle(Object proxy, Method onStartAsync, Object event) {
            try {
                Method getContext = onStartAsync.getParameterTypes()[0].getMethod("getAsyncContext");
                Object context = getContext.invoke(event);
                getContext.getReturnType().getMethod("addListener", listenerType).invoke(context, proxy);
            } catch (ReflectiveOperationException | RuntimeException e) {
                leaveOnce(); // cannot follow the new cycle: leave now rather than hold the count up forever
            }
        }
    }
}
