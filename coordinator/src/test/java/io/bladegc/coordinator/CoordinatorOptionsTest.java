package io.bladegc.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CoordinatorOptionsTest {
    @TempDir
    Path dir;

    private static CoordinatorOptions.Parsed parse(Map<String, String> env, String... args) {
        return CoordinatorOptions.parse(args, env);
    }

    @Test
    void defaults() {
        CoordinatorOptions.Parsed p = parse(Map.of());
        assertThat(p.errors()).isEmpty();
        assertThat(p.config()).isEqualTo(CoordinatorConfig.defaults());
    }

    @Test
    void flagsInBothForms() {
        CoordinatorConfig c = parse(Map.of(), "--port", "9000", "--k=2", "--min-healthy", "3", "--lease", "15s",
            "--member-timeout", "2500", "--k-fraction", "0.25", "--max-wait", "2m", "--request-timeout", "500ms",
            "--k-due", "4").config();
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
        CoordinatorConfig fromFile = parse(Map.of(), "--config", file.toString()).config();
        assertThat(fromFile.policy().maxCollecting()).isEqualTo(3);
        assertThat(fromFile.token()).isEqualTo("from-file");
        CoordinatorConfig c = parse(Map.of(CoordinatorOptions.TOKEN_ENV, "from-env"), "--config", file.toString(),
            "--k", "4").config();
        assertThat(c.policy().maxCollecting()).isEqualTo(4);
        assertThat(c.policy().leaseMillis()).isEqualTo(20_000);
        assertThat(c.port()).isEqualTo(7100);
        assertThat(c.token()).isEqualTo("from-env");
        assertThat(parse(Map.of(CoordinatorOptions.TOKEN_ENV, "from-env"), "--token", "flag").config().token())
            .isEqualTo("flag");
    }

    @Test
    void everyProblemIsOneLineNamingIt() throws IOException {
        Path file = dir.resolve("bad.properties");
        Files.writeString(file, "kk=3\n");
        assertThat(parse(Map.of(), "--nope", "1").errors()).singleElement().asString()
            .startsWith("unknown option '--nope'; valid: bind, port, token, k,");
        assertThat(parse(Map.of(), "--port", "70000").errors()).singleElement().asString()
            .isEqualTo("malformed value for 'port': '70000'; expected an integer in 0..65535");
        assertThat(parse(Map.of(), "--lease", "soon").errors()).singleElement().asString()
            .startsWith("malformed value for 'lease': 'soon'; expected a positive duration");
        assertThat(parse(Map.of(), "--k-fraction", "2").errors()).singleElement().asString()
            .contains("'k-fraction'");
        assertThat(parse(Map.of(), "--k").errors()).singleElement().asString()
            .isEqualTo("option '--k' needs a value <n>");
        assertThat(parse(Map.of(), "stray").errors()).singleElement().asString().startsWith("unexpected argument");
        assertThat(parse(Map.of(), "--config", file.toString()).errors()).singleElement().asString()
            .startsWith("unknown key 'kk' in ");
        assertThat(parse(Map.of(), "--config", dir.resolve("missing").toString()).errors()).singleElement()
            .asString().startsWith("cannot read --config");
        assertThat(parse(Map.of(), "--k", "0", "--port", "x").errors()).hasSize(2);
    }

    @Test
    void aPublicAddressWithoutATokenIsRefused() {
        CoordinatorOptions.Parsed p = parse(Map.of(), "--bind", "0.0.0.0");
        assertThat(p.config()).isNull();
        assertThat(p.errors()).singleElement().asString().startsWith("refusing to listen on 0.0.0.0")
            .contains("--token", CoordinatorOptions.TOKEN_ENV);
        assertThat(parse(Map.of(), "--bind", "0.0.0.0", "--token", "t").errors()).isEmpty();
        assertThat(parse(Map.of(CoordinatorOptions.TOKEN_ENV, "t"), "--bind", "0.0.0.0").errors()).isEmpty();
        assertThat(parse(Map.of(), "--bind", "localhost").errors()).isEmpty();
        assertThat(parse(Map.of(), "--bind", "::1").errors()).isEmpty();
    }

    @Test
    void helpListsEveryKey() {
        assertThat(parse(Map.of(), "--help", "--nope").help()).isTrue();
        assertThat(CoordinatorOptions.usage()).contains("--bind", "--port", "--token", "--k ", "--k-fraction",
            "--min-healthy", "--k-due", "--lease", "--member-timeout", "--config", "BLADE_COORDINATOR_TOKEN");
    }
}
