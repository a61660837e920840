package io.bladegc.coordinator;

/** The member keys the coordinator's tests send: one fixed key per node id, derived from it. */
final class TestKeys {
    /** The header that carries a member key. */
    static final String HEADER = io.bladegc.coordinator.http.MemberKeyHeader.NAME;

    private TestKeys() {
    }

    /** @return the member key of {@code node} in these tests */
    static String of(String node) {
        String key = "key-of-" + node.replaceAll("[^A-Za-z0-9_-]", "_") + "-0123456789";
        return key.length() <= 128 ? key : key.substring(0, 128);
    }

    /** @return the key of the node a {@code /v1/nodes/{id}/...} path names, or {@code null} for any other path */
    static String forPath(String path) {
        String prefix = "/v1/nodes/";
        int end = path.indexOf('/', prefix.length());
        return path.startsWith(prefix) && end > 0 ? of(path.substring(prefix.length(), end)) : null;
    }
}
