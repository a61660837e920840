package io.bladegc.benchmarks.raftkv;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * A request to the replicated key-value store, and its compact binary form.
 *
 * <p>Encoding: one version byte ({@value #VERSION}), one type byte, then the fields of the type in order; a string is
 * a 4-byte big-endian length followed by that many bytes of UTF-8, an int is 4 bytes big-endian. Nothing may follow
 * the last field. {@link Put}, {@link Delete} and {@link Preload} go through the Raft log; {@link Get} and
 * {@link Size} are read-only queries.
 *
 * <p>Immutable, so thread-safe.
 */
public sealed interface KvCommand {
    /** The encoding version written first by {@link #encode()}; other versions are rejected by {@link #decode}. */
    byte VERSION = 1;
    /** Longest key or value, in UTF-8 bytes. */
    int MAX_STRING_BYTES = 1 << 20;
    /** Most keys one {@link Preload} may fill. */
    int MAX_PRELOAD_KEYS = 10_000_000;
    /** Longest value one {@link Preload} may write, in bytes. */
    int MAX_PRELOAD_VALUE_BYTES = 1 << 16;

    /**
     * Writes {@code value} under {@code key}; the reply is the previous value ({@link KvReply#value}).
     *
     * @param key   the key
     * @param value the new value
     */
    record Put(String key, String value) implements KvCommand {
        /** Validates the fields. */
        public Put {
            checkString("key", key);
            checkString("value", value);
        }
    }

    /**
     * Removes {@code key}; the reply is the removed value ({@link KvReply#value}), absent if there was none.
     *
     * @param key the key
     */
    record Delete(String key) implements KvCommand {
        /** Validates the key. */
        public Delete {
            checkString("key", key);
        }
    }

    /**
     * Reads {@code key}; the reply is its value ({@link KvReply#value}), absent if there is none.
     *
     * @param key the key
     */
    record Get(String key) implements KvCommand {
        /** Validates the key. */
        public Get {
            checkString("key", key);
        }
    }

    /** Counts the keys; the reply is the count ({@link KvReply#count}). */
    record Size() implements KvCommand {
    }

    /**
     * Writes keys {@code key-first .. key-(first+count-1)} in one log entry, each with the deterministic value
     * {@link #valueOf(int, int)}, replacing what they held; the reply is the number of keys afterwards
     * ({@link KvReply#count}). From key 0 it fills a store; from another key it rewrites a batch of existing ones, as
     * a bulk update does (raft-kv-heavy's writes).
     *
     * @param first      the first key's number, 0 to {@link #MAX_PRELOAD_KEYS} - {@code count}
     * @param count      how many keys, 0 to {@link #MAX_PRELOAD_KEYS}
     * @param valueBytes length of every value, 1 to {@link #MAX_PRELOAD_VALUE_BYTES}
     */
    record Preload(int first, int count, int valueBytes) implements KvCommand {
        /** Validates the bounds. */
        public Preload {
            if (count < 0 || count > MAX_PRELOAD_KEYS) {
                throw new IllegalArgumentException("preload count " + count + " is not in 0.." + MAX_PRELOAD_KEYS);
            }
            if (first < 0 || first > MAX_PRELOAD_KEYS - count) {
                throw new IllegalArgumentException("preload first key " + first + " is not in 0.."
                    + (MAX_PRELOAD_KEYS - count));
            }
            if (valueBytes < 1 || valueBytes > MAX_PRELOAD_VALUE_BYTES) {
                throw new IllegalArgumentException(
                    "preload valueBytes " + valueBytes + " is not in 1.." + MAX_PRELOAD_VALUE_BYTES);
            }
        }

        /** @return the {@code i}-th preloaded key, {@code key-i} */
        public static String keyOf(int i) {
            return "key-" + i;
        }

        /**
         * @param i          the key's number
         * @param valueBytes the value's length
         * @return the preloaded value of key {@code i}: {@code "v<i>."} repeated and cut to {@code valueBytes} ASCII
         *         characters
         */
        public static String valueOf(int i, int valueBytes) {
            String unit = "v" + i + ".";
            StringBuilder value = new StringBuilder(valueBytes + unit.length());
            while (value.length() < valueBytes) {
                value.append(unit);
            }
            value.setLength(valueBytes);
            return value.toString();
        }
    }

    /** @return whether this command changes the store, so it must go through the Raft log */
    default boolean isWrite() {
        return this instanceof Put || this instanceof Delete || this instanceof Preload;
    }

    /** @return the binary form, starting with {@link #VERSION} */
    default byte[] encode() {
        if (this instanceof Put put) {
            return frame(1, utf8(put.key()), utf8(put.value()));
        } else if (this instanceof Delete delete) {
            return frame(2, utf8(delete.key()));
        } else if (this instanceof Get get) {
            return frame(3, utf8(get.key()));
        } else if (this instanceof Size) {
            return frame(4);
        }
        Preload preload = (Preload) this;
        return ByteBuffer.allocate(14).put(VERSION).put((byte) 5).putInt(preload.first()).putInt(preload.count())
            .putInt(preload.valueBytes()).array();
    }

    /**
     * Reads a command back from the bytes {@link #encode()} wrote; {@code bytes} is consumed.
     *
     * @param bytes the binary form
     * @return the command
     * @throws IllegalArgumentException naming the problem: unknown version or type, truncated, malformed UTF-8, a
     *                                  length or bound out of range, or trailing bytes
     */
    static KvCommand decode(ByteBuffer bytes) {
        try {
            if (!bytes.hasRemaining()) {
                throw new IllegalArgumentException("empty command");
            }
            byte version = bytes.get();
            if (version != VERSION) {
                throw new IllegalArgumentException(
                    "unknown command version " + version + " (expected " + VERSION + ")");
            }
            byte type = bytes.get();
            KvCommand command = switch (type) {
                case 1 -> new Put(readString(bytes, "key"), readString(bytes, "value"));
                case 2 -> new Delete(readString(bytes, "key"));
                case 3 -> new Get(readString(bytes, "key"));
                case 4 -> new Size();
                case 5 -> new Preload(bytes.getInt(), bytes.getInt(), bytes.getInt());
                default -> throw new IllegalArgumentException("unknown command type " + type);
            };
            if (bytes.hasRemaining()) {
                throw new IllegalArgumentException(bytes.remaining() + " trailing byte(s) after the command");
            }
            return command;
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("truncated command", e);
        }
    }

    private static String readString(ByteBuffer bytes, String what) {
        int length = bytes.getInt();
        if (length < 0 || length > MAX_STRING_BYTES) {
            throw new IllegalArgumentException(what + " length " + length + " is not in 0.." + MAX_STRING_BYTES);
        }
        if (length > bytes.remaining()) {
            throw new IllegalArgumentException("truncated command: " + what + " of " + length + " bytes, "
                + bytes.remaining() + " left");
        }
        ByteBuffer slice = bytes.slice().limit(length);
        bytes.position(bytes.position() + length);
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT).decode(slice).toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException(what + " is not valid UTF-8", e);
        }
    }

    private static void checkString(String what, String s) {
        Objects.requireNonNull(s, what);
        if (s.length() > MAX_STRING_BYTES / 3 && s.getBytes(StandardCharsets.UTF_8).length > MAX_STRING_BYTES) {
            throw new IllegalArgumentException(what + " is longer than " + MAX_STRING_BYTES + " UTF-8 bytes");
        }
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] frame(int type, byte[]... strings) {
        int size = 2;
        for (byte[] s : strings) {
            size += 4 + s.length;
        }
        ByteBuffer out = ByteBuffer.allocate(size).put(VERSION).put((byte) type);
        for (byte[] s : strings) {
            out.putInt(s.length).put(s);
        }
        return out.array();
    }
}
