package io.bladegc.agent.testapp;

import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.function.Supplier;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The application the agent integration tests start in a child JVM: prints {@code app ran}, then what the JDK-level
 * Blade channel (the platform MBean {@code io.bladegc:type=Node}) says: {@code blade node: <summary>}, or
 * {@code blade node: none} when no node runs. It knows nothing of Blade's classes, like any application.
 */
public final class TinyApp {
    private TinyApp() {
    }

    public static void main(String[] args) {
        System.out.println("app ran");
        System.out.println("blade node: " + nodeSummary());
    }

    private static String nodeSummary() {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName name = new ObjectName("io.bladegc:type=Node");
            if (!server.isRegistered(name)) {
                return "none";
            }
            Map<?, ?> channel = (Map<?, ?>) server.getAttribute(name, "Channel");
            return String.valueOf(((Supplier<?>) channel.get("summary")).get());
        } catch (Exception | LinkageError e) {
            return "unreadable (" + e + ")";
        }
    }
}
