package io.bladegc.benchmarks.demo;

import java.lang.management.ManagementFactory;
import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;

/**
 * Reads the Blade node's platform MBean ({@code io.bladegc:type=Node}), or another of Blade's, generically, through the
 * MBean server, so the demo needs no knowledge of Blade's counters: every readable attribute except {@code Channel}
 * (the in-JVM wiring).
 */
public final class NodeStats {
    static final String NODE_MBEAN = "io.bladegc:type=Node";
    /** The coordinated mode's counters (grants, overtaken, unscheduled, ...), published beside the node's. */
    static final String COORDINATION_MBEAN = "io.bladegc:type=Coordination";

    private NodeStats() {
    }

    /** @return attribute name to a JSON-friendly value; empty when no Blade node is published in this JVM */
    public static Map<String, Object> read() {
        return read(NODE_MBEAN);
    }

    /**
     * @param mbean the object name of one of Blade's MBeans, such as {@code io.bladegc:type=ExplicitGc}
     * @return attribute name to a JSON-friendly value; empty when that MBean is not published in this JVM
     */
    public static Map<String, Object> read(String mbean) {
        Map<String, Object> out = new LinkedHashMap<>();
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName name;
        try {
            name = new ObjectName(mbean);
        } catch (MalformedObjectNameException e) {
            throw new IllegalStateException(e);
        }
        try {
            if (!server.isRegistered(name)) {
                return out;
            }
            for (MBeanAttributeInfo attr : server.getMBeanInfo(name).getAttributes()) {
                if ("Channel".equals(attr.getName()) || !attr.isReadable()) {
                    continue;
                }
                try {
                    out.put(attr.getName(), toJson(server.getAttribute(name, attr.getName())));
                } catch (InstanceNotFoundException e) {
                    throw e;
                } catch (JMException | RuntimeException e) {
                    out.put(attr.getName(), "unreadable: " + e);
                }
            }
        } catch (InstanceNotFoundException e) {
            // unpublished while we read: report what we have
        } catch (JMException e) {
            out.put("error", e.toString());
        }
        return out;
    }

    /** Converts an attribute value into something Jackson writes plainly: arrays and collections as JSON arrays. */
    static Object toJson(Object v) {
        if (v == null || v instanceof Number || v instanceof Boolean || v instanceof String) {
            return v;
        }
        if (v.getClass().isArray()) {
            List<Object> list = new ArrayList<>();
            for (int i = 0, n = Array.getLength(v); i < n; i++) {
                list.add(toJson(Array.get(v, i)));
            }
            return list;
        }
        if (v instanceof Collection) {
            List<Object> list = new ArrayList<>();
            for (Object o : (Collection<?>) v) {
                list.add(toJson(o));
            }
            return list;
        }
        if (v instanceof Map) {
            Map<String, Object> map = new LinkedHashMap<>();
            ((Map<?, ?>) v).forEach((k, val) -> map.put(String.valueOf(k), toJson(val)));
            return map;
        }
        if (v instanceof CompositeData) {
            CompositeData cd = (CompositeData) v;
            Map<String, Object> map = new LinkedHashMap<>();
            for (String key : cd.getCompositeType().keySet()) {
                map.put(key, toJson(cd.get(key)));
            }
            return map;
        }
        if (v instanceof TabularData) {
            return toJson(((TabularData) v).values());
        }
        if (v instanceof Enum) {
            return ((Enum<?>) v).name();
        }
        return String.valueOf(v);
    }
}
