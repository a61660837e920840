package io.bladegc.coordinator;

import io.bladegc.coordinator.lb.LoadBalancer;
import java.util.Objects;

/**
 * What the coordinator runs with, as {@link CoordinatorCommandLine} read it from the command line, the environment
 * and the configuration file. Immutable.
 *
 * @param config        the server and the slot policy
 * @param loadBalancer  the adapter that takes a collecting node out of rotation ({@code --haproxy}), or generic mode
 * @param replication   the replicated mode's settings ({@code --peers}), or {@code null} when standalone
 */
record CoordinatorOptions(CoordinatorConfig config, LoadBalancer loadBalancer,
                          CoordinatorReplica.Settings replication) {
    CoordinatorOptions {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(loadBalancer, "loadBalancer");
    }
}
