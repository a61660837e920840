package io.bladegc.benchmarks.demo;

import io.bladegc.benchmarks.DirectoryTree;
import io.bladegc.servlet.BladeFilter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.catalina.Context;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;

/**
 * The demo service's {@code /work} on an embedded Tomcat 10.1 instead of Jetty, behind Blade's filter with
 * {@code --blade on}: {@code benchmarks/tomcat-503.sh} puts it beside {@link DemoServer} to measure what Tomcat's
 * {@code Connection: close} after every 503 costs behind HAProxy. It lives in the test sources because Tomcat is a
 * test dependency of this module.
 *
 * <p>Takes {@link DemoServer}'s options ({@code --threads} is Tomcat's {@code maxThreads}; {@code --gc-overlap} is
 * ignored) and the system property {@value #MAX_KEEP_ALIVE_PROPERTY} (the connector's {@code maxKeepAliveRequests}:
 * Tomcat closes a connection after that many requests, 100 by default, -1 never), listens on 127.0.0.1 and prints
 * {@code LISTENING <port>} once it accepts requests. Only {@code /work} is
 * served (and, with the filter, nothing else: Tomcat runs filters only where a servlet is mapped). Stops on SIGTERM.
 */
public final class TomcatDemoServer {
    /** The system property that sets the connector's {@code maxKeepAliveRequests}; Tomcat's default when absent. */
    static final String MAX_KEEP_ALIVE_PROPERTY = "maxKeepAliveRequests";

    private TomcatDemoServer() {
    }

    public static void main(String[] args) throws Exception {
        DemoServer.Options options = DemoServer.Options.parse(args);
        Workload workload = new Workload(options.liveMb(), options.garbageKb(), options.churnKb(),
            options.objectBytes());
        Path base = Files.createTempDirectory("blade-tomcat-demo");
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(base.toString());
        tomcat.setPort(options.port());
        tomcat.getConnector().setProperty("address", "127.0.0.1");
        tomcat.getConnector().setProperty("maxThreads", Integer.toString(options.threads()));
        String maxKeepAlive = System.getProperty(MAX_KEEP_ALIVE_PROPERTY);
        if (maxKeepAlive != null) {
            tomcat.getConnector().setProperty("maxKeepAliveRequests", maxKeepAlive);
        }
        Context context = tomcat.addContext("", base.toString());
        Tomcat.addServlet(context, "work", new DemoServer.WorkServlet(workload));
        context.addServletMappingDecoded("/work", "work");
        if (options.blade()) {
            addBladeFilter(context);
        }
        tomcat.start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                tomcat.stop();
                tomcat.destroy();
                DirectoryTree.delete(base);
            } catch (Exception e) {
                e.printStackTrace();
            }
        }));
        System.out.println("LISTENING " + tomcat.getConnector().getLocalPort());
        System.out.flush();
        tomcat.getServer().await();
    }

    private static void addBladeFilter(Context context) {
        FilterDef def = new FilterDef();
        def.setFilterName("blade");
        def.setFilter(new BladeFilter());
        def.setAsyncSupported("true");
        context.addFilterDef(def);
        FilterMap map = new FilterMap();
        map.setFilterName("blade");
        map.addURLPatternDecoded("/*");
        context.addFilterMap(map);
    }
}
