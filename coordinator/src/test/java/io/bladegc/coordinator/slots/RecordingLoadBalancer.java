package io.bladegc.coordinator.slots;

import io.bladegc.coordinator.lb.LoadBalancer;
import io.bladegc.coordinator.lb.LoadBalancerException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** A load balancer that records its calls ("drain a", "ready a"), and fails for the nodes it is told to. */
public final class RecordingLoadBalancer implements LoadBalancer {
    private final List<String> calls = new ArrayList<>();
    private final Set<String> failing = ConcurrentHashMap.newKeySet();

    @Override
    public synchronized void drain(String node) {
        calls.add("drain " + node);
        fail(node, "drain");
    }

    @Override
    public synchronized void ready(String node) {
        calls.add("ready " + node);
        fail(node, "ready");
    }

    @Override
    public String describe() {
        return "recording load balancer";
    }

    public synchronized List<String> calls() {
        return List.copyOf(calls);
    }

    public void failFor(String node) {
        failing.add(node);
    }

    private void fail(String node, String op) {
        if (failing.contains(node)) {
            throw new LoadBalancerException("test failure for " + node, node, op, null, null);
        }
    }
}
