package io.bladegc.api.internal;

import io.bladegc.api.Generation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Run in a child JVM by {@link PromotionAverageJvmTest}: allocates while keeping a share of it that changes every
 * few MiB, so young collections promote unevenly, keeps a {@link PromotionAverage} from the collections it is told of,
 * and prints what each young collection promoted and the padded average after it
 * ({@code promoted=<bytes> padded=<bytes>}).
 */
public final class PromotionAverageMain {
    private PromotionAverageMain() {
    }

    public static void main(String[] args) throws Exception {
        HeapLayout layout = HeapLayout.current();
        PromotionAverage average = PromotionAverage.ofThisJvm();
        List<String> lines = new ArrayList<>();
        GcEvents events = GcEvents.listen(layout, c -> {
            if (c.reclaims() && c.generation() == Generation.YOUNG) {
                synchronized (lines) {
                    average.sample(c.promoted());
                    lines.add("promoted=" + c.promoted() + " padded=" + average.padded());
                }
            }
        });
        Object[] kept = new Object[8192];
        long sink = 0;
        for (int i = 0; i < 400_000; i++) {
            byte[] b = new byte[1024];
            sink += b.length;
            int keepOneIn = 2 + (i / 20_000) % 7 * 5; // 2, 7, 12, ... 32, changing every 20 MiB
            if (i % keepOneIn == 0) {
                kept[i % kept.length] = b;
            }
        }
        events.awaitSeen(layout.collectionCount(), Duration.ofSeconds(10));
        synchronized (lines) {
            lines.forEach(System.out::println);
        }
        System.out.println("allocated=" + sink);
    }
}
