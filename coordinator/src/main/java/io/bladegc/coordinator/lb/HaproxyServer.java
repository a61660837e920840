package io.bladegc.coordinator.lb;

import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * One HAProxy server, {@code backend/server}, that a node is; also the lock that orders the calls for its node.
 * {@link #mapping} checks a configuration's node-to-server map against HAProxy's rule for names, so nothing a
 * configuration says can add a second command ({@code ;}), a line break or an argument to a command line.
 *
 * <p>Immutable.
 */
final class HaproxyServer {

    /** HAProxy's rule for proxy and server names (configuration manual, section 4). */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.:-]+");

    private final String backend;
    private final String server;

    private HaproxyServer(String backend, String server) {
        this.backend = backend;
        this.server = server;
    }

    String backend() {
        return backend;
    }

    String server() {
        return server;
    }

    String target() {
        return backend + "/" + server;
    }

    /**
     * @param mapping node id -> {@code backend/server}
     * @return the same map validated, sorted by node, unmodifiable
     * @throws IllegalArgumentException naming the first bad entry: an empty map, a blank node id or one with control
     *     characters, a target that is not {@code backend/server} with valid names, two nodes on one server
     */
    static Map<String, HaproxyServer> mapping(Map<String, String> mapping) {
        if (mapping.isEmpty()) {
            throw new IllegalArgumentException(
                    "HAProxy adapter: no node is mapped to an HAProxy server; give each node as node=backend/server");
        }
        Map<String, HaproxyServer> out = new LinkedHashMap<>();
        Map<String, String> nodeByTarget = new HashMap<>();
        for (Map.Entry<String, String> e : new TreeMap<>(mapping).entrySet()) {
            String node = e.getKey();
            String target = e.getValue();
            if (node.isBlank() || node.chars().anyMatch(Character::isISOControl)) {
                throw new IllegalArgumentException("HAProxy adapter: node id '" + printable(node)
                        + "' is blank or contains control characters");
            }
            if (target == null) {
                throw new IllegalArgumentException("HAProxy adapter: node '" + node + "' has no backend/server");
            }
            int slash = target.indexOf('/');
            String backend = slash < 0 ? "" : target.substring(0, slash);
            String server = slash < 0 ? "" : target.substring(slash + 1);
            if (slash < 0 || !NAME.matcher(backend).matches() || !NAME.matcher(server).matches()) {
                throw new IllegalArgumentException("HAProxy adapter: node '" + node + "' maps to '" + printable(target)
                        + "', expected backend/server where both names use only letters, digits and - _ . :"
                        + " (HAProxy's rule for names; no spaces, ';', '\\' or line breaks)");
            }
            String previous = nodeByTarget.putIfAbsent(target, node);
            if (previous != null) {
                throw new IllegalArgumentException("HAProxy adapter: nodes '" + previous + "' and '" + node
                        + "' both map to " + target + "; each node needs its own server");
            }
            out.put(node, new HaproxyServer(backend, server));
        }
        return Collections.unmodifiableMap(out);
    }

    private static String printable(String s) {
        StringBuilder b = new StringBuilder();
        s.codePoints().forEach(c -> {
            if (Character.isISOControl(c)) {
                b.append(String.format("\\u%04x", c));
            } else {
                b.appendCodePoint(c);
            }
        });
        return b.toString();
    }
}
