package io.bladegc.servlet;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/** An embedded Jetty 12 (ee10) server for the tests, with an HTTP/1.1 client; {@link #close()} stops the server. */
final class JettyApp implements AutoCloseable {
    static final String CONTEXT = "/app";

    private final Server server;
    private final HttpClient client = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5))
        .build();

    private JettyApp(Server server) {
        this.server = server;
    }

    /** A context at {@value #CONTEXT}, the filter on {@code /*} for every dispatcher type, async supported. */
    static ServletContextHandler context(String contextPath, Filter filter, Map<String, String> initParams) {
        ServletContextHandler context = new ServletContextHandler();
        context.setContextPath(contextPath);
        FilterHolder holder = new FilterHolder(filter);
        holder.setName("blade");
        holder.setAsyncSupported(true);
        holder.setInitParameters(initParams);
        context.addFilter(holder, "/*", EnumSet.allOf(DispatcherType.class));
        return context;
    }

    static void servlet(ServletContextHandler context, String path, HttpServlet servlet) {
        ServletHolder holder = new ServletHolder(servlet);
        holder.setAsyncSupported(true);
        context.addServlet(holder, path);
    }

    /** Starts a server on an ephemeral port; stops it again if start-up fails. */
    static JettyApp start(Handler handler) throws Exception {
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setPort(0);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        server.setHandler(handler);
        try {
            server.start();
        } catch (Exception e) {
            server.stop();
            throw e;
        }
        return new JettyApp(server);
    }

    URI uri(String path) {
        int port = ((ServerConnector) server.getConnectors()[0]).getLocalPort();
        return URI.create("http://127.0.0.1:" + port + path);
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
            server.stop(); // the client (Java 17: no close()) lets go of its daemon threads when unreachable
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while stopping Jetty", e);
        } catch (Exception e) {
            throw new IllegalStateException("cannot stop Jetty", e);
        }
    }
}
