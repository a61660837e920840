package io.bladegc.benchmarks.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.bladegc.commandline.ToolRun;
import io.bladegc.commandline.ToolCommandLine;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The command lines of {@link DemoServer}, {@link DemoArm} and {@link DemoTable}. */
class DemoCommandLinesTest {
    @Test
    void demoServerDefaultsAndOnOff() {
        assertThat(DemoServer.Options.parse()).isEqualTo(
            new DemoServer.Options(8080, 64, 32, 4, Workload.CHUNK_BYTES, false, 32, false));
        DemoServer.Options o = DemoServer.Options.parse("--port", "0", "--live-mb", "384", "--object-bytes", "64",
            "--garbage-kb", "32", "--churn-kb", "64", "--threads", "16", "--blade", "on", "--gc-overlap=on");
        assertThat(o).isEqualTo(new DemoServer.Options(0, 384, 32, 64, 64, true, 16, true));
    }

    @Test
    void demoServerNamesEveryBadValue() {
        assertThatThrownBy(() -> DemoServer.Options.parse("--blade", "yes"))
            .hasMessage("Invalid value for option '--blade': 'yes' is not on or off");
        assertThatThrownBy(() -> DemoServer.Options.parse("--gc-overlap", "on"))
            .hasMessage("--gc-overlap on needs --blade on (the filter measures it)");
        assertThatThrownBy(() -> DemoServer.Options.parse("--threads", "4", "--object-bytes", "8", "--port", "-1"))
            .hasMessage("Invalid value for option '--port': '-1' is not a non-negative integer; Invalid value for"
                + " option '--threads': '4' is not at least 8 (Jetty needs some for itself); Invalid value for option"
                + " '--object-bytes': '8' is not 16 to 8192");
        assertThatThrownBy(() -> DemoServer.Options.parse("--live-mb", "lots"))
            .hasMessage("Invalid value for option '--live-mb': 'lots' is not an int");
        assertThatThrownBy(() -> DemoServer.Options.parse("--threads"))
            .hasMessage("Missing required parameter for option '--threads' (N)");
    }

    @Test
    void demoArmNeedsItsServerAndItsFiles() {
        DemoArm.Settings s = ToolCommandLine.options(new DemoArm.Settings(), "--base", "http://127.0.0.1:8080/",
            "--out", "target/demo/g1", "--duration", "2s");
        assertThat(s.out).isEqualTo(Path.of("target/demo/g1"));
        assertThat(s.load.duration()).isEqualTo(Duration.ofSeconds(2));
        assertThat(s.load.rate()).isEqualTo(1000);
        ToolRun.of(new DemoArm.Settings(), "--rate", "10").isUsageError("DemoArm",
            "Missing required options: '--base=http://HOST:PORT', '--out=PATH_PREFIX'");
        ToolRun.of(new DemoArm.Settings(), "-h").isHelpOf("DemoArm", "--base=http://HOST:PORT",
            "--out=PATH_PREFIX", "--rate=PER_SECOND", "--timeout=DURATION", "(default 64)");
    }

    @Test
    void demoTableTakesNamesAndPrefixesInPairs() {
        assertThat(ToolCommandLine.options(new DemoTable.Arms(), "G1 alone", "t/g1", "Blade", "t/blade"))
            .containsExactly("G1 alone", "t/g1", "Blade", "t/blade");
        ToolRun.of(new DemoTable.Arms(), "G1 alone", "t/g1", "Blade").isUsageError("DemoTable",
            "the last NAME (Blade) has no PATH_PREFIX");
        ToolRun.of(new DemoTable.Arms()).isUsageError("DemoTable", "Missing required parameter");
        ToolRun.of(new DemoTable.Arms(), "--help").isHelpOf("DemoTable", "NAME PATH_PREFIX [NAME PATH_PREFIX ...]");
    }

    @Test
    void demoServerHelpAndUsageErrorsAreTheSharedOnes() {
        ToolRun.of(new DemoServer.Flags(), "--help").isHelpOf("DemoServer", "--port=N", "(default 8080)",
            "--object-bytes=B", "(default 8192)", "--blade=on|off", "(default off)", "--gc-overlap=on|off");
        ToolRun.of(new DemoServer.Flags(), "--live", "64").isUsageError("DemoServer", "Unknown options: '--live'");
    }
}
