package io.bladegc.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.bladegc.api.BladeOptionsParser.Result;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class BladeOptionsParserTest {

    private static final String VALID_LIST = "(valid: enabled, strict, drainTimeout, margin, sampleInterval, "
        + "coordinator, nodeId, token, coordinatorTimeout, instrument, explicitGc)";

    private static Properties props(String... kv) {
        Properties p = new Properties();
        for (int i = 0; i < kv.length; i += 2) {
            p.setProperty(kv[i], kv[i + 1]);
        }
        return p;
    }

    private static Map<String, String> env(String... kv) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    private static Result args(String agentArgs) {
        return BladeOptionsParser.parse(agentArgs, new Properties(), Map.of());
    }

    /** Asserts exactly one error, single-line, and returns it. */
    private static String singleError(Result r) {
        assertThat(r.ok()).isFalse();
        assertThat(r.errors()).hasSize(1);
        String e = r.errors().get(0);
        assertThat(e).doesNotContain("\n", "\r");
        return e;
    }

    /** Errors disable Blade and fall back to the defaults for everything but strict. */
    private static void assertDisabledDefaults(Result r) {
        BladeOptions d = BladeOptions.defaults();
        assertThat(r.options().enabled()).isFalse();
        assertThat(r.options().drainTimeout()).isEqualTo(d.drainTimeout());
        assertThat(r.options().margin()).isEqualTo(d.margin());
        assertThat(r.options().sampleInterval()).isEqualTo(d.sampleInterval());
    }

    @Test
    void keysAreInDocumentationOrder() {
        assertThat(BladeOptionsParser.KEYS)
            .containsExactly("enabled", "strict", "drainTimeout", "margin", "sampleInterval", "coordinator",
                "nodeId", "token", "coordinatorTimeout", "instrument", "explicitGc");
    }

    @Test
    void envNamesAreUpperSnakeCase() {
        assertThat(BladeOptionsParser.KEYS.stream().map(BladeOptionsParser::envName).toList())
            .containsExactly("BLADE_ENABLED", "BLADE_STRICT", "BLADE_DRAIN_TIMEOUT", "BLADE_MARGIN",
                "BLADE_SAMPLE_INTERVAL", "BLADE_COORDINATOR", "BLADE_NODE_ID", "BLADE_TOKEN",
                "BLADE_COORDINATOR_TIMEOUT", "BLADE_INSTRUMENT", "BLADE_EXPLICIT_GC");
    }

    @Nested
    class Valid {

        @Test
        void nothingGivenMeansDefaults() {
            for (Result r : List.of(args(null), args(""), args("   "), BladeOptionsParser.parse(null, null, null),
                BladeOptionsParser.parse(Map.of()), BladeOptionsParser.parse(null))) {
                assertThat(r.ok()).isTrue();
                assertThat(r.errors()).isEmpty();
                assertThat(r.options()).isEqualTo(BladeOptions.defaults());
            }
        }

        @Test
        void allKeysFromAgentArguments() {
            Result r = args("enabled=false,strict=true,drainTimeout=250ms,margin=0ms,sampleInterval=2ms");
            assertThat(r.errors()).isEmpty();
            assertThat(r.options()).isEqualTo(new BladeOptions(false, true, Duration.ofMillis(250), Duration.ZERO,
                Duration.ofMillis(2)));
        }

        @Test
        void agentOnlyChoicesInAnyCase() {
            BladeOptions defaults = BladeOptions.defaults();
            assertThat(defaults.instrument()).isEqualTo(BladeOptions.Instrument.NONE);
            assertThat(defaults.explicitGc()).isEqualTo(BladeOptions.ExplicitGc.PASS);
            Result r = args("instrument=Servlet,explicitGc=COORDINATE");
            assertThat(r.errors()).isEmpty();
            assertThat(r.options().instrument()).isEqualTo(BladeOptions.Instrument.SERVLET);
            assertThat(r.options().explicitGc()).isEqualTo(BladeOptions.ExplicitGc.COORDINATE);
            Properties p = new Properties();
            p.setProperty("blade.explicitGc", "ignore");
            assertThat(BladeOptionsParser.parse(null, p, Map.of("BLADE_INSTRUMENT", "servlet")).options())
                .extracting(BladeOptions::instrument, BladeOptions::explicitGc)
                .containsExactly(BladeOptions.Instrument.SERVLET, BladeOptions.ExplicitGc.IGNORE);
        }

        @Test
        void whitespaceAroundKeysAndValuesIsTrimmedAndEmptyItemsIgnored() {
            Result r = args("  drainTimeout = 2s ,, margin=\t10ms ,");
            assertThat(r.errors()).isEmpty();
            assertThat(r.options().drainTimeout()).isEqualTo(Duration.ofSeconds(2));
            assertThat(r.options().margin()).isEqualTo(Duration.ofMillis(10));
        }

        @ParameterizedTest
        @CsvSource({
            "250ms, PT0.25S",
            "2s, PT2S",
            "1m, PT1M",
            "0.5s, PT0.5S",
            "1.5m, PT1M30S",
            "250 ms, PT0.25S",
            "PT0.5S, PT0.5S",
            "pt0.5s, PT0.5S",
            "PT1M, PT1M",
            "60m, PT1H",
        })
        void durationFormats(String text, String iso) {
            Result r = args("drainTimeout=" + text);
            assertThat(r.errors()).isEmpty();
            assertThat(r.options().drainTimeout()).isEqualTo(Duration.parse(iso));
        }

        @ParameterizedTest
        @ValueSource(strings = {"true", "TRUE", "True", "tRuE"})
        void trueIsCaseInsensitive(String text) {
            assertThat(args("strict=" + text).options().strict()).isTrue();
        }

        @ParameterizedTest
        @ValueSource(strings = {"false", "FALSE", "False"})
        void falseIsCaseInsensitive(String text) {
            Result r = args("enabled=" + text);
            assertThat(r.errors()).isEmpty();
            assertThat(r.options().enabled()).isFalse();
        }

        @Test
        void marginMayBeZero() {
            assertThat(args("margin=0ms").options().margin()).isZero();
            assertThat(args("margin=PT0S").options().margin()).isZero();
        }

        @Test
        void mapForm() {
            Result r = BladeOptionsParser.parse(Map.of("drainTimeout", " 1s ", "enabled", "false"));
            assertThat(r.errors()).isEmpty();
            assertThat(r.options().drainTimeout()).isEqualTo(Duration.ofSeconds(1));
            assertThat(r.options().enabled()).isFalse();
        }

        @Test
        void unrelatedPropertiesAndEnvironmentAreIgnored() {
            Result r = BladeOptionsParser.parse("", props("java.version", "17", "bladegc.x", "1", "Blade.margin",
                "x", "io.bladegc.agent.attached", "true"), env("PATH", "/bin", "BLADEX", "1", "blade_margin", "x"));
            assertThat(r.errors()).isEmpty();
            assertThat(r.options()).isEqualTo(BladeOptions.defaults());
        }

        @Test
        void resultErrorsAreImmutable() {
            Result r = args("nope=1");
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> r.errors().add("x"))
                .isInstanceOf(UnsupportedOperationException.class);
        }
    }

    @Nested
    class Precedence {

        @Test
        void agentArgumentsBeatPropertiesBeatEnvironmentBeatDefault() {
            Properties p = props("blade.drainTimeout", "2s", "blade.margin", "30ms");
            Map<String, String> e = env("BLADE_DRAIN_TIMEOUT", "3s", "BLADE_MARGIN", "40ms",
                "BLADE_SAMPLE_INTERVAL", "7ms");
            Result r = BladeOptionsParser.parse("drainTimeout=1s", p, e);
            assertThat(r.errors()).isEmpty();
            assertThat(r.options().drainTimeout()).as("args win").isEqualTo(Duration.ofSeconds(1));
            assertThat(r.options().margin()).as("property beats env").isEqualTo(Duration.ofMillis(30));
            assertThat(r.options().sampleInterval()).as("env beats default").isEqualTo(Duration.ofMillis(7));
            assertThat(r.options().enabled()).as("default").isTrue();
            assertThat(r.options().strict()).as("default").isFalse();
        }

        @Test
        void propertyBeatsEnvironment() {
            Result r = BladeOptionsParser.parse(null, props("blade.enabled", "false"), env("BLADE_ENABLED", "true"));
            assertThat(r.errors()).isEmpty();
            assertThat(r.options().enabled()).isFalse();
        }

        @Test
        void environmentAlone() {
            Result r = BladeOptionsParser.parse(null, null, env("BLADE_STRICT", "true", "BLADE_DRAIN_TIMEOUT",
                "PT0.1S"));
            assertThat(r.errors()).isEmpty();
            assertThat(r.options().strict()).isTrue();
            assertThat(r.options().drainTimeout()).isEqualTo(Duration.ofMillis(100));
        }

        @Test
        void malformedValueIsReportedEvenWhenOverridden() {
            Result r = BladeOptionsParser.parse("margin=10ms", props(), env("BLADE_MARGIN", "abc"));
            assertThat(singleError(r)).contains("margin=abc", "BLADE_MARGIN");
            assertDisabledDefaults(r);
        }

        @Test
        void strictKeepsTheHighestReadableValueWhenThereAreErrors() {
            Result r = BladeOptionsParser.parse("strict=true,nope=1", props("blade.strict", "false"), Map.of());
            assertThat(r.ok()).isFalse();
            assertThat(r.options().strict()).isTrue();
            assertDisabledDefaults(r);

            // a malformed strict in the args falls back to the next source that could be read
            r = BladeOptionsParser.parse("strict=yes", props(), env("BLADE_STRICT", "true"));
            assertThat(r.ok()).isFalse();
            assertThat(r.options().strict()).isTrue();

            r = BladeOptionsParser.parse("strict=false,margin=x", props(), env("BLADE_STRICT", "true"));
            assertThat(r.options().strict()).isFalse();
        }

        @Test
        void errorsDisableBladeEvenWhenEnabledWasAskedFor() {
            Result r = args("enabled=true,drainTimeout=250ms,margin=abc");
            assertThat(r.ok()).isFalse();
            assertDisabledDefaults(r);
            assertThat(r.options().strict()).isFalse();
        }
    }

    @Nested
    class Errors {

        @Test
        void unknownAgentArgument() {
            Result r = args("drainTimout=250ms");
            assertThat(singleError(r)).isEqualTo("unknown option 'drainTimout' " + VALID_LIST);
            assertDisabledDefaults(r);
        }

        @Test
        void keysAreCaseSensitive() {
            assertThat(singleError(args("DrainTimeout=1s"))).contains("'DrainTimeout'", VALID_LIST);
        }

        @Test
        void missingEquals() {
            String e = singleError(args("foo"));
            assertThat(e).startsWith("malformed option 'foo'").contains("expected key=value", VALID_LIST);
        }

        @Test
        void emptyKey() {
            String e = singleError(args("=1s"));
            assertThat(e).contains("'=1s'", "expected key=value", VALID_LIST);
        }

        @Test
        void malformedDuration() {
            Result r = args("margin=abc");
            assertThat(singleError(r))
                .isEqualTo("malformed option 'margin=abc': expected a duration such as 20ms or 1s");
            assertDisabledDefaults(r);
        }

        @ParameterizedTest
        @ValueSource(strings = {"250", "0", "1.5"})
        void bareNumberNamesTheUnitRequirement(String n) {
            String e = singleError(args("drainTimeout=" + n));
            assertThat(e).contains("'drainTimeout=" + n + "'", "needs a unit", "ms", "s", "m");
        }

        @ParameterizedTest
        @ValueSource(strings = {"", "250us", "1h", "2 seconds", "ms", "1e3ms", "-5ms", "250MS", "PTxS", "P", "1s2"})
        void otherMalformedDurations(String v) {
            String e = singleError(args("sampleInterval=" + v));
            assertThat(e).startsWith("malformed option 'sampleInterval=" + v + "'");
        }

        @ParameterizedTest
        @CsvSource({
            "drainTimeout, 0ms, greater than zero",
            "drainTimeout, PT0S, greater than zero",
            "drainTimeout, PT-1S, greater than zero",
            "sampleInterval, 0s, greater than zero",
            "margin, PT-0.001S, zero or more",
            "drainTimeout, 61m, at most",
            "margin, PT2H, at most",
            "sampleInterval, 99999999999999999999m, at most",
        })
        void outOfRange(String key, String value, String hint) {
            Result r = args(key + "=" + value);
            String e = singleError(r);
            assertThat(e).startsWith("invalid option '" + key + "=" + value + "'").contains(key, hint);
            assertDisabledDefaults(r);
        }

        @ParameterizedTest
        @ValueSource(strings = {"yes", "1", "on", "", "truee"})
        void malformedBoolean(String v) {
            String e = singleError(args("enabled=" + v));
            assertThat(e).isEqualTo("malformed option 'enabled=" + v + "': expected true or false");
        }

        @Test
        void unknownChoiceNamesTheValidOnes() {
            assertThat(singleError(args("instrument=servlets")))
                .isEqualTo("malformed option 'instrument=servlets': expected one of none, servlet");
            assertThat(singleError(args("explicitGc=disable")))
                .isEqualTo("malformed option 'explicitGc=disable': expected one of pass, coordinate, ignore");
        }

        @Test
        void duplicateAgentArgument() {
            String e = singleError(args("margin=1ms,margin=2ms"));
            assertThat(e).contains("'margin'", "given twice", "margin=1ms", "margin=2ms");
        }

        @Test
        void unknownSystemPropertySaysWhereItCameFrom() {
            String e = singleError(BladeOptionsParser.parse(null, props("blade.xyz", "1"), Map.of()));
            assertThat(e).isEqualTo("unknown option 'xyz' from system property blade.xyz " + VALID_LIST);
        }

        @Test
        void malformedSystemPropertySaysWhereItCameFrom() {
            String e = singleError(BladeOptionsParser.parse(null, props("blade.margin", "abc"), Map.of()));
            assertThat(e).isEqualTo("malformed option 'margin=abc' from system property blade.margin: "
                + "expected a duration such as 20ms or 1s");
        }

        @Test
        void unknownEnvironmentVariableSaysWhereItCameFrom() {
            String e = singleError(BladeOptionsParser.parse(null, null, env("BLADE_XYZ", "1")));
            assertThat(e).isEqualTo("unknown option in environment variable 'BLADE_XYZ' (valid: BLADE_ENABLED, "
                + "BLADE_STRICT, BLADE_DRAIN_TIMEOUT, BLADE_MARGIN, BLADE_SAMPLE_INTERVAL, BLADE_COORDINATOR, "
                + "BLADE_NODE_ID, BLADE_TOKEN, BLADE_COORDINATOR_TIMEOUT, BLADE_INSTRUMENT, BLADE_EXPLICIT_GC)");
        }

        @Test
        void malformedEnvironmentVariableSaysWhereItCameFrom() {
            String e = singleError(BladeOptionsParser.parse(null, null, env("BLADE_DRAIN_TIMEOUT", "5")));
            assertThat(e).contains("'drainTimeout=5'", "from environment variable BLADE_DRAIN_TIMEOUT",
                "needs a unit");
        }

        @Test
        void unknownMapKey() {
            Result r = BladeOptionsParser.parse(Map.of("drainTimout", "1s"));
            assertThat(singleError(r)).isEqualTo("unknown option 'drainTimout' " + VALID_LIST);
            assertDisabledDefaults(r);
        }

        @Test
        void malformedMapValue() {
            assertThat(singleError(BladeOptionsParser.parse(Map.of("strict", "maybe"))))
                .isEqualTo("malformed option 'strict=maybe': expected true or false");
        }

        @Test
        void mapFormNamesEachOptionAsTheUserWroteIt() {
            Result r = BladeOptionsParser.parse(Map.of("drainTimeout", "soon", "margin", "61m"),
                key -> "app.blade." + key);
            assertThat(r.errors()).containsExactly(
                "malformed option 'app.blade.drainTimeout=soon': expected a duration such as 20ms or 1s",
                "invalid option 'app.blade.margin=61m': app.blade.margin must be at most 1h (60m)");
            assertDisabledDefaults(r);
        }

        @Test
        void nullMapValueIsMalformed() {
            Map<String, String> m = new HashMap<>();
            m.put("margin", null);
            assertThat(singleError(BladeOptionsParser.parse(m))).startsWith("malformed option 'margin='");
        }

        @Test
        void everyErrorIsReportedOncePerProblemInOneLineAndNamesItsKey() {
            Result r = BladeOptionsParser.parse("foo,drainTimout=1s,margin=abc,enabled=yes,sampleInterval=0ms",
                props("blade.nope", "1", "blade.strict", "maybe"),
                env("BLADE_WHAT", "1", "BLADE_DRAIN_TIMEOUT", "5"));
            assertThat(r.errors()).hasSize(9);
            List<String> names = List.of("'foo'", "drainTimout", "margin", "enabled", "sampleInterval", "nope",
                "strict", "BLADE_WHAT", "drainTimeout");
            for (String e : r.errors()) {
                assertThat(e).doesNotContain("\n");
                assertThat(names).anySatisfy(n -> assertThat(e).contains(n));
            }
            for (String n : names) {
                assertThat(r.errors()).anySatisfy(e -> assertThat(e).contains(n));
            }
            assertDisabledDefaults(r);
        }
    }

    /** Messages quote what they were given, but never more than a short, printable piece of it (issue 15). */
    @Nested
    class QuotedInput {
        @Test
        void aHugeValueIsShownShortWithItsLength() {
            String e = singleError(args("margin=" + "9".repeat(100_000)));
            assertThat(e).isEqualTo("malformed option 'margin=" + "9".repeat(BladeOptionsParser.MAX_SHOWN)
                + "...(100000 chars)': a duration needs a unit (ms, s or m), e.g. 20ms or 20s");
        }

        @Test
        void aHugeUnknownKeyIsShownShortAndTheValidKeysStillListed() {
            String e = singleError(args("k".repeat(5_000) + "=1"));
            assertThat(e).isEqualTo("unknown option '" + "k".repeat(BladeOptionsParser.MAX_SHOWN) + "...(5000 chars)' "
                + VALID_LIST);
        }

        @Test
        void aHugeItemWithoutEqualsSignIsShownShort() {
            assertThat(singleError(args("x".repeat(1_000)))).startsWith("malformed option '"
                + "x".repeat(BladeOptionsParser.MAX_SHOWN) + "...(1000 chars)': expected key=value");
        }

        @Test
        void controlCharactersAreEscapedNotEchoed() {
            String e = singleError(args("nodeId=a\nb\tc\u0007d\re"));
            assertThat(e).startsWith("malformed option 'nodeId=a\\nb\\tc\\u0007d\\re'");
        }

        @Test
        void unknownPropertiesAndVariablesAreShownShortToo() {
            String name = "x".repeat(200);
            Result r = BladeOptionsParser.parse(null, props("blade." + name, "1"), env("BLADE_" + name.toUpperCase(),
                "1"));
            assertThat(r.errors()).hasSize(2).allSatisfy(e -> assertThat(e).contains("...(").hasSizeLessThan(500));
        }

        @Test
        void aCoordinatorListShowsEachUrlShort() {
            String e = singleError(args("coordinator=http://a:1|ftp://" + "h".repeat(500)));
            assertThat(e).contains("URL 2 of 2 'ftp://" + "h".repeat(BladeOptionsParser.MAX_SHOWN - 6)
                + "...(506 chars)'");
        }

        @Test
        void theTokenStaysHidden() {
            assertThat(singleError(args("token=s3cr3t x"))).contains("'token=(hidden)'").doesNotContain("s3cr3t");
        }
    }

    @Nested
    class Coordinator {

        @Test
        void defaultsAreSingleNodeWithAOneSecondTimeoutAndAHostPidNodeId() {
            BladeOptions d = BladeOptions.defaults();
            assertThat(d.coordinator()).isNull();
            assertThat(d.coordinated()).isFalse();
            assertThat(d.token()).isNull();
            assertThat(d.coordinatorTimeout()).isEqualTo(Duration.ofSeconds(1));
            assertThat(d.nodeId()).isEqualTo(BladeOptions.defaultNodeId())
                .endsWith("-" + ProcessHandle.current().pid()).matches("[A-Za-z0-9._-]{1,64}");
        }

        @Test
        void allCoordinatorKeysFromAgentArguments() {
            Result r = args("coordinator=http://127.0.0.1:7070,nodeId=web-1.eu_a,token=s3cr3t+/=,"
                + "coordinatorTimeout=250ms");
            assertThat(r.errors()).isEmpty();
            BladeOptions o = r.options();
            assertThat(o.coordinator()).hasToString("http://127.0.0.1:7070");
            assertThat(o.coordinated()).isTrue();
            assertThat(o.nodeId()).isEqualTo("web-1.eu_a");
            assertThat(o.token()).isEqualTo("s3cr3t+/=");
            assertThat(o.coordinatorTimeout()).isEqualTo(Duration.ofMillis(250));
        }

        @Test
        void fromEnvironmentAndProperties() {
            Result r = BladeOptionsParser.parse(null, props("blade.nodeId", "n1"),
                env("BLADE_COORDINATOR", "https://coord.example:8443/blade/", "BLADE_TOKEN", "t0k",
                    "BLADE_NODE_ID", "n2", "BLADE_COORDINATOR_TIMEOUT", "2s"));
            assertThat(r.errors()).isEmpty();
            assertThat(r.options().coordinator()).as("trailing slash dropped")
                .hasToString("https://coord.example:8443/blade");
            assertThat(r.options().nodeId()).as("property beats env").isEqualTo("n1");
            assertThat(r.options().token()).isEqualTo("t0k");
            assertThat(r.options().coordinatorTimeout()).isEqualTo(Duration.ofSeconds(2));
        }

        @ParameterizedTest
        @ValueSource(strings = {"127.0.0.1:7070", "localhost:7070", "ftp://host:21", "http://", "http//host",
            "http://host:7070/?x=1", "http://host#frag", "http://user:pw@host:7070", "http://ho st", "", "/v1",
            "mailto:a@b"})
        void malformedCoordinatorIsOneLine(String v) {
            Result r = args("coordinator=" + v);
            String e = singleError(r);
            assertThat(e).startsWith("malformed option 'coordinator=" + v + "'").contains("http://127.0.0.1:7070");
            assertDisabledDefaults(r);
            assertThat(r.options().coordinator()).isNull();
        }

        @Test
        void malformedCoordinatorSaysWhatIsWrong() {
            assertThat(singleError(args("coordinator=http://u:p@h"))).contains("user info");
            assertThat(singleError(args("coordinator=ftp://h"))).contains("http:// or https://");
            assertThat(singleError(args("coordinator=http://h/?q"))).contains("query");
        }

        @ParameterizedTest
        @ValueSource(strings = {"", ".", "..", "a/b", "a b", "caf\u00e9", "x?y", "host:123",
            "12345678901234567890123456789012345678901234567890123456789012345"})
        void malformedNodeId(String v) {
            String e = singleError(args("nodeId=" + v));
            assertThat(e).startsWith("malformed option 'nodeId=" + v.trim() + "'").contains("1 to 64 characters");
        }

        @Test
        void nodeIdOfExactly64IsFine() {
            String id = "a".repeat(60) + "-123";
            assertThat(args("nodeId=" + id).options().nodeId()).isEqualTo(id);
        }

        @Test
        void aMalformedTokenIsReportedWithoutItsValue() {
            Result r = BladeOptionsParser.parse(null, props("blade.token", "has space"),
                env("BLADE_TOKEN", "x\u0001y"));
            assertThat(r.errors()).hasSize(2).allSatisfy(e -> assertThat(e).contains("'token=(hidden)'")
                .doesNotContain("has space", "\u0001"));
            assertThat(singleError(args("token="))).isEqualTo("malformed option 'token=(hidden)': expected 1 to 4096 "
                + "visible ASCII characters, no spaces");
        }

        @Test
        void aTokenGivenTwiceIsReportedWithoutItsValues() {
            String e = singleError(args("token=first,token=second"));
            assertThat(e).contains("'token'", "given twice").doesNotContain("first", "second");
        }

        @Test
        void theTokenNeverAppearsInToString() {
            BladeOptions o = args("coordinator=http://h:1,token=sekrit").options();
            assertThat(o.toString()).doesNotContain("sekrit").contains("token=(set)", "coordinator=http://h:1");
            assertThat(BladeOptions.defaults().toString()).contains("token=none");
        }

        @ParameterizedTest
        @CsvSource({
            "0ms, greater than zero",
            "61m, at most",
        })
        void coordinatorTimeoutOutOfRange(String value, String hint) {
            String e = singleError(args("coordinatorTimeout=" + value));
            assertThat(e).startsWith("invalid option 'coordinatorTimeout=" + value + "'").contains(hint);
        }

        @Test
        void coordinatorTimeoutNeedsAUnit() {
            assertThat(singleError(args("coordinatorTimeout=5"))).contains("needs a unit");
        }

        @Test
        void theBuilderChecksToo() {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> BladeOptions.builder()
                .coordinator(java.net.URI.create("ftp://x")).build()).isInstanceOf(IllegalArgumentException.class);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> BladeOptions.builder().nodeId("..").build())
                .isInstanceOf(IllegalArgumentException.class);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> BladeOptions.builder().token("a b").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageNotContaining("a b");
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> BladeOptions.builder()
                .coordinatorTimeout(Duration.ZERO).build()).isInstanceOf(IllegalArgumentException.class);
        }

        @Test
        void oneUrlIsOneReplica() {
            BladeOptions o = args("coordinator=http://127.0.0.1:7070/").options();
            assertThat(o.coordinators()).containsExactly(java.net.URI.create("http://127.0.0.1:7070"));
            assertThat(o.coordinatorsText()).isEqualTo("http://127.0.0.1:7070");
        }

        @Test
        void severalUrlsSeparatedByABarAreTheReplicasInOrder() {
            Result r = args("coordinator=http://127.0.0.1:7070|http://127.0.0.1:7071/ | https://c.example/blade,"
                + "nodeId=n1");
            assertThat(r.errors()).isEmpty();
            BladeOptions o = r.options();
            assertThat(o.coordinators()).extracting(Object::toString)
                .containsExactly("http://127.0.0.1:7070", "http://127.0.0.1:7071", "https://c.example/blade");
            assertThat(o.coordinator()).as("the first").hasToString("http://127.0.0.1:7070");
            assertThat(o.coordinated()).isTrue();
            assertThat(o.coordinatorsText())
                .isEqualTo("http://127.0.0.1:7070|http://127.0.0.1:7071|https://c.example/blade");
            assertThat(o.toString()).contains("coordinator=http://127.0.0.1:7070|http://127.0.0.1:7071|https://");
        }

        @Test
        void severalUrlsFromAPropertyTheEnvironmentAndTheMapForm() {
            String urls = "http://10.0.0.1:7070|http://10.0.0.2:7070|http://10.0.0.3:7070";
            for (Result r : List.of(BladeOptionsParser.parse(null, props("blade.coordinator", urls), Map.of()),
                BladeOptionsParser.parse(null, new Properties(), env("BLADE_COORDINATOR", urls)),
                BladeOptionsParser.parse(Map.of("coordinator", urls)))) {
                assertThat(r.errors()).isEmpty();
                assertThat(r.options().coordinators()).hasSize(3);
                assertThat(r.options().coordinatorsText()).isEqualTo(urls);
            }
        }

        @ParameterizedTest
        @CsvSource(delimiter = ';', quoteCharacter = '"', value = {
            "http://a:1|ftp://b:2;                  URL 2 of 2 'ftp://b:2' must be an http:// or https:// URL",
            "http://a:1|http://b:2|http://u:p@c;    URL 3 of 3 'http://u:p@c' must not carry user info",
            "http://a:1|b c;                        URL 2 of 2 'b c': expected an http:// or https:// URL",
            "127.0.0.1:7070|http://a:1;             URL 1 of 2 '127.0.0.1:7070': expected an http:// or https://",
        })
        void aMalformedUrlAmongSeveralIsNamed(String value, String problem) {
            Result r = args("coordinator=" + value);
            String e = singleError(r);
            assertThat(e).startsWith("malformed option 'coordinator=" + value + "'")
                .contains("the coordinator " + problem).contains("http://127.0.0.1:7070");
            assertDisabledDefaults(r);
            assertThat(r.options().coordinators()).isEmpty();
        }

        @ParameterizedTest
        @CsvSource(delimiter = ';', quoteCharacter = '"', value = {
            "http://a:1|http://b:2|http://a:1;   URL 3 of 3 'http://a:1' repeats URL 1",
            "http://a:1|http://a:1/;             URL 2 of 2 'http://a:1/' repeats URL 1",
            "http://A:1/x|http://a:1/x;          URL 2 of 2 'http://a:1/x' repeats URL 1",
        })
        void aUrlListedTwiceIsAnError(String value, String problem) {
            Result r = args("coordinator=" + value);
            assertThat(singleError(r)).startsWith("malformed option 'coordinator=" + value + "'")
                .contains("the coordinator " + problem, "once");
            assertDisabledDefaults(r);
        }

        @ParameterizedTest
        @ValueSource(strings = {"http://a:1||http://b:2", "http://a:1|", "|http://a:1", "|", "http://a:1| |http://b:2"})
        void anEmptyUrlAmongSeveralIsAnError(String value) {
            Result r = args("coordinator=" + value);
            assertThat(singleError(r)).startsWith("malformed option 'coordinator=" + value.trim() + "'")
                .contains("is empty", "separated by |");
            assertDisabledDefaults(r);
        }

        @Test
        void theBuilderRefusesAReplicaListedTwice() {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> BladeOptions.builder()
                .coordinators(List.of(java.net.URI.create("http://a:1"), java.net.URI.create("http://a:1/"))).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("twice");
            assertThat(BladeOptions.builder().coordinators(null).build().coordinated()).isFalse();
            assertThat(BladeOptions.builder().coordinator(null).build().coordinator()).isNull();
        }

        @Test
        void mapFormTakesTheCoordinatorKeys() {
            Result r = BladeOptionsParser.parse(Map.of("coordinator", "http://10.0.0.1:7070", "nodeId", "w1"));
            assertThat(r.errors()).isEmpty();
            assertThat(r.options().coordinator()).hasToString("http://10.0.0.1:7070");
            assertThat(r.options().nodeId()).isEqualTo("w1");
        }
    }
}
