package io.bladegc.coordinator.slots;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;

/**
 * Each member's key: the secret that proves a call for a node comes from the process that joined as that node, so
 * that only a grant's holder can give it back or withdraw it, and only the node itself can leave, heartbeat or ask for
 * a slot. The shared bearer token says who may talk to the coordinator at all; a member key says which node a caller
 * is. A node that the ledger does not know (never joined, left, or lost with no grant left running) may join with a
 * key of its own choosing, or get one made here; from then on every call for it must carry that key until the ledger
 * forgets the node. Keys live in this process only: a replica that takes over (replicated mode) starts with none and
 * adopts, for each member the ledger has, the first key a call for it presents.
 *
 * <p>Keys are compared in constant time. Not thread-safe: the {@link SlotService} uses it from its executor only.
 */
final class MemberKeys {
    private static final int NEW_KEY_BYTES = 16;

    private final Map<String, byte[]> keys = new HashMap<>();
    private final SecureRandom random = new SecureRandom();

    /**
     * @param node      the node the call is for
     * @param presented the key the call carries, or {@code null}
     * @param known     whether the ledger knows the node (a member, or the holder of a running grant)
     * @return whether the call may go on: always for a node the ledger does not know (the ledger answers it); for a
     *     known node only with its key; a known node without a key here adopts the key presented, if any
     */
    boolean admits(String node, String presented, boolean known) {
        if (!known) {
            return true;
        }
        byte[] key = keys.get(node);
        if (key == null) {
            if (presented == null) {
                return false;
            }
            keys.put(node, bytes(presented));
            return true;
        }
        return presented != null && MessageDigest.isEqual(key, bytes(presented));
    }

    /**
     * Binds a key to a node that was not known and has just joined.
     *
     * @param presented the key the join carried, or {@code null} for one made here
     * @return the key made here, or {@code null} when {@code presented} was bound
     */
    String issue(String node, String presented) {
        String made = null;
        if (presented == null) {
            byte[] secret = new byte[NEW_KEY_BYTES];
            random.nextBytes(secret);
            made = Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
        }
        keys.put(node, bytes(made != null ? made : presented));
        return made;
    }

    /** The ledger no longer knows {@code node}: its key goes. */
    void forget(String node) {
        keys.remove(node);
    }

    /** Forgets every key (this replica starts or stops serving). */
    void clear() {
        keys.clear();
    }

    private static byte[] bytes(String key) {
        return key.getBytes(StandardCharsets.US_ASCII);
    }
}
