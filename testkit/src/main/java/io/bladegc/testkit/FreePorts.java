package io.bladegc.testkit;

import java.io.IOException;
import java.net.ServerSocket;

/**
 * Ports with nothing listening on them, for the processes and servers a test or a harness starts, and for a test that
 * needs an address where a connection is refused. Each port is bound on the wildcard address while it is chosen, so
 * it is free on loopback too. Another process may still take a port before its user binds it. Thread-safe.
 */
public final class FreePorts {
    private FreePorts() {
    }

    /**
     * Ports free at once: all are held open together while they are chosen, so no two are the same. Another process
     * may still take one before its user binds it.
     *
     * @param n how many
     */
    public static int[] take(int n) throws IOException {
        ServerSocket[] held = new ServerSocket[n];
        int[] ports = new int[n];
        try {
            for (int i = 0; i < n; i++) {
                held[i] = new ServerSocket(0);
                ports[i] = held[i].getLocalPort();
            }
        } finally {
            for (ServerSocket s : held) {
                if (s != null) {
                    s.close();
                }
            }
        }
        return ports;
    }

    /** One free port; {@code take(1)[0]}. */
    public static int one() throws IOException {
        return take(1)[0];
    }
}
