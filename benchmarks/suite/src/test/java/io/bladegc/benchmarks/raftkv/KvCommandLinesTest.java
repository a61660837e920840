package io.bladegc.benchmarks.raftkv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bladegc.commandline.ToolRun;
import io.bladegc.commandline.ToolCommandLine;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.junit.jupiter.api.Test;

/** The command lines of {@link KvServer} and {@link KvCli}. */
class KvCommandLinesTest {
    private static final String PEERS = "n1=127.0.0.1:9001,n2=127.0.0.1:9002";

    @Test
    void kvServerOptions() {
        KvServer.Options o = KvServer.Options.parse("--id", "n2", "--peers", PEERS, "--storage", "/tmp/kv",
            "--snapshot-every", "1000", "--garbage", "24", "--log-segment", "4", "--retry-cache-seconds", "5");
        assertThat(o.id().toString()).isEqualTo("n2");
        assertThat(o.logSegmentMib()).isEqualTo(4);
        assertThat(RaftServerConfigKeys.Log.segmentSizeMax(o.properties()).getSize()).isEqualTo(4L << 20);
        assertThat(RaftServerConfigKeys.RetryCache.expiryTime(o.properties()).toLong(TimeUnit.SECONDS)).isEqualTo(5);
        assertThat(o.garbageMibPerSecond()).isEqualTo(24);
        assertThat(o.group().getPeers()).hasSize(2);
        assertThat(o.storage()).isEqualTo(Path.of("/tmp/kv"));
        assertThat(o.snapshotEvery()).isEqualTo(1000);
        assertThat(KvServer.Options.parse("--id", "n1", "--peers", PEERS, "--storage", "d").snapshotEvery()).isZero();
        assertThat(KvServer.Options.parse("--id", "n1", "--peers", PEERS, "--storage", "d").garbageMibPerSecond())
            .isZero();
        KvServer.Options defaults = KvServer.Options.parse("--id", "n1", "--peers", PEERS, "--storage", "d");
        assertThat(RaftServerConfigKeys.Log.segmentSizeMax(defaults.properties()))
            .isEqualTo(RaftServerConfigKeys.Log.SEGMENT_SIZE_MAX_DEFAULT);
        assertThat(RaftServerConfigKeys.RetryCache.expiryTime(defaults.properties()))
            .isEqualTo(RaftServerConfigKeys.RetryCache.EXPIRY_TIME_DEFAULT);
    }

    @Test
    void kvServerNamesTheMissingOrMalformedArgument() {
        assertThatThrownBy(() -> KvServer.Options.parse("--peers", PEERS, "--storage", "d"))
            .hasMessage("Missing required option: '--id=ID'");
        assertThatThrownBy(() -> KvServer.Options.parse("--id", "n1", "--peers", PEERS, "--storage", "d",
            "--snapshot-every", "0"))
            .hasMessage("Invalid value for option '--snapshot-every': '0' is not a positive number");
        assertThatThrownBy(() -> KvServer.Options.parse("--id", "n1", "--peers", PEERS, "--storage", "d",
            "--garbage", "-3"))
            .hasMessage("Invalid value for option '--garbage': '-3' is not a positive number of MiB/s");
        assertThatThrownBy(() -> KvServer.Options.parse("--id", "n1", "--peers", PEERS, "--storage", "d",
            "--log-segment", "0"))
            .hasMessage("Invalid value for option '--log-segment': '0' is not a positive number of MiB");
        assertThatThrownBy(() -> KvServer.Options.parse("--id", "n1", "--peers", PEERS, "--storage", "d",
            "--retry-cache-seconds", "0"))
            .hasMessage("Invalid value for option '--retry-cache-seconds': '0' is not a positive number of seconds");
        assertThatThrownBy(() -> KvServer.Options.parse("--id", "n3", "--peers", PEERS, "--storage", "d"))
            .hasMessageContaining("n3");
        ToolRun.of(new KvServer.Flags(), "--id", "n1", "--peers", PEERS, "--storage").isUsageError("KvServer",
            "Missing required parameter for option '--storage' (DIR)");
        ToolRun.of(new KvServer.Flags(), "--help").isHelpOf("KvServer", "--id=ID", "--peers=n1=host:port,...",
            "--storage=DIR", "--snapshot-every=N", "--garbage=MIB_PER_S", "--log-segment=MIB",
            "--retry-cache-seconds=N");
    }

    @Test
    void kvCliChecksTheCommandBeforeConnecting() {
        KvCli.Request put = ToolCommandLine.options(new KvCli.Request(), "--peers", PEERS, "put", "k", "--v");
        assertThat(put.command).containsExactly("put", "k", "--v");
        assertThat(ToolCommandLine.options(new KvCli.Request(), "--peers", PEERS, "preload", "10", "8").command)
            .containsExactly("preload", "10", "8");
        ToolRun.of(new KvCli.Request(), "--peers", PEERS, "get").isUsageError("KvCli", "get takes KEY");
        ToolRun.of(new KvCli.Request(), "--peers", PEERS, "size", "x").isUsageError("KvCli", "size takes no arguments");
        ToolRun.of(new KvCli.Request(), "--peers", PEERS, "preload", "many").isUsageError("KvCli",
            "N 'many' is not a number");
        ToolRun.of(new KvCli.Request(), "--peers", PEERS, "drop", "k").isUsageError("KvCli",
            "command 'drop' is not one of put, get, delete, size, preload");
        ToolRun.of(new KvCli.Request(), "size").isUsageError("KvCli",
            "Missing required option: '--peers=n1=host:port,...'");
        ToolRun.of(new KvCli.Request(), "--peers", "n1", "size").isUsageError("KvCli", "");
        ToolRun.of(new KvCli.Request(), "--help").isHelpOf("KvCli", "--peers=n1=host:port,...", "--group=UUID",
            "COMMAND");
    }
}
