package io.bladegc.servlet.javax;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import javax.servlet.DispatcherType;
import javax.servlet.Filter;
import javax.servlet.http.HttpServlet;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.core.StandardContext;
import org.apache.catalina.servlets.DefaultServlet;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;

/**
 * An embedded Tomcat 9 for the tests, on 127.0.0.1 and an ephemeral port, with one context at {@value #CONTEXT} (with
 * Tomcat's default servlet on {@code /}) and an HTTP/1.1 client. Build it with {@link #filter} and {@link #servlet},
 * then {@link #start()}; {@link #close()} stops Tomcat and deletes its base directory.
 */
final class TomcatApp implements AutoCloseable {
    static final String CONTEXT = "/app";

    private final Path baseDir;
    private final Tomcat tomcat = new Tomcat();
    private final Connector connector = new Connector("HTTP/1.1");
    private final Context context;
    private final HttpClient client = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5))
        .build();

    TomcatApp() throws IOException {
        baseDir = Files.createTempDirectory("blade-tomcat");
        tomcat.setBaseDir(baseDir.toString());
        connector.setPort(0);
        connector.setProperty("address", "127.0.0.1");
        tomcat.setConnector(connector);
        Path docBase = Files.createDirectory(baseDir.resolve("docs"));
        StandardContext standard = (StandardContext) tomcat.addContext(CONTEXT, docBase.toString());
        // leak detection that needs --add-opens and says so on every stop; nothing here for it to find
        standard.setClearReferencesObjectStreamClassCaches(false);
        standard.setClearReferencesThreadLocals(false);
        standard.setClearReferencesRmiTargets(false);
        context = standard;
        // As a standalone Tomcat's conf/web.xml does: without a servlet for a path, Tomcat answers 404 before any
        // filter runs, and the readiness endpoint is no servlet's path.
        Tomcat.addServlet(context, "default", new DefaultServlet());
        context.addServletMapping("/", "default");
    }

    /**
     * Maps a filter, async supported, for every dispatcher type; filters run in the order they were added.
     *
     * @param urlPattern where it is mapped, e.g. {@code /*}
     */
    TomcatApp filter(String name, Filter filter, String urlPattern, Map<String, String> initParams) {
        FilterDef def = new FilterDef();
        def.setFilterName(name);
        def.setFilter(filter);
        def.setAsyncSupported("true");
        initParams.forEach(def::addInitParameter);
        context.addFilterDef(def);
        FilterMap map = new FilterMap();
        map.setFilterName(name);
        map.addURLPattern(urlPattern);
        for (DispatcherType type : DispatcherType.values()) {
            map.setDispatcher(type.name());
        }
        context.addFilterMap(map);
        return this;
    }

    /** Maps a servlet, async supported, on the given path. */
    TomcatApp servlet(String path, HttpServlet servlet) {
        String name = "servlet" + path.replace('/', '-');
        Tomcat.addServlet(context, name, servlet).setAsyncSupported(true);
        context.addServletMapping(path, name);
        return this;
    }

    /** Starts Tomcat; stops it again (and cleans up) if start-up fails. */
    TomcatApp start() throws Exception {
        try {
            tomcat.start();
        } catch (LifecycleException | RuntimeException e) {
            close();
            throw e;
        }
        if (connector.getLocalPort() <= 0) {
            close();
            throw new IllegalStateException("Tomcat's connector did not bind: " + connector.getStateName());
        }
        return this;
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + connector.getLocalPort() + path);
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return client.send(request(path), HttpResponse.BodyHandlers.ofString());
    }

    CompletableFuture<HttpResponse<String>> getAsync(String path) {
        return client.sendAsync(request(path), HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest request(String path) {
        return HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(20)).GET().build();
    }

    @Override
    public void close() {
        try {
            tomcat.stop();
            tomcat.destroy();
        } catch (LifecycleException e) {
            throw new IllegalStateException("cannot stop Tomcat", e);
        } finally {
            // the first Tomcat in a JVM sets these to its base directory and the next one would create it again
            for (String key : new String[] {"catalina.base", "catalina.home"}) {
                if (baseDir.toString().equals(System.getProperty(key))) {
                    System.clearProperty(key);
                }
            }
            deleteBaseDir();
        }
    }

    private void deleteBaseDir() {
        try (Stream<Path> files = Files.walk(baseDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new IllegalStateException("cannot delete " + baseDir, e);
        }
    }
}
