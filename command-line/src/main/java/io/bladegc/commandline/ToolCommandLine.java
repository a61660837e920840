package io.bladegc.commandline;

import java.io.PrintStream;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * Blade's conventions for a program's command line, on picocli. Help: {@code -h}/{@code --help} on every program,
 * written to standard output, exit status 0; the layout is {@code Usage:} and the synopsis, the description, then
 * {@code Options:} in the order declared, {@value #WIDTH} columns, then any footer. Usage errors: every problem found,
 * one line each on standard error as {@code <program>: <problem>}, where a problem names the option and the value
 * (picocli's words for a malformed value, an unknown option or a missing one; {@link UsageProblems}' for a value out
 * of range), then {@code <program>: see --help}, exit status {@value #USAGE_ERROR}. Options take their value as
 * {@code --key value} or {@code --key=value}; given twice, the last one counts; an argument starting with {@code @} is
 * taken as it is. Stateless, thread-safe.
 */
public final class ToolCommandLine {
    /** The exit status of a command line the program cannot run with. */
    public static final int USAGE_ERROR = 2;
    /** The width of the help text. */
    public static final int WIDTH = 120;
    /** Options with their value up to this wide have their description on the same line. */
    private static final int LONG_OPTIONS_WIDTH = 30;

    /**
     * What parsing came to.
     *
     * @param options    the options to run with, or {@code null} when the program should exit instead
     * @param exitStatus when {@code options} is {@code null}: 0 after {@code --help}, {@value #USAGE_ERROR} after a
     *                   usage error
     * @param <T>        the options' type
     */
    public record Outcome<T>(T options, int exitStatus) {
    }

    private ToolCommandLine() {
    }

    /**
     * Parses {@code args} for a program's {@code main}: on {@code --help} prints the help and exits 0, on a usage
     * error prints the problems and exits {@value #USAGE_ERROR} (both through {@link System#exit}).
     *
     * @return the options
     */
    public static <T> T parseOrExit(ToolCommand<T> command, String... args) {
        Outcome<T> outcome = parse(command, args, System.out, System.err);
        if (outcome.options() == null) {
            System.out.flush();
            System.exit(outcome.exitStatus());
        }
        return outcome.options();
    }

    /**
     * Parses {@code args}, printing the help to {@code out} or the usage error to {@code err}.
     *
     * @return the options, or why not and the exit status
     */
    public static <T> Outcome<T> parse(ToolCommand<T> command, String[] args, PrintStream out, PrintStream err) {
        CommandLine commandLine = commandLine(command);
        String program = commandLine.getCommandName();
        try {
            T options = read(commandLine, command, args);
            if (options == null) {
                commandLine.usage(out);
                return new Outcome<>(null, 0);
            }
            return new Outcome<>(options, 0);
        } catch (UsageException e) {
            e.problems().forEach(p -> err.println(program + ": " + p));
            err.println(program + ": see --help");
            return new Outcome<>(null, USAGE_ERROR);
        }
    }

    /**
     * Parses {@code args} without printing anything, for tests and for callers that report errors their own way.
     *
     * @return the options
     * @throws UsageException for every problem, or when {@code args} ask for {@code --help}
     */
    public static <T> T options(ToolCommand<T> command, String... args) {
        T options = read(commandLine(command), command, args);
        if (options == null) {
            throw new UsageException("--help asks for the help text, not for options to run with");
        }
        return options;
    }

    /** @return the help text of {@code command}, as {@code --help} prints it */
    public static String usage(ToolCommand<?> command) {
        return commandLine(command).getUsageMessage();
    }

    /** @return the options, or {@code null} when help was asked for */
    private static <T> T read(CommandLine commandLine, ToolCommand<T> command, String[] args) {
        ParseResult result = commandLine.parseArgs(args);
        if (commandLine.isUsageHelpRequested()) {
            return null;
        }
        List<Exception> errors = result.errors();
        if (!errors.isEmpty()) {
            // picocli reports missing required options once per option missing, each time naming all of them
            throw new UsageException(errors.stream().map(Exception::getMessage).distinct().toList());
        }
        return command.options();
    }

    private static CommandLine commandLine(ToolCommand<?> command) {
        CommandLine commandLine = new CommandLine(command);
        CommandSpec spec = commandLine.getCommandSpec();
        spec.addOption(OptionSpec.builder("-h", "--help").usageHelp(true).description("print this text and exit")
            .build());
        spec.usageMessage().width(WIDTH).longOptionsMaxWidth(LONG_OPTIONS_WIDTH).sortOptions(false).sortSynopsis(false)
            .synopsisHeading("Usage: ").descriptionHeading("%n")
            .optionListHeading("%nOptions:%n").parameterListHeading("%nArguments:%n");
        if (spec.usageMessage().footer().length > 0) {
            spec.usageMessage().footerHeading("%n");
        }
        // '@file' is a value like any other (a key, an arm's name), not a file of arguments to read
        spec.parser().collectErrors(true).overwrittenOptionsAllowed(true).expandAtFiles(false);
        command.configure(commandLine);
        return commandLine;
    }
}
