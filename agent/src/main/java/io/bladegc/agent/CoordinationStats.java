package io.bladegc.agent;

import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.function.Supplier;
import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.DynamicMBean;
import javax.management.InstanceAlreadyExistsException;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.ObjectName;

/**
 * The coordinated mode's counters as the read-only platform MBean {@value #NAME}, beside the node's own
 * {@code io.bladegc:type=Node}: {@code Coordinator}, {@code NodeId}, {@code CoordinatorUp}, {@code Grants},
 * {@code QueuedWaits}, {@code FailOpens}, {@code Cancels}, {@code Fenced}, {@code StaleReleases}, {@code Rejoins},
 * {@code LastEvent} (the last GC event's log line). JDK types only.
 *
 * <p>Thread-safe (reads a thread-safe supplier).
 */
final class CoordinationStats implements DynamicMBean {
    static final String NAME = "io.bladegc:type=Coordination";

    private final Supplier<Map<String, Object>> stats;

    private CoordinationStats(Supplier<Map<String, Object>> stats) {
        this.stats = stats;
    }

    /** @return whether it was published (not when another copy published it first) */
    static boolean publish(Supplier<Map<String, Object>> stats) {
        try {
            ManagementFactory.getPlatformMBeanServer().registerMBean(new CoordinationStats(stats), name());
            return true;
        } catch (InstanceAlreadyExistsException e) {
            return false;
        } catch (JMException e) {
            throw new IllegalStateException("cannot publish " + NAME, e);
        }
    }

    static void unpublish() {
        try {
            ManagementFactory.getPlatformMBeanServer().unregisterMBean(name());
        } catch (InstanceNotFoundException e) {
            // already gone
        } catch (JMException e) {
            throw new IllegalStateException("cannot unpublish " + NAME, e);
        }
    }

    static ObjectName name() {
        try {
            return new ObjectName(NAME);
        } catch (JMException e) {
            throw new AssertionError(e);
        }
    }

    @Override
    public Object getAttribute(String attribute) throws AttributeNotFoundException {
        Object v = stats.get().get(attribute);
        if (v == null) {
            throw new AttributeNotFoundException(attribute);
        }
        return v;
    }

    @Override
    public void setAttribute(Attribute attribute) {
        throw new UnsupportedOperationException("the Blade coordination MBean is read-only");
    }

    @Override
    public AttributeList getAttributes(String[] attributes) {
        Map<String, Object> now = stats.get();
        AttributeList list = new AttributeList();
        for (String a : attributes) {
            if (now.containsKey(a)) {
                list.add(new Attribute(a, now.get(a)));
            }
        }
        return list;
    }

    @Override
    public AttributeList setAttributes(AttributeList attributes) {
        return new AttributeList();
    }

    @Override
    public Object invoke(String actionName, Object[] params, String[] signature) {
        throw new UnsupportedOperationException("the Blade coordination MBean has no operations");
    }

    @Override
    public MBeanInfo getMBeanInfo() {
        Map<String, Object> now = stats.get();
        MBeanAttributeInfo[] attrs = new MBeanAttributeInfo[now.size()];
        int i = 0;
        for (Map.Entry<String, Object> e : now.entrySet()) {
            attrs[i++] = new MBeanAttributeInfo(e.getKey(), e.getValue().getClass().getName(), e.getKey(), true,
                false, false);
        }
        return new MBeanInfo(CoordinationStats.class.getName(), "Blade coordinated mode", attrs, null, null, null);
    }
}
