package io.bladegc.agent;

import java.lang.management.ManagementFactory;
import java.util.function.LongSupplier;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * What the coordinated mode reads from the node besides the {@link io.bladegc.api.BladeNode} API: the count of
 * memory-reclaiming collections (to notice that the JVM collected on its own while the node waited for a grant) and
 * the watcher's current lead time (the urgency sent with {@code acquire}). In the agent both come from the node's
 * platform MBean {@code io.bladegc:type=Node} (attributes {@code Collections} and {@code LeadTimeMs}); tests pass
 * their own.
 *
 * <p>Thread-safe when its suppliers are.
 */
final class NodeProbe {
    private static final String NODE_MBEAN = "io.bladegc:type=Node";

    private final LongSupplier collections;
    private final LongSupplier leadTimeMillis;

    /**
     * @param collections    reclaiming collections so far, or -1 when unknown
     * @param leadTimeMillis the predicted time until the JVM collects on its own, or -1 when unknown
     */
    NodeProbe(LongSupplier collections, LongSupplier leadTimeMillis) {
        this.collections = collections;
        this.leadTimeMillis = leadTimeMillis;
    }

    /** @return a probe reading the node MBean of this JVM */
    static NodeProbe fromNodeMBean() {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName name;
        try {
            name = new ObjectName(NODE_MBEAN);
        } catch (JMException e) {
            throw new AssertionError(e);
        }
        return new NodeProbe(() -> read(server, name, "Collections"), () -> read(server, name, "LeadTimeMs"));
    }

    private static long read(MBeanServer server, ObjectName name, String attribute) {
        try {
            return server.getAttribute(name, attribute) instanceof Number n ? n.longValue() : -1;
        } catch (JMException | RuntimeException e) {
            return -1;
        }
    }

    /** @return reclaiming collections so far, or -1 when unknown */
    long collections() {
        try {
            return collections.getAsLong();
        } catch (RuntimeException e) {
            return -1;
        }
    }

    /** @return the predicted time until the JVM collects on its own, or -1 when unknown */
    long leadTimeMillis() {
        try {
            return leadTimeMillis.getAsLong();
        } catch (RuntimeException e) {
            return -1;
        }
    }
}
