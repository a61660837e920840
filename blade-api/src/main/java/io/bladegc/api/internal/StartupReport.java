package io.bladegc.api.internal;

import java.util.ArrayList;
import java.util.List;

/** The start-up warnings: what Blade can and cannot do with this collector and these flags. */
final class StartupReport {
    private StartupReport() {
    }

    static List<String> warn(HeapLayout layout, GcTrigger trigger) {
        List<String> w = new ArrayList<>();
        switch (layout.kind()) {
            case ZGC, ZGC_GENERATIONAL, SHENANDOAH -> w.add("Blade: " + layout.kind().displayName()
                + " is a low-pause collector: its collections run concurrently and its pauses are already short, "
                + "so Blade only observes and forces nothing. For Blade's benefit use a stop-the-world collector "
                + "(-XX:+UseParallelGC or -XX:+UseSerialGC) with a fixed young generation (-Xmn) that leaves the old "
                + "generation room for what a young collection promotes.");
            case EPSILON -> w.add("Blade: Epsilon never collects; Blade has nothing to schedule and only observes.");
            case UNKNOWN -> w.add("Blade: unknown collector (beans: " + layout.beanNames()
                + "); Blade only observes.");
            default -> {
            }
        }
        if (trigger.explicitGcDisabled()) {
            w.add("Blade: -XX:+DisableExplicitGC is set: old collections are forced through the DiagnosticCommand "
                + "MBean's gcRun (what jcmd GC.run does) instead of System.gc()");
        }
        if (layout.schedulable() && GcTrigger.vmFlag("ExplicitGCInvokesConcurrent")) {
            w.add("Blade: -XX:+ExplicitGCInvokesConcurrent is set: System.gc() starts a concurrent cycle, so the old "
                + "collections Blade forces are not full stop-the-world collections; young ones are unaffected");
        }
        return w;
    }
}
