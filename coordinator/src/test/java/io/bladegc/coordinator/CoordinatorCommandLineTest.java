package io.bladegc.coordinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.bladegc.commandline.ToolCommandLine;
import io.bladegc.commandline.UsageException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CoordinatorCommandLineTest {
    @TempDir
    Path dir;

    private static CoordinatorConfig parse(Map<String, String> env, String... args) {
        return ToolCommandLine.options(new CoordinatorCommandLine(env), args).config();
    }

    /** @return the problems, one line each */
    private static List<String> problems(Map<String, String> env, String... args) {
        return catchThrowableOfType(UsageException.class,
            () -> ToolCommandLine.options(new CoordinatorCommandLine(env), args)).problems();
    }

    private static List<String> problems(String... args) {
        return problems(Map.of(), args);
    }

    @Test
    void defaults() {
        CoordinatorOptions o = ToolCommandLine.options(new CoordinatorCommandLine(Map.of()));
        assertThat(o.config()).isEqualTo(CoordinatorConfig.defaults());
        assertThat(o.replication()).isNull();
    }

    @Test
    void flagsInBothForms() {
        CoordinatorConfig c = parse(Map.of(), "--port", "9000", "--k=2", "--min-healthy", "3", "--lease", "15s",
            "--member-timeout", "2500ms", "--k-fraction", "0.25", "--max-wait", "2m", "--request-timeout", "500ms",
            "--k-due", "4");
        assertThat(c.port()).isEqualTo(9000);
        assertThat(c.policy().maxCollecting()).isEqualTo(2);
        assertThat(c.policy().minHealthy()).isEqualTo(3);
        assertThat(c.policy().leaseMillis()).isEqualTo(15_000);
        assertThat(c.policy().memberTimeoutMillis()).isEqualTo(2_500);
        assertThat(c.policy().maxCollectingFraction()).isEqualTo(0.25);
        assertThat(c.policy().maxCollectingWhenDue()).isEqualTo(4);
        assertThat(c.maxWaitMillis()).isEqualTo(120_000);
        assertThat(c.requestTimeoutMillis()).isEqualTo(500);
    }

    @Test
    void flagsBeatTheEnvironmentWhichBeatsTheFileWhichBeatsDefaults() throws IOException {
        Path file = dir.resolve("c.properties");
        Files.writeString(file, "k=3\nlease=20s\ntoken=from-file\nport=7100\n");
        CoordinatorConfig fromFile = parse(Map.of(), "--config", file.toString());
        assertThat(fromFile.policy().maxCollecting()).isEqualTo(3);
        assertThat(fromFile.token()).isEqualTo("from-file");
        CoordinatorConfig c = parse(Map.of(CoordinatorCommandLine.TOKEN_ENV, "from-env"), "--config", file.toString(),
            "--k", "4");
        assertThat(c.policy().maxCollecting()).isEqualTo(4);
        assertThat(c.policy().leaseMillis()).isEqualTo(20_000);
        assertThat(c.port()).isEqualTo(7100);
        assertThat(c.token()).isEqualTo("from-env");
        assertThat(parse(Map.of(CoordinatorCommandLine.TOKEN_ENV, "from-env"), "--token", "flag").token())
            .isEqualTo("flag");
    }

    @Test
    void everyProblemIsOneLineNamingItsOptionAndValue() throws IOException {
        Path file = dir.resolve("bad.properties");
        Files.writeString(file, "kk=3\n");
        assertThat(problems("--nope", "1")).singleElement().asString().contains("'--nope'");
        assertThat(problems("--port", "70000")).singleElement().asString()
            .isEqualTo("Invalid value for option '--port': '70000' is not an integer in 0..65535");
        assertThat(problems("--lease", "soon")).singleElement().asString()
            .isEqualTo("Invalid value for option '--lease': 'soon': expected a duration such as 20ms or 1s");
        assertThat(problems("--lease", "1500")).as("the unit is what says whether 1500 is ms or s").singleElement()
            .asString().isEqualTo("Invalid value for option '--lease': '1500': a duration needs a unit (ms, s or m),"
                + " e.g. 1500ms or 1500s");
        assertThat(problems("--max-wait", "25h")).singleElement().asString()
            .isEqualTo("Invalid value for option '--max-wait': '25h': expected a duration such as 20ms or 1s");
        assertThat(problems("--max-wait", "1441m")).singleElement().asString()
            .isEqualTo("Invalid value for option '--max-wait': '1441m' is not between 1ms and 1440m (a day)");
        assertThat(problems("--k-fraction", "2")).singleElement().asString()
            .isEqualTo("Invalid value for option '--k-fraction': '2.0' is not a number in 0..1");
        assertThat(problems("--k")).singleElement().asString()
            .isEqualTo("Missing required parameter for option '--k' (<n>)");
        assertThat(problems("stray")).singleElement().asString().contains("'stray'");
        assertThat(problems("--config", file.toString())).singleElement().asString()
            .startsWith("unknown key 'kk' in ").contains("valid: bind, port, token, k,");
        assertThat(problems("--config", dir.resolve("missing").toString())).singleElement().asString()
            .startsWith("cannot read --config");
        assertThat(problems("--k", "0", "--port", "70000")).hasSize(2);
    }

    @Test
    void aBadValueInTheFileNamesTheKey() throws IOException {
        Path file = dir.resolve("lease.properties");
        Files.writeString(file, "lease=soon\n");
        assertThat(problems("--config", file.toString())).singleElement().asString()
            .contains("'--lease'", "'soon'");
    }

    @Test
    void aPublicAddressWithoutATokenIsRefused() {
        assertThat(problems("--bind", "0.0.0.0")).singleElement().asString()
            .startsWith("refusing to listen on 0.0.0.0").contains("--token", CoordinatorCommandLine.TOKEN_ENV);
        assertThat(parse(Map.of(), "--bind", "0.0.0.0", "--token", "t").token()).isEqualTo("t");
        assertThat(parse(Map.of(CoordinatorCommandLine.TOKEN_ENV, "t"), "--bind", "0.0.0.0").token()).isEqualTo("t");
        assertThat(parse(Map.of(), "--bind", "localhost").bind()).isEqualTo("localhost");
        assertThat(parse(Map.of(), "--bind", "::1").bind()).isEqualTo("::1");
    }

    @Test
    void replicationOptionsAreCheckedWithTheOthers() {
        assertThat(problems("--id", "c1")).singleElement().asString().contains("--id needs --peers");
        assertThat(problems("--peers", "c1=127.0.0.1:9001", "--id", "c2")).singleElement().asString()
            .contains("--id c2 is not one of --peers");
        CoordinatorOptions o = ToolCommandLine.options(new CoordinatorCommandLine(Map.of()), "--peers",
            "c1=127.0.0.1:9001,c2=127.0.0.1:9002", "--id", "c2", "--raft-dir", dir.toString());
        assertThat(o.replication().dir()).isEqualTo(dir.resolve("c2"));
    }

    @Test
    void aUsageErrorIsOneLinePerProblemThenTheHintAndExitStatusTwo() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = CoordinatorMain.run(new String[] {"--lease", "soon", "--port", "70000"}, Map.of(),
            new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(status).isEqualTo(2);
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
        assertThat(err.toString(StandardCharsets.UTF_8).lines()).containsExactly(
            "blade-coordinator: Invalid value for option '--lease': 'soon': expected a duration such as 20ms or 1s",
            "blade-coordinator: see --help");
    }

    @Test
    void helpListsEveryOptionWithItsDefaultAndWinsOverErrors() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int status = CoordinatorMain.run(new String[] {"--help", "--nope"}, Map.of(),
            new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
        assertThat(status).isZero();
        String help = out.toString(StandardCharsets.UTF_8);
        assertThat(help).startsWith("Usage: java -jar blade-coordinator.jar [options]\n")
            .contains("--bind=<address>", "--port=<port>", "--token=<secret>", "--k=<n>", "--k-fraction",
                "--min-healthy", "--k-due", "--lease", "--member-timeout", "--config", "-h, --help", "BLADE_COORDINATOR_TOKEN")
            .contains("(default 127.0.0.1)", "(default 10s)", "(default blade-coordinator-raft)");
        assertThat(help.lines())
            .allSatisfy(line -> assertThat(line.length()).isLessThanOrEqualTo(ToolCommandLine.WIDTH));
    }
}
