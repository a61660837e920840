package io.bladegc.coordinator.lb;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.util.Objects;

/** Where the runtime API listens: a unix socket or a TCP address. */
public final class RuntimeApiEndpoint {
    private final Path unixPath;
    private final String host;
    private final int port;

    private RuntimeApiEndpoint(Path unixPath, String host, int port) {
        this.unixPath = unixPath;
        this.host = host;
        this.port = port;
    }

    public static RuntimeApiEndpoint unix(Path path) {
        return new RuntimeApiEndpoint(Objects.requireNonNull(path, "path"), null, -1);
    }

    public static RuntimeApiEndpoint tcp(String host, int port) {
        Objects.requireNonNull(host, "host");
        if (host.isBlank() || port < 1 || port > 65535) {
            throw new IllegalArgumentException("HAProxy runtime API address needs a host and a port 1-65535, was "
                    + host + ":" + port);
        }
        return new RuntimeApiEndpoint(null, host, port);
    }

    /**
     * Reads {@code /path/admin.sock}, {@code unix:/path} or {@code unix@/path} as a unix socket and
     * {@code host:port}, {@code [ipv6]:port}, {@code tcp:host:port}, {@code ipv4@host:port} or
     * {@code ipv6@[addr]:port} as TCP (so the address of a {@code stats socket} line can be copied as it is).
     */
    public static RuntimeApiEndpoint parse(String text) {
        Objects.requireNonNull(text, "endpoint");
        String s = text.strip();
        for (String prefix : new String[] {"unix:", "unix@"}) {
            if (s.startsWith(prefix)) {
                return unix(nonEmptyPath(s.substring(prefix.length()), text));
            }
        }
        if (s.startsWith("/") || s.startsWith("./")) {
            return unix(nonEmptyPath(s, text));
        }
        for (String prefix : new String[] {"tcp:", "ipv4@", "ipv6@"}) {
            if (s.startsWith(prefix)) {
                s = s.substring(prefix.length());
                break;
            }
        }
        int colon = s.lastIndexOf(':');
        if (colon <= 0 || colon == s.length() - 1) {
            throw new IllegalArgumentException("HAProxy runtime API endpoint '" + text
                    + "': expected a unix socket path (/run/haproxy/admin.sock) or host:port (127.0.0.1:9999)");
        }
        String host = s.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(s.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("HAProxy runtime API endpoint '" + text + "': port is not a number");
        }
        return tcp(host, port);
    }

    private static Path nonEmptyPath(String path, String text) {
        if (path.isBlank()) {
            throw new IllegalArgumentException("HAProxy runtime API endpoint '" + text + "': empty socket path");
        }
        return Path.of(path);
    }

    public boolean isUnix() {
        return unixPath != null;
    }

    SocketChannel open() throws IOException {
        return isUnix() ? SocketChannel.open(StandardProtocolFamily.UNIX) : SocketChannel.open();
    }

    SocketAddress address() throws IOException {
        if (isUnix()) {
            return UnixDomainSocketAddress.of(unixPath);
        }
        InetSocketAddress address = new InetSocketAddress(host, port);
        if (address.isUnresolved()) {
            throw new IOException("cannot resolve host " + host);
        }
        return address;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RuntimeApiEndpoint && toString().equals(o.toString());
    }

    @Override
    public int hashCode() {
        return toString().hashCode();
    }

    @Override
    public String toString() {
        if (isUnix()) {
            return "unix:" + unixPath;
        }
        return "tcp:" + (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
