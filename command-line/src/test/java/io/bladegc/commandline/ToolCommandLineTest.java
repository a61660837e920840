package io.bladegc.commandline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

class ToolCommandLineTest {

    /** A small program: a required option, a ranged one, a positional argument. */
    @Command(name = "sample", description = "Does a sample thing.", footer = "Exit status 0.")
    static final class Sample implements ToolCommand<String> {
        @Option(names = "--url", paramLabel = "URL", required = true, description = "where to go")
        String url;

        @Option(names = "--count", paramLabel = "N", defaultValue = "3",
            description = "how often (default ${DEFAULT-VALUE})")
        int count;

        @Parameters(paramLabel = "WORD", arity = "0..1", description = "a word")
        String word;

        @Override
        public String options() {
            UsageProblems problems = new UsageProblems();
            problems.inRange("--count", count, 1, 10);
            if (word != null && word.isBlank()) {
                problems.add("WORD must not be blank");
            }
            problems.throwIfAny();
            return url + " x" + count + (word == null ? "" : " " + word);
        }
    }

    private record Run(ToolCommandLine.Outcome<String> outcome, String out, String err) {
    }

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        ToolCommandLine.Outcome<String> outcome = ToolCommandLine.parse(new Sample(), args,
            new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(outcome, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void optionsInBothFormsTheLastOneCounting() {
        assertThat(run("--url", "u", "--count=4", "w").outcome()).isEqualTo(new ToolCommandLine.Outcome<>("u x4 w", 0));
        assertThat(ToolCommandLine.options(new Sample(), "--url=a", "--url", "b")).isEqualTo("b x3");
        assertThat(ToolCommandLine.options(new Sample(), "--url", "@no-such-file", "@word"))
            .as("no argument files").isEqualTo("@no-such-file x3 @word");
    }

    @Test
    void helpGoesToStandardOutputInTheSharedLayout() {
        Run r = run("--help");
        assertThat(r.outcome()).isEqualTo(new ToolCommandLine.Outcome<>(null, 0));
        assertThat(r.err()).isEmpty();
        assertThat(r.out().lines()).containsExactly(
            "Usage: sample [-h] --url=URL [--count=N] [WORD]",
            "",
            "Does a sample thing.",
            "",
            "Arguments:",
            "      [WORD]      a word",
            "",
            "Options:",
            "      --url=URL   where to go",
            "      --count=N   how often (default 3)",
            "  -h, --help      print this text and exit",
            "",
            "Exit status 0.");
        assertThat(ToolCommandLine.usage(new Sample())).isEqualTo(r.out());
    }

    @Test
    void helpWinsOverProblems() {
        assertThat(run("--nope", "-h").outcome().exitStatus()).isZero();
    }

    @Test
    void aUsageErrorIsEveryProblemOnALineOfItsOwnThenTheHintAndStatusTwo() {
        Run r = run("--count", "x", "--nope");
        assertThat(r.outcome()).isEqualTo(new ToolCommandLine.Outcome<>(null, ToolCommandLine.USAGE_ERROR));
        assertThat(r.out()).isEmpty();
        assertThat(r.err().lines()).containsExactly(
            "sample: Invalid value for option '--count': 'x' is not an int",
            "sample: Missing required option: '--url=URL'",
            "sample: Unknown option: '--nope'",
            "sample: see --help");
    }

    @Test
    void problemsFoundAfterParsingAreReportedTheSameWay() {
        Run r = run("--url", "u", "--count", "11", " ");
        assertThat(r.outcome().exitStatus()).isEqualTo(2);
        assertThat(r.err().lines()).containsExactly(
            "sample: Invalid value for option '--count': '11' is not an integer in 1..10",
            "sample: WORD must not be blank",
            "sample: see --help");
    }

    @Test
    void withoutPrintingEveryProblemIsInTheException() {
        assertThatThrownBy(() -> ToolCommandLine.options(new Sample(), "--count", "0", "--url", "u"))
            .isInstanceOfSatisfying(UsageException.class, e -> assertThat(e.problems()).containsExactly(
                "Invalid value for option '--count': '0' is not an integer in 1..10"));
        assertThatThrownBy(() -> ToolCommandLine.options(new Sample(), "--help"))
            .isInstanceOf(UsageException.class).hasMessageContaining("--help");
        assertThatThrownBy(() -> new UsageException(List.of())).isInstanceOf(IllegalArgumentException.class);
    }
}
