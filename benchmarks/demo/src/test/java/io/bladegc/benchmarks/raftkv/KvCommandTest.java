package io.bladegc.benchmarks.raftkv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class KvCommandTest {

    @Test
    void everyCommandSurvivesItsEncoding() {
        for (KvCommand command : List.of(new KvCommand.Put("k", "välue ✓"), new KvCommand.Put("", ""),
                new KvCommand.Delete("k"), new KvCommand.Get("k"), new KvCommand.Size(),
                new KvCommand.Preload(0, 500_000, 100), new KvCommand.Preload(1_000, 4_096, 100))) {
            assertThat(KvCommand.decode(ByteBuffer.wrap(command.encode()))).isEqualTo(command);
        }
    }

    @Test
    void onlyPutDeleteAndPreloadAreWrites() {
        assertThat(new KvCommand.Put("k", "v").isWrite()).isTrue();
        assertThat(new KvCommand.Delete("k").isWrite()).isTrue();
        assertThat(new KvCommand.Preload(0, 1, 1).isWrite()).isTrue();
        assertThat(new KvCommand.Get("k").isWrite()).isFalse();
        assertThat(new KvCommand.Size().isWrite()).isFalse();
    }

    @Test
    void badBytesAreRejectedWithTheProblemNamed() {
        byte[] put = new KvCommand.Put("key", "value").encode();
        assertRejected(new byte[0], "empty command");
        assertRejected(new byte[] {2, 4}, "unknown command version 2");
        assertRejected(new byte[] {KvCommand.VERSION, 9}, "unknown command type 9");
        assertRejected(Arrays.copyOf(put, put.length - 1), "truncated command");
        assertRejected(Arrays.copyOf(put, 3), "truncated command");
        assertRejected(Arrays.copyOf(put, put.length + 1), "1 trailing byte(s)");
        assertRejected(new byte[] {KvCommand.VERSION, 3, -1, -1, -1, -1}, "key length -1");
        assertRejected(new byte[] {KvCommand.VERSION, 3, 0, 0, 0, 1, (byte) 0xff}, "key is not valid UTF-8");
        assertRejected(new byte[] {KvCommand.VERSION, 5, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0}, "preload valueBytes 0");
        assertRejected(new byte[] {KvCommand.VERSION, 5, -1, -1, -1, -1, 0, 0, 0, 1, 0, 0, 0, 1},
            "preload first key -1");
        assertRejected(new byte[] {KvCommand.VERSION, 5, 0, 0, 0, 1, 0, 0, 0, 1}, "truncated command"); // no first
    }

    @Test
    void preloadedValuesAreDeterministicAndOfTheAskedLength() {
        assertThat(KvCommand.Preload.keyOf(7)).isEqualTo("key-7");
        assertThat(KvCommand.Preload.valueOf(7, 8)).isEqualTo("v7.v7.v7");
        assertThat(KvCommand.Preload.valueOf(123, 1000)).hasSize(1000).isEqualTo(KvCommand.Preload.valueOf(123, 1000));
    }

    @Test
    void repliesCarryValuesAbsenceAndCounts() {
        assertThat(KvReply.value(KvReply.ofValue("v").getContent())).isEqualTo("v");
        assertThat(KvReply.value(KvReply.ofValue("").getContent())).isEmpty();
        assertThat(KvReply.value(KvReply.ofValue(null).getContent())).isNull();
        assertThat(KvReply.count(KvReply.ofCount(500_000).getContent())).isEqualTo(500_000);
        assertThatThrownBy(() -> KvReply.count(KvReply.ofValue("v").getContent()))
            .isInstanceOf(IllegalArgumentException.class);
    }

    private static void assertRejected(byte[] bytes, String problem) {
        assertThatThrownBy(() -> KvCommand.decode(ByteBuffer.wrap(bytes)))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(problem);
    }
}
