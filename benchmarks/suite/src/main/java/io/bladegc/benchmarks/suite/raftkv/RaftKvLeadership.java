package io.bladegc.benchmarks.suite.raftkv;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The leadership changes of the store's group as its peers' output tells them, each line stamped
 * {@code HH:mm:ss.SSS} (slf4j-simple for Ratis, {@code java.util.logging.SimpleFormatter.format} for Blade, as the
 * {@code raft-kv} scenario starts its peers):
 *
 * <ul>
 *   <li>a <b>hand-off</b>: Blade's {@code Blade raft <peer> GC #n ... (handed <group> to <peer> in <ms> ms)}, or, when
 *       it did not complete, {@code leadership of group-<group> not handed off within <ms> ms}; it started at the first
 *       Ratis {@code <peer>@group-<group>: start transferring leadership to} line of that peer since its previous
 *       {@code Blade raft <peer> GC} line (a collection hands off before it logs its line, one collection at a time),
 *       or, with none, at its own line; it lasted the milliseconds Blade gives;</li>
 *   <li>a <b>collection</b> Blade drove: a {@code Blade raft <peer> GC #n ...} line with its pause ({@code T_gc <ms>
 *       ms}), by what the peer did first: handed off (as above), collected {@code in place} as leader, or neither (a
 *       follower's);</li>
 *   <li>an <b>election</b>: a Ratis {@code <peer>@group-<group>-LeaderElectionK ELECTION round r: submit vote requests
 *       at term T} line (pre-votes do not change the term), one per term, the earliest; a leader elected: its
 *       {@code ELECTION round r: result PASSED}.</li>
 * </ul>
 *
 * Stateless; the records are immutable.
 */
final class RaftKvLeadership {
    private static final String TIME = "^(\\d{2}:\\d{2}:\\d{2}\\.\\d{3}) .*";

    /**
     * One hand-off of the group's leadership.
     *
     * @param from             the leader that handed it off
     * @param to               the new leader, null when the hand-off did not complete
     * @param startEpochMillis when it started, wall clock
     * @param durationMillis   how long it took, as Blade measured it (its timeout when it did not complete)
     * @param electedMillis    how long after its start a leader's election passed, -1 when none did
     */
    record Handoff(String from, String to, long startEpochMillis, double durationMillis, long electedMillis) {
        /** @return whether a new leader took over */
        boolean completed() {
            return to != null;
        }

        /** @return when it ended, wall clock */
        long endEpochMillis() {
            return startEpochMillis + Math.round(durationMillis);
        }
    }

    /**
     * An election of the group: a candidate asked for votes at a new term.
     *
     * @param candidate   the peer that asked first at that term
     * @param term        the term
     * @param epochMillis when it asked, wall clock
     */
    record Election(String candidate, long term, long epochMillis) {
    }

    /** What a peer was when Blade made it collect. */
    enum Role {
        /** A follower: nothing to do first. */
        FOLLOWER,
        /** A leader that collected in place. */
        LEADER_IN_PLACE,
        /** A leader that handed its leadership off first (or tried to). */
        LEADER_HANDED_OFF
    }

    /**
     * A collection Blade drove on a peer.
     *
     * @param peer        the peer
     * @param role        what it was and did first
     * @param epochMillis when Blade logged it (after the collection), wall clock
     * @param pauseMillis the collection's pause as Blade measured it ({@code T_gc})
     */
    record Collection(String peer, Role role, long epochMillis, double pauseMillis) {
    }

    /**
     * @param handoffs    the hand-offs, by start
     * @param elections   the elections, by term
     * @param collections the collections Blade drove, by peer, each peer's in order
     */
    record Changes(List<Handoff> handoffs, List<Election> elections, List<Collection> collections) {
        /** @return the hand-offs, elections and collections from {@code from} to {@code to} (wall clock) */
        Changes within(long from, long to) {
            return new Changes(handoffs.stream().filter(h -> h.startEpochMillis() >= from
                    && h.startEpochMillis() <= to).toList(),
                elections.stream().filter(e -> e.epochMillis() >= from && e.epochMillis() <= to).toList(),
                collections.stream().filter(c -> c.epochMillis() >= from && c.epochMillis() <= to).toList());
        }

        /** @return the elections that began outside every hand-off, from its start to its end: not a hand-off's */
        List<Election> notFromHandoffs() {
            return elections.stream().filter(e -> handoffs.stream().noneMatch(h -> e.epochMillis()
                >= h.startEpochMillis() && e.epochMillis() <= h.endEpochMillis())).toList();
        }
    }

    private RaftKvLeadership() {
    }

    /**
     * @param outputs    each peer's output (whole or a part), any order
     * @param groupShort the group as Blade names it ({@link RaftKvLogs#groupShort})
     * @param reference  an instant near the lines' times (the window's start), ms since the epoch
     * @param zone       the zone the peers stamped their lines in
     * @return the group's leadership changes in them
     */
    static Changes parse(List<String> outputs, String groupShort, long reference, ZoneId zone) {
        String g = Pattern.quote(groupShort);
        Pattern transfer = Pattern.compile(TIME + " (\\S+)@group-" + g + ": start transferring leadership to \\S+$");
        Pattern blade = Pattern.compile(TIME + "Blade raft (\\S+) GC #\\d+ .*$");
        Pattern handed = Pattern.compile("handed " + g + " to (\\S+) in ([0-9.]+) ms");
        Pattern notHanded = Pattern.compile("leadership of group-" + g + " not handed off within (\\d+) ms");
        Pattern pause = Pattern.compile(", T_gc ([0-9.]+) ms");
        Pattern election = Pattern.compile(TIME + " (\\S+)@group-" + g
            + "-LeaderElection\\d+ ELECTION round \\d+: (?:submit vote requests at term (\\d+)|result PASSED).*$");
        List<Handoff> handoffs = new ArrayList<>();
        List<Collection> collections = new ArrayList<>();
        Map<Long, Election> elections = new TreeMap<>();
        List<Long> passed = new ArrayList<>();
        for (String output : outputs) {
            Map<String, Long> pendingStart = new HashMap<>();
            for (String line : output.split("\n")) {
                Matcher m;
                if ((m = transfer.matcher(line)).matches()) {
                    pendingStart.putIfAbsent(m.group(2), epochMillis(m.group(1), reference, zone));
                } else if ((m = election.matcher(line)).matches()) {
                    long at = epochMillis(m.group(1), reference, zone);
                    if (m.group(3) == null) {
                        passed.add(at);
                    } else {
                        long term = Long.parseLong(m.group(3));
                        elections.merge(term, new Election(m.group(2), term, at),
                            (a, b) -> a.epochMillis() <= b.epochMillis() ? a : b);
                    }
                } else if ((m = blade.matcher(line)).matches()) {
                    Long start = pendingStart.remove(m.group(2));
                    long at = start != null ? start : epochMillis(m.group(1), reference, zone);
                    Matcher h = handed.matcher(line);
                    Matcher n = notHanded.matcher(line);
                    Role role = Role.LEADER_HANDED_OFF;
                    if (h.find()) {
                        handoffs.add(new Handoff(m.group(2), h.group(1), at, Double.parseDouble(h.group(2)), -1));
                    } else if (n.find()) {
                        handoffs.add(new Handoff(m.group(2), null, at, Double.parseDouble(n.group(1)), -1));
                    } else {
                        role = line.contains(", in place (") ? Role.LEADER_IN_PLACE : Role.FOLLOWER;
                    }
                    Matcher p = pause.matcher(line);
                    if (p.find()) {
                        collections.add(new Collection(m.group(2), role, epochMillis(m.group(1), reference, zone),
                            Double.parseDouble(p.group(1))));
                    }
                }
            }
        }
        List<Handoff> timed = handoffs.stream().sorted(Comparator.comparingLong(Handoff::startEpochMillis))
            .map(h -> new Handoff(h.from(), h.to(), h.startEpochMillis(), h.durationMillis(),
                passed.stream().filter(p -> p >= h.startEpochMillis()).mapToLong(p -> p - h.startEpochMillis())
                    .min().orElse(-1)))
            .toList();
        return new Changes(timed, List.copyOf(elections.values()), List.copyOf(collections));
    }

    /**
     * @param time      {@code HH:mm:ss.SSS}
     * @param reference an instant within 12 hours of the time meant, ms since the epoch
     * @param zone      the zone the time was written in
     * @return the instant meant: that time of day on the reference's day, or on the day before or after, whichever
     *     is nearest the reference
     */
    static long epochMillis(String time, long reference, ZoneId zone) {
        LocalTime t = LocalTime.parse(time);
        LocalDate day = ZonedDateTime.ofInstant(Instant.ofEpochMilli(reference), zone).toLocalDate();
        long best = 0;
        long bestDistance = Long.MAX_VALUE;
        for (int d = -1; d <= 1; d++) {
            long candidate = ZonedDateTime.of(day.plusDays(d), t, zone).toInstant().toEpochMilli();
            if (Math.abs(candidate - reference) < bestDistance) {
                best = candidate;
                bestDistance = Math.abs(candidate - reference);
            }
        }
        return best;
    }
}
