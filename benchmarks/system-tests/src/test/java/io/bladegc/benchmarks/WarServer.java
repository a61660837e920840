package io.bladegc.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.bladegc.benchmarks.demo.GcRecorder;
import io.bladegc.benchmarks.demo.NodeStats;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.apache.catalina.startup.Tomcat;
import org.eclipse.jetty.ee10.webapp.WebAppContext;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * A servlet container serving a WAR at {@code /app}, in a child JVM of {@link ZeroCodeServletIT}: {@code WarServer
 * tomcat|tomcat9|jetty <war>}. It knows nothing of Blade; the agent, if attached, finds the container on its own. Beside the
 * container, a JDK HTTP server answers {@code GET /stats} (the JVM's GC notifications, and Blade's MBeans read
 * generically) for the test's audit. Prints {@code LISTENING <container port> <stats port>}; stops on SIGTERM.
 *
 * <p>With a third argument {@code once} it answers one request of its own and exits instead: the start-up cost of
 * the agent's instrumentation, measured as a whole process (the start-up figures in docs/attach.md).
 */
public final class WarServer {
    private WarServer() {
    }

    public static void main(String[] args) throws Exception {
        String container = args[0];
        Path war = Path.of(args[1]).toAbsolutePath();
        GcRecorder gc = new GcRecorder();
        Started server = switch (container) {
            case "tomcat", "tomcat9" -> TomcatContainer.start(war); // the same embedding API in Tomcat 9 and 10
            case "jetty" -> JettyContainer.start(war);
            default -> throw new IllegalArgumentException("usage: WarServer tomcat|tomcat9|jetty <war> [once]");
        };
        if (args.length > 2 && args[2].equals("once")) {
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + server.port() + "/app/work")).build(), BodyHandlers.ofString());
            System.out.println("FIRST ANSWER " + r.statusCode());
            server.close();
            gc.close();
            return;
        }
        HttpServer stats = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        ObjectMapper json = new ObjectMapper();
        stats.createContext("/stats", exchange -> {
            Map<String, Object> out = new LinkedHashMap<>();
            out.put("gcPauses", gc.events().stream().map(GcRecorder.GcEvent::toMap).toList());
            out.put("gcEventsDropped", gc.dropped());
            out.put("node", NodeStats.read());
            out.put("explicitGc", NodeStats.read("io.bladegc:type=ExplicitGc"));
            out.put("servletEntry", NodeStats.read("io.bladegc:type=ServletEntry"));
            out.put("uptimeMs", ManagementFactory.getRuntimeMXBean().getUptime());
            byte[] body = json.writeValueAsBytes(out);
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream o = exchange.getResponseBody()) {
                o.write(body);
            }
        });
        stats.start();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                stats.stop(0);
                server.close();
                gc.close();
            } catch (Exception e) {
                e.printStackTrace();
            }
            stopped.countDown();
        }));
        System.out.println("LISTENING " + server.port() + " " + stats.getAddress().getPort());
        System.out.flush();
        stopped.await();
    }

    /** A running container and its port. */
    private record Started(int port, AutoCloseable stop) implements AutoCloseable {
        @Override
        public void close() throws Exception {
            stop.close();
        }
    }

    /** Tomcat, in a class of its own: loading it must not need Jetty's classes, which the Tomcat 9 run lacks. */
    private static final class TomcatContainer {
        static Started start(Path war) throws Exception {
            Path base = Files.createTempDirectory("war-tomcat");
            Tomcat tomcat = new Tomcat();
            tomcat.setBaseDir(base.toString());
            tomcat.setHostname("127.0.0.1");
            tomcat.setPort(0);
            tomcat.getConnector().setProperty("address", "127.0.0.1");
            tomcat.getHost().setAppBase(base.toString());
            tomcat.setAddDefaultWebXmlToWebapp(false);
            tomcat.addWebapp("/app", war.toString());
            tomcat.start();
            return new Started(tomcat.getConnector().getLocalPort(), () -> {
                tomcat.stop();
                tomcat.destroy();
                DirectoryTree.delete(base);
            });
        }
    }

    /** Jetty, in a class of its own, for the same reason. */
    private static final class JettyContainer {
        static Started start(Path war) throws Exception {
            Server server = new Server();
            ServerConnector connector = new ServerConnector(server);
            connector.setHost("127.0.0.1");
            connector.setPort(0);
            server.addConnector(connector);
            WebAppContext app = new WebAppContext();
            app.setContextPath("/app");
            app.setWar(war.toString());
            server.setHandler(app);
            server.start();
            return new Started(connector.getLocalPort(), server::stop);
        }
    }
}
