package io.bladegc.api.slot;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Predicate;

/**
 * When each member expects its JVM to collect, and to need a full collection, on the ledger's clock, as its heartbeats
 * and requests said; and whether a full collection offered now fits between them. Part of {@link SlotLedger}'s state
 * (it is in the ledger's snapshot). A time not known is {@link Long#MAX_VALUE}.
 *
 * <p>Not thread-safe: the ledger's one caller.
 */
final class DueTimes {
    private final Map<String, Long> dueAt = new LinkedHashMap<>();
    private final Map<String, Long> fullDueAt = new LinkedHashMap<>();

    /** The member's JVM is expected to collect at {@code at}; {@link Long#MAX_VALUE}: no longer known. */
    void due(String node, long at) {
        put(dueAt, node, at);
    }

    /** The member needs a full collection at {@code at}; {@link Long#MAX_VALUE}: no longer known. */
    void fullDue(String node, long at) {
        put(fullDueAt, node, at);
    }

    private static void put(Map<String, Long> times, String node, long at) {
        if (at == Long.MAX_VALUE) {
            times.remove(node);
        } else {
            times.put(node, at);
        }
    }

    long dueAt(String node) {
        return dueAt.getOrDefault(node, Long.MAX_VALUE);
    }

    long fullDueAt(String node) {
        return fullDueAt.getOrDefault(node, Long.MAX_VALUE);
    }

    /**
     * The member collected (or its request went): its next collection is a whole eden away, unknown until it says;
     * after a full collection its next full one is unknown too.
     */
    void collected(String node, boolean full) {
        dueAt.remove(node);
        if (full) {
            fullDueAt.remove(node);
        }
    }

    /** The member left or was lost. */
    void forget(String node) {
        dueAt.remove(node);
        fullDueAt.remove(node);
    }

    /**
     * @param node       who offers a full collection
     * @param now        the ledger's clock
     * @param until      when it would end, with the margin
     * @param near       until when another member's full collection counts as near (one more such pause)
     * @param room       how many more may collect beyond K while it runs
     * @param serving    how many live members serve requests now, {@code node} among them (those not collecting): while
     *                   it is out, the others take its share, so their edens and old generations fill faster
     *                   ({@link #whileOut})
     * @param collecting who holds a grant now (their times do not count)
     * @return whether the full collection fits now: no other member's full collection comes due before {@code until}
     *     and no later than this member's own (that one goes first), and either another one comes due before
     *     {@code near} and {@code room} is at least one (two full collections near: this one now, and who comes due
     *     during it collects beyond K), or the other members due before {@code until} are at most {@code room}. A full
     *     collection due during this one but after this member's own is near too: waiting would only bring the two
     *     closer, as two members in step refused each other's offers until both had to collect (the later one then
     *     waits for a slot within K: a full collection never goes beyond K).
     */
    boolean fullFits(String node, long now, long until, long near, long room, int serving,
                     Predicate<String> collecting) {
        long own = fullDueAt(node);
        boolean fullNear = false;
        for (Map.Entry<String, Long> d : fullDueAt.entrySet()) {
            if (!d.getKey().equals(node) && !collecting.test(d.getKey())) {
                long at = whileOut(d.getValue(), now, until, serving);
                if (at < until && d.getValue() <= own) {
                    return false;
                }
                fullNear |= at < near;
            }
        }
        return fullNear && room > 0 || dueBefore(node, now, until, serving, collecting) <= room;
    }

    /**
     * @param node       who would be out from {@code now} to {@code until}
     * @param now        the ledger's clock
     * @param until      when it would be back
     * @param serving    how many live members serve requests now, {@code node} among them ({@link #whileOut})
     * @param collecting who holds a grant now (their times do not count)
     * @return how many other members expect their JVM to collect before {@code until}, their times brought forward by
     *     {@code node}'s share of the load going to them meanwhile
     */
    int dueBefore(String node, long now, long until, int serving, Predicate<String> collecting) {
        int due = 0;
        for (Map.Entry<String, Long> d : dueAt.entrySet()) {
            if (!d.getKey().equals(node) && !collecting.test(d.getKey())
                && whileOut(d.getValue(), now, until, serving) < until) {
                due++;
            }
        }
        return due;
    }

    /**
     * @return when a member due at {@code at} comes due if one of {@code serving} members is out from {@code now} to
     *     {@code until}: meanwhile its eden fills faster by {@code serving / (serving - 1)} (unchanged when nobody else
     *     would serve)
     */
    static long whileOut(long at, long now, long until, int serving) {
        if (at == Long.MAX_VALUE || at <= now || serving < 2) {
            return at;
        }
        double faster = serving / (serving - 1.0);
        double out = until - now;
        double left = at - now;
        return left <= out * faster ? now + (long) (left / faster) : at - (long) (out * (faster - 1));
    }
}
