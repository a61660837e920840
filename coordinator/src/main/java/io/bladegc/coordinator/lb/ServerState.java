package io.bladegc.coordinator.lb;

import io.bladegc.coordinator.lb.HaproxyRuntimeApi.AdminState;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** One server's line of {@code show servers state}. Immutable. */
public record ServerState(String backend, String server, int operationalState, int adminFlags) {

    /** {@code srv_admin_state} bits (management guide, "show servers state"). */
    public static final int FMAINT = 0x01;
    public static final int IMAINT = 0x02;
    public static final int CMAINT = 0x04;
    public static final int FDRAIN = 0x08;
    public static final int IDRAIN = 0x10;
    public static final int RMAINT = 0x20;

    private static final int ANY_MAINT = FMAINT | IMAINT | CMAINT | RMAINT;
    private static final int ANY_DRAIN = FDRAIN | IDRAIN;

    /** MAINT when any maintenance bit is set, else DRAIN when any drain bit is, else READY. */
    public AdminState adminState() {
        if ((adminFlags & ANY_MAINT) != 0) {
            return AdminState.MAINT;
        }
        if ((adminFlags & ANY_DRAIN) != 0) {
            return AdminState.DRAIN;
        }
        return AdminState.READY;
    }

    /** {@code srv_op_state}: STOPPED (0), STARTING (1), RUNNING (2), STOPPING (3). */
    public String operationalName() {
        switch (operationalState) {
            case 0: return "STOPPED";
            case 1: return "STARTING";
            case 2: return "RUNNING";
            case 3: return "STOPPING";
            default: return "UNKNOWN(" + operationalState + ")";
        }
    }

    /** Whether HAProxy load-balances new requests to this server: up (or warming up) and administratively ready. */
    public boolean inRotation() {
        return adminState() == AdminState.READY && (operationalState == 1 || operationalState == 2);
    }

    @Override
    public String toString() {
        return backend + "/" + server + " " + operationalName() + " " + adminState()
                + " (admin 0x" + Integer.toHexString(adminFlags) + ")";
    }

    /**
     * Parses the answer to {@code show servers state}: a format version line, a header line {@code # be_id be_name ...}
     * naming the columns, then one line per server. Columns are found by name, so later format versions that add
     * columns still parse.
     *
     * @return the servers by {@code backend/server}
     * @throws IllegalArgumentException saying what is wrong with the answer
     */
    static Map<String, ServerState> parseAll(String answer) {
        List<String> lines = answer.lines().map(String::strip).filter(l -> !l.isEmpty()).collect(Collectors.toList());
        if (lines.isEmpty()) {
            throw new IllegalArgumentException("answered nothing");
        }
        if (!lines.get(0).matches("\\d+")) {
            throw new IllegalArgumentException("answered: " + LoadBalancerException.oneLine(answer.strip()));
        }
        int backendCol = -1;
        int serverCol = -1;
        int opCol = -1;
        int adminCol = -1;
        Map<String, ServerState> out = new HashMap<>();
        for (String line : lines.subList(1, lines.size())) {
            if (line.startsWith("#")) {
                List<String> header = Arrays.asList(line.substring(1).strip().split("\\s+"));
                backendCol = header.indexOf("be_name");
                serverCol = header.indexOf("srv_name");
                opCol = header.indexOf("srv_op_state");
                adminCol = header.indexOf("srv_admin_state");
                continue;
            }
            if (backendCol < 0 || serverCol < 0 || opCol < 0 || adminCol < 0) {
                throw new IllegalArgumentException("answered without a header naming be_name, srv_name, srv_op_state"
                        + " and srv_admin_state (format version " + lines.get(0) + ")");
            }
            String[] fields = line.split("\\s+");
            int needed = Math.max(Math.max(backendCol, serverCol), Math.max(opCol, adminCol));
            if (fields.length <= needed) {
                throw new IllegalArgumentException("answered a short line: " + line);
            }
            try {
                ServerState state = new ServerState(fields[backendCol], fields[serverCol],
                        Integer.parseInt(fields[opCol]), Integer.parseInt(fields[adminCol]));
                out.put(state.backend() + "/" + state.server(), state);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("answered a line with a non-numeric state: " + line, e);
            }
        }
        return out;
    }
}
