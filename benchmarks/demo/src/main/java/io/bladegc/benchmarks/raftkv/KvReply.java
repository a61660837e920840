package io.bladegc.benchmarks.raftkv;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/**
 * The binary form of the store's replies: a value or its absence (one byte 0 for absent, or byte 1 followed by the
 * value in UTF-8), or a count (4 bytes big-endian). Stateless, so thread-safe.
 */
public final class KvReply {
    private KvReply() {
    }

    /**
     * @param value a value, null for absent
     * @return the reply carrying it
     */
    public static Message ofValue(String value) {
        if (value == null) {
            return Message.valueOf(ByteString.copyFrom(new byte[] {0}));
        }
        byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
        ByteBuffer reply = ByteBuffer.allocate(1 + utf8.length).put((byte) 1).put(utf8).flip();
        return Message.valueOf(ByteString.copyFrom(reply));
    }

    /**
     * @param count a count
     * @return the reply carrying it
     */
    public static Message ofCount(int count) {
        return Message.valueOf(ByteString.copyFrom(ByteBuffer.allocate(4).putInt(count).flip()));
    }

    /**
     * @param reply what {@link #ofValue} built
     * @return the value, null for absent
     * @throws IllegalArgumentException if {@code reply} is not a value reply
     */
    public static String value(ByteString reply) {
        byte present = reply.isEmpty() ? -1 : reply.byteAt(0);
        if ((present != 0 && present != 1) || (present == 0 && reply.size() != 1)) {
            throw new IllegalArgumentException("not a value reply (" + reply.size() + " bytes)");
        }
        return present == 0 ? null : reply.substring(1).toStringUtf8();
    }

    /**
     * @param reply what {@link #ofCount} built
     * @return the count
     * @throws IllegalArgumentException if {@code reply} is not a count reply
     */
    public static int count(ByteString reply) {
        if (reply.size() != 4) {
            throw new IllegalArgumentException("not a count reply (" + reply.size() + " bytes, expected 4)");
        }
        return reply.asReadOnlyByteBuffer().getInt();
    }
}
