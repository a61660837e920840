package io.bladegc.coordinator.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.bladegc.api.slot.Grant;
import io.bladegc.api.slot.QueueEntry;
import io.bladegc.api.slot.SlotEvent;
import io.bladegc.api.slot.SlotPolicy;
import io.bladegc.api.slot.SlotView;
import io.bladegc.coordinator.slots.ClusterSnapshot;
import io.bladegc.coordinator.slots.SlotReply;
import java.io.IOException;

/**
 * The coordinator's JSON: one {@link ObjectMapper}, strict on input (duplicate keys, trailing tokens, deep nesting and
 * long numbers or strings are errors), and the shapes of the answers. Thread-safe.
 */
public final class Json {
    /** The mapper; reading through it enforces the limits above. */
    static final ObjectMapper MAPPER = new ObjectMapper(JsonFactory.builder()
        .streamReadConstraints(StreamReadConstraints.builder()
            .maxNestingDepth(16).maxNumberLength(32).maxStringLength(4096).build())
        .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
        .build())
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private Json() {
    }

    /** {@code {"status": code, "message": message}}: errors, and answers with nothing else to say. */
    public static byte[] status(String code, String message) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("status", code);
        o.put("message", message);
        return bytes(o);
    }

    /** A slot reply: its kind as {@code status}, and what goes with it (grant, queue position, message). */
    public static byte[] reply(SlotReply r) {
        // written field by field: the answer to every node call, so no tree in between
        ByteArrayBuilder out = new ByteArrayBuilder(192);
        try (JsonGenerator g = MAPPER.getFactory().createGenerator(out)) {
            g.writeStartObject();
            g.writeStringField("status", r.kind().name());
            g.writeStringField("node", r.node());
            if (r.gcId() != 0) {
                g.writeNumberField("gcId", r.gcId());
            }
            Grant grant = r.grant();
            if (grant != null) {
                g.writeNumberField("epoch", grant.epoch());
                g.writeNumberField("grantedAt", grant.grantedAt());
                g.writeNumberField("deadline", grant.deadline());
                g.writeNumberField("remainingMillis", r.remainingMillis());
                if (grant.full()) {
                    g.writeBooleanField("full", true);
                }
            }
            if (r.position() > 0) {
                g.writeNumberField("position", r.position());
            }
            if (!r.message().isEmpty()) {
                g.writeStringField("message", r.message());
            }
            if (!r.memberKey().isEmpty()) {
                g.writeStringField("memberKey", r.memberKey());
            }
            if (r.invited()) {
                g.writeBooleanField("invited", true);
            }
            g.writeNumberField("now", r.now());
            g.writeEndObject();
        } catch (IOException e) {
            throw new IllegalStateException("cannot write JSON", e); // plain values into memory always serialise
        }
        return out.toByteArray();
    }

    /** The cluster view. */
    public static byte[] cluster(ClusterSnapshot s, String loadBalancer) {
        SlotView v = s.view();
        ObjectNode o = MAPPER.createObjectNode();
        o.put("now", s.now());
        o.put("epoch", v.epoch());
        if (v.grantsFrom() != Long.MIN_VALUE) {
            o.put("grantsFrom", v.grantsFrom());
        }
        ArrayNode members = o.putArray("members");
        v.members().forEach(members::add);
        ArrayNode collecting = o.putArray("collecting");
        for (Grant g : v.collecting()) {
            collecting.addObject().put("node", g.node()).put("gcId", g.gcId()).put("epoch", g.epoch())
                .put("grantedAt", g.grantedAt()).put("deadline", g.deadline())
                .put("remainingMillis", Math.max(0, g.deadline() - s.now()));
        }
        ArrayNode queue = o.putArray("queue");
        int position = 1;
        for (QueueEntry q : v.queue()) {
            queue.addObject().put("position", position++).put("node", q.node()).put("gcId", q.gcId())
                .put("urgentAt", q.urgentAt()).put("full", q.ask().full()).put("holdMillis", q.ask().holdMillis());
        }
        o.put("waiting", s.waiting());
        o.put("slotDemand", Math.round(s.slotDemand() * 1000) / 1000.0);
        o.put("infeasible", s.infeasible());
        o.put("mode", s.observing() ? "observe" : "hide");
        SlotPolicy p = v.policy();
        o.putObject("policy").put("maxCollecting", p.maxCollecting())
            .put("maxCollectingFraction", p.maxCollectingFraction()).put("minHealthy", p.minHealthy())
            .put("leaseMillis", p.leaseMillis()).put("memberTimeoutMillis", p.memberTimeoutMillis())
            .put("allowance", p.allowance(v.members().size())).put("maxCollectingWhenDue", p.maxCollectingWhenDue());
        o.put("loadBalancer", loadBalancer);
        if (!s.replica().isEmpty()) {
            o.put("replica", s.replica());
        }
        ArrayNode events = o.putArray("recentEvents");
        for (SlotEvent e : s.recentEvents()) {
            ObjectNode ev = events.addObject().put("type", e.type().name()).put("node", e.node()).put("at", e.at());
            if (e.gcId() != 0) {
                ev.put("gcId", e.gcId());
            }
            if (e.epoch() != 0) {
                ev.put("epoch", e.epoch());
            }
            if (!e.detail().isEmpty()) {
                ev.put("detail", e.detail());
            }
        }
        return bytes(o);
    }

    static byte[] bytes(Object tree) {
        try {
            return MAPPER.writeValueAsBytes(tree);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON", e); // trees of plain values always serialise
        }
    }
}
