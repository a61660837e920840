package io.bladegc.benchmarks.cluster;

import java.io.IOException;
import java.net.ServerSocket;

/** Loopback ports for the processes a harness starts. */
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
}
