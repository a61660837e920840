package io.bladegc.api.jmx;

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
 * A read-only platform MBean whose attributes are a map of JDK-typed values, read afresh on every access: how Blade
 * shows its counters to jconsole and to copies of itself in other class loaders. Attributes in {@code unlisted} can
 * be read by name but are not listed in the MBean's info (the node's in-JVM {@code Channel}).
 *
 * <p>Thread-safe when the supplier is.
 */
public final class StatsMBean implements DynamicMBean {
    private final String description;
    private final Supplier<Map<String, Object>> attributes;
    private final Map<String, Object> unlisted;

    /**
     * @param description what it is, for the MBean info
     * @param attributes  the listed attributes, read on every access
     * @param unlisted    attributes readable by name only
     */
    public StatsMBean(String description, Supplier<Map<String, Object>> attributes, Map<String, Object> unlisted) {
        this.description = description;
        this.attributes = attributes;
        this.unlisted = Map.copyOf(unlisted);
    }

    /**
     * Registers it with the platform MBean server.
     *
     * @return {@code true} when registered, {@code false} when that name is taken (another copy published first)
     */
    public boolean publish(String objectName) {
        try {
            ManagementFactory.getPlatformMBeanServer().registerMBean(this, name(objectName));
            return true;
        } catch (InstanceAlreadyExistsException e) {
            return false;
        } catch (JMException e) {
            throw new IllegalStateException("cannot publish " + objectName, e);
        }
    }

    /** Removes the MBean of that name, if there is one. */
    public static void unpublish(String objectName) {
        try {
            ManagementFactory.getPlatformMBeanServer().unregisterMBean(name(objectName));
        } catch (InstanceNotFoundException e) {
            // already gone
        } catch (JMException e) {
            throw new IllegalStateException("cannot unpublish " + objectName, e);
        }
    }

    /** @return the name as an {@link ObjectName} */
    public static ObjectName name(String objectName) {
        try {
            return new ObjectName(objectName);
        } catch (JMException e) {
            throw new IllegalArgumentException("not an MBean name: " + objectName, e);
        }
    }

    @Override
    public Object getAttribute(String attribute) throws AttributeNotFoundException {
        Object v = unlisted.containsKey(attribute) ? unlisted.get(attribute) : attributes.get().get(attribute);
        if (v == null) {
            throw new AttributeNotFoundException(attribute);
        }
        return v;
    }

    @Override
    public void setAttribute(Attribute attribute) {
        throw new UnsupportedOperationException(description + ": read-only");
    }

    @Override
    public AttributeList getAttributes(String[] names) {
        Map<String, Object> now = attributes.get();
        AttributeList list = new AttributeList();
        for (String a : names) {
            Object v = unlisted.containsKey(a) ? unlisted.get(a) : now.get(a);
            if (v != null) {
                list.add(new Attribute(a, v));
            }
        }
        return list;
    }

    @Override
    public AttributeList setAttributes(AttributeList list) {
        return new AttributeList();
    }

    @Override
    public Object invoke(String actionName, Object[] params, String[] signature) {
        throw new UnsupportedOperationException(description + ": no operations");
    }

    @Override
    public MBeanInfo getMBeanInfo() {
        Map<String, Object> now = attributes.get();
        MBeanAttributeInfo[] infos = new MBeanAttributeInfo[now.size()];
        int i = 0;
        for (Map.Entry<String, Object> e : now.entrySet()) {
            infos[i++] = new MBeanAttributeInfo(e.getKey(), e.getValue().getClass().getName(), e.getKey(), true,
                false, false);
        }
        return new MBeanInfo(StatsMBean.class.getName(), description, infos, null, null, null);
    }
}
