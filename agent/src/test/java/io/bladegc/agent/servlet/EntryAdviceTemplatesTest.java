package io.bladegc.agent.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.agent.bridge.GateBridge;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The one advice template and its javax twin: the twin names no Jakarta type, and both, called as Byte Buddy would
 * inline them, shed, admit and mark, and keep an async request in flight until it completes, on their own API.
 */
class EntryAdviceTemplatesTest {
    private final AtomicInteger left = new AtomicInteger();
    private volatile boolean open;

    @BeforeEach
    void install() {
        GateBridge.install(() -> open, left::incrementAndGet, () -> 1_500_000_000L);
    }

    @ParameterizedTest
    @ValueSource(strings = {"jakarta", "javax"})
    void aClosedGateShedsWithTheFiltersAnswer(String api) throws Exception {
        Exchange x = new Exchange(api, false);
        assertThat(enter(api, x)).as("skip the method").isTrue();
        assertThat(x.status).isEqualTo(503);
        assertThat(x.headers).containsEntry("Retry-After", "2").containsEntry("Blade-Retry-After-Ms", "1500")
            .containsEntry("Cache-Control", "no-store").containsEntry("Content-Type", "text/plain;charset=UTF-8");
        assertThat(x.body.toString()).isEqualTo("draining");
        assertThat(x.attributes).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"jakarta", "javax"})
    void anAdmittedRequestIsMarkedAndLeavesOnExit(String api) throws Exception {
        open = true;
        Exchange x = new Exchange(api, false);
        assertThat(enter(api, x)).isFalse();
        assertThat(x.attributes).containsEntry(GateBridge.ADMITTED_ATTRIBUTE, Boolean.TRUE);
        assertThat(x.status).as("untouched").isZero();
        exit(api, x, true);
        assertThat(left).hasValue(1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"jakarta", "javax"})
    void anAsyncRequestLeavesWhenItsCycleCompletes(String api) throws Exception {
        open = true;
        Exchange x = new Exchange(api, true);
        assertThat(enter(api, x)).isFalse();
        exit(api, x, true);
        assertThat(left).as("still in flight").hasValue(0);
        assertThat(x.listeners).singleElement()
            .isInstanceOf(Class.forName(api + ".servlet.AsyncListener"));
        Object listener = x.listeners.get(0);
        listener.getClass().getMethod("onComplete", Class.forName(api + ".servlet.AsyncEvent"))
            .invoke(listener, (Object) null);
        assertThat(left).hasValue(1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"jakarta", "javax"})
    void aMarkedRequestPassesUncounted(String api) throws Exception {
        Exchange x = new Exchange(api, false);
        x.attributes.put(GateBridge.ADMITTED_ATTRIBUTE, Boolean.TRUE);
        assertThat(enter(api, x)).as("a closed gate does not shed it").isFalse();
        assertThat(x.status).isZero();
    }

    @Test
    void theJavaxTwinNamesNoJakartaType() throws Exception {
        String twin = new String(EntryAdviceTemplates.javaxTemplate(getClass().getClassLoader()),
            StandardCharsets.ISO_8859_1);
        assertThat(twin).doesNotContain("jakarta/").contains("javax/servlet/ServletRequest")
            .contains("javax/servlet/http/HttpServletResponse").contains("io/bladegc/agent/servlet/JavaxEntryAdvice")
            .doesNotContain("io/bladegc/agent/servlet/EntryAdvice;");
    }

    private static boolean enter(String api, Exchange x) throws Exception {
        return (Boolean) method(api, "enter").invoke(null, x.request, x.response, false);
    }

    private static void exit(String api, Exchange x, boolean admitted) throws Exception {
        method(api, "exit").invoke(null, x.request, admitted);
    }

    /** The template's method, from the class Byte Buddy reads for that API. */
    private static Method method(String api, String name) throws Exception {
        Class<?> advice = api.equals("jakarta") ? EntryAdvice.class : new TemplateLoader().javax();
        for (Method m : advice.getDeclaredMethods()) {
            if (m.getName().equals(name)) {
                m.setAccessible(true);
                return m;
            }
        }
        throw new AssertionError(name);
    }

    /** Loads the javax twin, which is only ever read as a template in production, to call it. */
    private static final class TemplateLoader extends ClassLoader {
        TemplateLoader() {
            super(EntryAdviceTemplatesTest.class.getClassLoader());
        }

        Class<?> javax() throws Exception {
            byte[] b = EntryAdviceTemplates.javaxTemplate(getParent());
            return defineClass(EntryAdviceTemplates.JAVAX, b, 0, b.length);
        }
    }

    /** A request and its response of one servlet API, as proxies that record what the advice does to them. */
    private static final class Exchange {
        final Map<String, Object> attributes = new HashMap<>();
        final Map<String, String> headers = new HashMap<>();
        final List<Object> listeners = new ArrayList<>();
        final StringWriter body = new StringWriter();
        int status;
        final Object request;
        final Object response;

        @SuppressWarnings({"unchecked", "rawtypes"})
        Exchange(String api, boolean async) throws Exception {
            Class<?> dispatcherType = Class.forName(api + ".servlet.DispatcherType");
            Object context = proxy(api + ".servlet.AsyncContext", (m, args) -> {
                if (m.equals("addListener")) {
                    listeners.add(args[0]);
                }
                return null;
            });
            request = proxy(api + ".servlet.ServletRequest", (m, args) -> switch (m) {
                case "getDispatcherType" -> Enum.valueOf((Class) dispatcherType, "REQUEST");
                case "getAttribute" -> attributes.get((String) args[0]);
                case "setAttribute" -> attributes.put((String) args[0], args[1]);
                case "isAsyncStarted" -> async;
                case "getAsyncContext" -> context;
                default -> throw new UnsupportedOperationException(m);
            });
            response = proxy(api + ".servlet.http.HttpServletResponse", (m, args) -> switch (m) {
                case "setStatus" -> status = (Integer) args[0];
                case "setHeader" -> headers.put((String) args[0], (String) args[1]);
                case "setContentType" -> headers.put("Content-Type", (String) args[0]);
                case "getWriter" -> new PrintWriter(body, true);
                default -> throw new UnsupportedOperationException(m);
            });
        }

        private static Object proxy(String type, Handler handler) throws ClassNotFoundException {
            return Proxy.newProxyInstance(EntryAdviceTemplatesTest.class.getClassLoader(),
                new Class<?>[] {Class.forName(type)}, (p, m, args) -> handler.handle(m.getName(), args));
        }
    }

    private interface Handler {
        Object handle(String method, Object[] args);
    }
}
