package io.bladegc.benchmarks.docker;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;

/**
 * What the tests compare in an HAProxy configuration: the servers of each backend, the runtime API's TCP port
 * ({@code stats socket ipv4@host:port}) and the ports the frontends bind. Sections start at unindented lines;
 * {@code #} starts a comment. Immutable.
 *
 * @param servers       backend name to its servers, in order
 * @param statsPort     the port of the first TCP {@code stats socket}, if any
 * @param frontendPorts the ports of every {@code bind} in a frontend
 */
record HaproxyCfg(Map<String, List<Server>> servers, OptionalInt statsPort, List<Integer> frontendPorts) {

    /**
     * A {@code server} line.
     *
     * @param name its name ({@code s1})
     * @param host the address' host (a name or an IP)
     * @param port the address' port
     */
    record Server(String name, String host, int port) {
    }

    /** Parses a configuration's text. */
    static HaproxyCfg parse(String text) {
        Map<String, List<Server>> servers = new LinkedHashMap<>();
        OptionalInt stats = OptionalInt.empty();
        List<Integer> binds = new ArrayList<>();
        String section = "";
        String name = "";
        for (String raw : text.split("\n")) {
            int hash = raw.indexOf('#');
            String line = (hash >= 0 ? raw.substring(0, hash) : raw).stripTrailing();
            if (line.isBlank()) {
                continue;
            }
            String[] f = line.strip().split("\\s+");
            if (!Character.isWhitespace(line.charAt(0))) {
                section = f[0];
                name = f.length > 1 ? f[1] : "";
                continue;
            }
            if (section.equals("global") && f[0].equals("stats") && f.length > 2 && f[1].equals("socket")
                && f[2].startsWith("ipv4@") && stats.isEmpty()) {
                stats = OptionalInt.of(port(f[2]));
            } else if (section.equals("frontend") && f[0].equals("bind") && f.length > 1) {
                binds.add(port(f[1]));
            } else if (section.equals("backend") && f[0].equals("server") && f.length > 2) {
                String address = f[2];
                int colon = address.lastIndexOf(':');
                servers.computeIfAbsent(name, k -> new ArrayList<>())
                    .add(new Server(f[1], address.substring(0, colon), port(address)));
            }
        }
        return new HaproxyCfg(servers, stats, binds);
    }

    private static int port(String address) {
        return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
    }
}
