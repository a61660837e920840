package io.bladegc.commandline;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * A tool's command line parsed as its {@code main} parses it, with what it printed, and the checks every tool's
 * help and usage errors must pass ({@link ToolCommandLine}'s conventions).
 *
 * @param outcome the options, or the exit status
 * @param out     standard output
 * @param err     standard error
 * @param <T>     the tool's options
 */
public record ToolRun<T>(ToolCommandLine.Outcome<T> outcome, String out, String err) {

    /** Parses {@code args} with a fresh {@code command}. */
    public static <T> ToolRun<T> of(ToolCommand<T> command, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        ToolCommandLine.Outcome<T> outcome = ToolCommandLine.parse(command, args,
            new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        return new ToolRun<>(outcome, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /**
     * Asserts that this was {@code --help}: exit status 0, the help on standard output in the shared layout, listing
     * {@code options}.
     *
     * @return this
     */
    public ToolRun<T> isHelpOf(String program, String... options) {
        assertThat(outcome).isEqualTo(new ToolCommandLine.Outcome<>(null, 0));
        assertThat(err).isEmpty();
        assertThat(out).startsWith("Usage: " + program + " ").contains("\nOptions:\n", "  -h, --help ")
            .contains(options);
        assertThat(out.lines()).allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(ToolCommandLine.WIDTH));
        return this;
    }

    /**
     * Asserts a usage error: exit status 2, nothing on standard output, on standard error {@code problems} (each the
     * start of one line after {@code <program>: }) then the hint.
     *
     * @return this
     */
    public ToolRun<T> isUsageError(String program, String... problems) {
        assertThat(outcome).isEqualTo(new ToolCommandLine.Outcome<>(null, ToolCommandLine.USAGE_ERROR));
        assertThat(out).isEmpty();
        var lines = err.lines().toList();
        assertThat(lines).hasSize(problems.length + 1).last().isEqualTo(program + ": see --help");
        for (int i = 0; i < problems.length; i++) {
            assertThat(lines.get(i)).startsWith(program + ": " + problems[i]);
        }
        return this;
    }
}
