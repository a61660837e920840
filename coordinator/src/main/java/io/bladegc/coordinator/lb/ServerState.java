package io.bladegc.coordinator.lb;

import io.bladegc.coordinator.lb.HaproxyRuntimeApi.AdminState;

/** One server's line of {@code show servers state}. */
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
}
